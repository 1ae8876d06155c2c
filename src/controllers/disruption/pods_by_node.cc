#include "controllers/disruption/pods_by_node.h"

#include <algorithm>
#include <variant>

#include "api/pod_status.h"
#include "controllers/common/karpenter.h"
#include "controllers/disruption/candidates.h"

namespace nodesmith::controllers {

PodsByNode::PodsByNode(cluster::ClusterApi& cluster) {
  cluster.ForEachObject(cluster::Kind::kPod, [&](const cluster::Object& o) {
    Put(std::make_shared<const cluster::Object>(o));
  });
  cluster.Watch(cluster::Kind::kPod, [this, &cluster](const cluster::WatchEvent& e) {
    const Key key{e.namespace_, e.name};
    if (e.type == cluster::WatchEventType::kDeleted) return Remove(key);
    if (e.object) return Put(e.object);
    // A world that cannot hand over the object: read it back.
    auto stored = cluster.GetObject(cluster::Kind::kPod, e.namespace_, e.name);
    if (!stored.ok()) return Remove(key);
    Put(std::make_shared<const cluster::Object>(std::move(stored).value()));
  });
}

void PodsByNode::Put(std::shared_ptr<const cluster::Object> object) {
  const auto& pod = std::get<api::Pod>(*object);
  Key key{pod.metadata.namespace_, pod.metadata.name};
  Remove(key);
  if (pod.spec.node_name.empty()) {
    unbound_.emplace(std::move(key), std::move(object));
    return;
  }
  NodeEntry& entry = nodes_[pod.spec.node_name];
  entry.dirty = true;
  node_of_.emplace(key, pod.spec.node_name);
  entry.pods.emplace(std::move(key), std::move(object));
}

void PodsByNode::Remove(const Key& key) {
  if (unbound_.erase(key)) return;
  auto it = node_of_.find(key);
  if (it == node_of_.end()) return;
  auto node = nodes_.find(it->second);
  node->second.pods.erase(key);
  node->second.dirty = true;
  if (node->second.pods.empty()) nodes_.erase(node);
  node_of_.erase(it);
}

const PodsByNode::Pods* PodsByNode::PodsOn(const std::string& node) const {
  auto it = nodes_.find(node);
  return it == nodes_.end() ? nullptr : &it->second.pods;
}

const PodsByNode::Summary* PodsByNode::SummaryOf(const std::string& node) const {
  auto it = nodes_.find(node);
  if (it == nodes_.end()) return nullptr;
  const NodeEntry& entry = it->second;
  if (entry.dirty) {
    // The same pods, order and arithmetic as BuildCandidates' scan of the whole cluster.
    Summary s;
    for (const auto& [key, object] : entry.pods) {
      const auto& pod = std::get<api::Pod>(*object);
      if (!IsReschedulable(pod)) continue;
      const double cost = EvictionCost(pod);
      s.eviction_cost += cost;
      s.positive_eviction_cost += std::max(cost, 0.0);
      s.keys.push_back(api::PodKey(pod));
      s.any_do_not_disrupt =
          s.any_do_not_disrupt || pod.metadata.annotations.count(kDoNotDisruptAnnotation) > 0;
    }
    entry.summary = std::move(s);
    entry.dirty = false;
  }
  return &entry.summary;
}

}  // namespace nodesmith::controllers
