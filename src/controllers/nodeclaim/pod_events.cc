#include "controllers/nodeclaim/pod_events.h"

#include "controllers/common/karpenter.h"
#include "controllers/controllers.h"

namespace nodesmith::controllers {

PodEvents::PodEvents(const core::Clock& clock, cluster::ClusterApi& cluster,
                     PodEventsOptions options)
    : clock_(clock), cluster_(cluster), options_(options) {}

std::string PodEvents::Name() const { return kPodEventsName; }

core::Result<runtime::ReconcileResult> PodEvents::Reconcile(const runtime::Request& request) {
  const std::string key = request.namespace_ + "/" + request.name;
  auto pod = cluster_.Get<api::Pod>(request.namespace_, request.name);
  auto prev = seen_.find(key);
  if (!pod.ok()) {
    if (pod.status().code() != core::StatusCode::kNotFound) return pod.status();
    if (prev == seen_.end()) return runtime::ReconcileResult::Done();
    std::string node = prev->second.node;
    seen_.erase(prev);
    NS_RETURN_IF_ERROR(Touch(node));
    return runtime::ReconcileResult::Done();
  }

  Seen now{pod->spec.node_name, IsTerminal(*pod)};
  if (now.node.empty()) {
    if (prev != seen_.end()) seen_.erase(prev);
    return runtime::ReconcileResult::Done();
  }
  bool changed = prev == seen_.end() || prev->second.node != now.node ||
                 prev->second.terminal != now.terminal;
  // A pod seen for the first time already bound and finished (the initial list) is no event.
  bool initial_terminal = prev == seen_.end() && now.terminal;
  seen_[key] = now;
  if (changed && !initial_terminal) NS_RETURN_IF_ERROR(Touch(now.node));
  return runtime::ReconcileResult::Done();
}

core::Status PodEvents::Touch(const std::string& node_name) {
  if (node_name.empty()) return core::Status::Ok();
  auto node = cluster_.Get<api::Node>("", node_name);
  if (!node.ok()) return core::Status::Ok();
  auto claim = NodeClaimForNode(cluster_, *node);
  if (!claim) return core::Status::Ok();
  const core::Time now = clock_.Now();
  if (claim->status.last_pod_event_time &&
      now - *claim->status.last_pod_event_time < options_.dedupe_window) {
    return core::Status::Ok();
  }
  claim->status.last_pod_event_time = now;
  auto updated = cluster_.Update(*claim);
  if (!updated.ok()) return updated.status().WithPrefix("recording pod event on nodeclaim " +
                                                        claim->metadata.name);
  return core::Status::Ok();
}

}  // namespace nodesmith::controllers
