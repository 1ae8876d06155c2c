#include "controllers/common/karpenter.h"

#include <algorithm>
#include <cstdint>

#include "core/field_hasher.h"
#include "scheduling/requirements.h"
#include "scheduling/taints.h"

namespace nodesmith::controllers {

bool IsCritical(const api::Pod& pod) {
  if (pod.spec.priority_class_name == "system-cluster-critical" ||
      pod.spec.priority_class_name == "system-node-critical") {
    return true;
  }
  return pod.spec.priority.has_value() && *pod.spec.priority >= 2000000000;
}

bool HasDoNotDisrupt(const api::ObjectMeta& meta) {
  auto it = meta.annotations.find(kDoNotDisruptAnnotation);
  return it != meta.annotations.end() && it->second == "true";
}

std::optional<api::Node> NodeForNodeClaim(const cluster::ClusterApi& cluster,
                                          const api::NodeClaim& claim) {
  if (!claim.status.node_name.empty()) {
    auto node = cluster.Get<api::Node>("", claim.status.node_name);
    if (node.ok()) return std::move(node).value();
  }
  std::optional<api::Node> found;
  cluster.ForEachWithProviderId(cluster::Kind::kNode, claim.status.provider_id,
                                [&](const cluster::Object& o) {
                                  if (!found) found = std::get<api::Node>(o);
                                });
  return found;
}

std::optional<api::NodeClaim> NodeClaimForNode(const cluster::ClusterApi& cluster,
                                               const api::Node& node) {
  std::optional<api::NodeClaim> found;
  cluster.ForEachWithProviderId(cluster::Kind::kNodeClaim, node.spec.provider_id,
                                [&](const cluster::Object& o) {
                                  if (!found) found = std::get<api::NodeClaim>(o);
                                });
  return found;
}

std::vector<api::Pod> PodsOnNode(const cluster::ClusterApi& cluster, const std::string& node) {
  std::vector<api::Pod> out;
  if (node.empty()) return out;
  cluster.ForEachPodOn(node, [&](const api::Pod& pod) { out.push_back(pod); });
  return out;
}

std::string InstanceIdOf(std::string_view provider_id) {
  auto slash = provider_id.rfind('/');
  return std::string(slash == std::string_view::npos ? provider_id : provider_id.substr(slash + 1));
}

std::string NodePoolHash(const api::NodePool& pool) {
  const auto& t = pool.template_;
  core::FieldHasher h;
  h.Add("labels");
  for (const auto& [k, v] : t.labels) { h.Add(k); h.Add(v); }
  h.Add("annotations");
  for (const auto& [k, v] : t.annotations) { h.Add(k); h.Add(v); }
  // Taints are sets, as upstream hashes slices: reordering them is not drift.
  auto add_taints = [&h](const char* field, const std::vector<api::Taint>& taints) {
    std::vector<std::string> strings;
    for (const auto& taint : taints) strings.push_back(scheduling::TaintString(taint));
    std::sort(strings.begin(), strings.end());
    h.Add(field);
    for (const auto& s : strings) h.Add(s);
  };
  add_taints("taints", t.spec.taints);
  add_taints("startupTaints", t.spec.startup_taints);
  h.Add("nodeClassRef");
  h.Add(t.spec.node_class_ref.group);
  h.Add(t.spec.node_class_ref.kind);
  h.Add(t.spec.node_class_ref.name);
  h.Add("expireAfter");
  h.Add(core::FormatNillableDuration(t.spec.expire_after));
  h.Add("terminationGracePeriod");
  h.Add(t.spec.termination_grace_period ? core::FormatDuration(*t.spec.termination_grace_period)
                                        : "");
  // Requirements are left out, as upstream: changing them is detected by requirement drift.
  return std::to_string(h.value());
}

bool RemoveString(std::vector<std::string>& list, const std::string& value) {
  auto it = std::find(list.begin(), list.end(), value);
  if (it == list.end()) return false;
  list.erase(it);
  return true;
}

bool ContainsString(const std::vector<std::string>& list, const std::string& value) {
  return std::find(list.begin(), list.end(), value) != list.end();
}

void Emit(runtime::EventRecorder& recorder, runtime::LogLevel level, std::string logger,
          std::string message, std::string type,
          std::vector<std::pair<std::string, std::string>> fields) {
  recorder.Record(runtime::RecordedEvent{level, std::move(logger), std::move(message),
                                         std::move(type), std::move(fields)});
}

}  // namespace nodesmith::controllers
