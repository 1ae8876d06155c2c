#include "sim/churn_checker.h"

#include <utility>

#include "api/pod.h"
#include "api/pod_status.h"
#include "api/workloads.h"
#include "core/time.h"

namespace nodesmith::sim {
namespace {

// Pods the replicated workloads keep at `replicas`: their coming and going is not demand, their
// workload's replica count is.
bool OfReplicatedWorkload(const api::Pod& pod) {
  const api::OwnerReference* ref = api::ControllerOf(pod.metadata);
  return ref != nullptr &&
         (ref->kind == "ReplicaSet" || ref->kind == "StatefulSet" || ref->kind == "Deployment");
}

bool IsConsolidation(const std::string& reason) {
  return reason == "Underutilized" || reason == "Empty";
}

}  // namespace

ChurnChecker::ChurnChecker(const core::Clock& clock, cluster::ClusterApi& cluster, Reporter report)
    : clock_(clock), cluster_(cluster), report_(std::move(report)) {}

void ChurnChecker::Start() {
  demand_changed_at_ = clock_.Now();
  for (const auto& w : cluster_.List<api::ReplicatedWorkload>()) {
    replicas_[w.kind + "/" + w.metadata.namespace_ + "/" + w.metadata.name] = w.replicas;
  }
  cluster_.ForEachObject(cluster::Kind::kPod, [&](const cluster::Object& o) {
    const auto& pod = std::get<api::Pod>(o);
    if (!api::IsActive(pod)) return;
    if (!pod.spec.node_name.empty()) pod_nodes_[pod.metadata.uid] = pod.spec.node_name;
    if (!OfReplicatedWorkload(pod) && !api::IsOwnedByDaemonSet(pod)) bare_pods_.insert(pod.metadata.uid);
  });
  cluster_.Watch(cluster::Kind::kPod, [this](const cluster::WatchEvent& e) { OnPodEvent(e); });
  cluster_.Watch(cluster::Kind::kReplicatedWorkload,
                 [this](const cluster::WatchEvent& e) { OnWorkloadEvent(e); });
  cluster_.Watch(cluster::Kind::kNodeClaim, [this](const cluster::WatchEvent& e) {
    if (e.type == cluster::WatchEventType::kAdded) launched_at_.emplace(e.name, clock_.Now());
    if (e.type == cluster::WatchEventType::kDeleted) {
      launched_at_.erase(e.name);
      decided_at_.erase(e.name);
    }
  });
}

void ChurnChecker::OnWorkloadEvent(const cluster::WatchEvent& e) {
  if (!e.object) return;
  const auto& w = std::get<api::ReplicatedWorkload>(*e.object);
  const std::string key = w.kind + "/" + w.metadata.namespace_ + "/" + w.metadata.name;
  if (e.type == cluster::WatchEventType::kDeleted) {
    replicas_.erase(key);
    demand_changed_at_ = clock_.Now();
    return;
  }
  auto [it, added] = replicas_.emplace(key, w.replicas);
  if (added || it->second != w.replicas) demand_changed_at_ = clock_.Now();
  it->second = w.replicas;
}

void ChurnChecker::OnPodEvent(const cluster::WatchEvent& e) {
  if (!e.object) return;
  const auto& pod = std::get<api::Pod>(*e.object);
  const bool live = e.type != cluster::WatchEventType::kDeleted && api::IsActive(pod);
  auto bound = pod_nodes_.find(pod.metadata.uid);
  const std::string was_on = bound == pod_nodes_.end() ? "" : bound->second;
  const std::string now_on = live ? pod.spec.node_name : "";
  if (was_on != now_on) {
    if (!was_on.empty()) pods_changed_at_[was_on] = clock_.Now();
    if (!now_on.empty()) pods_changed_at_[now_on] = clock_.Now();
    if (now_on.empty()) {
      pod_nodes_.erase(bound);
    } else {
      pod_nodes_[pod.metadata.uid] = now_on;
    }
  }
  if (OfReplicatedWorkload(pod) || api::IsOwnedByDaemonSet(pod)) return;
  // A pod of no replicated workload is demand of its own: its arrival and its end change it.
  const bool known = bare_pods_.count(pod.metadata.uid) > 0;
  if (live != known) {
    if (live) {
      bare_pods_.insert(pod.metadata.uid);
    } else {
      bare_pods_.erase(pod.metadata.uid);
    }
    demand_changed_at_ = clock_.Now();
  }
}

void ChurnChecker::NoteDecision(const std::string& reason,
                                const std::vector<std::string>& node_claims,
                                const std::vector<std::string>& nodes) {
  if (!IsConsolidation(reason)) return;
  const core::Time now = clock_.Now();
  for (size_t i = 0; i < node_claims.size(); ++i) {
    const std::string& claim = node_claims[i];
    const std::string node = i < nodes.size() ? nodes[i] : "";
    auto launched = launched_at_.find(claim);
    if (launched != launched_at_.end() && launched->second >= demand_changed_at_) {
      report_(kChurnInvariant,
              "nodeclaim " + claim + " launched at " + core::FormatRfc3339(launched->second) +
                  " is removed by consolidation (" + reason +
                  ") while demand has not changed since " + core::FormatRfc3339(demand_changed_at_));
    }
    auto decided = decided_at_.find(claim);
    if (decided != decided_at_.end()) {
      auto changed = pods_changed_at_.find(node);
      if (changed == pods_changed_at_.end() || changed->second <= decided->second) {
        report_(kChurnInvariant,
                "nodeclaim " + claim + " is in a second consolidation decision (" + reason +
                    ") while the pods of node " + node + " have not changed since the first, at " +
                    core::FormatRfc3339(decided->second));
      }
    }
    decided_at_[claim] = now;
  }
}

void ChurnChecker::NoteAbandoned(const std::vector<std::string>& node_claims) {
  for (const auto& claim : node_claims) decided_at_.erase(claim);
}

}  // namespace nodesmith::sim
