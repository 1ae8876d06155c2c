#include "controllers/termination/terminator.h"

#include <algorithm>

#include "controllers/common/karpenter.h"
#include "controllers/controllers.h"
#include "scheduling/taints.h"

namespace nodesmith::controllers {
namespace {

constexpr const char* kLogger = "controller.termination";

api::Taint DisruptedTaint() {
  return api::Taint{scheduling::kTaintDisrupted, "", scheduling::kTaintEffectNoSchedule};
}

bool HasDisruptedTaint(const api::Node& node) {
  for (const auto& t : node.spec.taints) {
    if (t.key == scheduling::kTaintDisrupted) return true;
  }
  return false;
}

}  // namespace

int DrainTier(const api::Pod& pod) {
  if (IsTerminal(pod) || api::IsOwnedByNode(pod)) return -1;
  // A pod that tolerates the disrupted taint would be scheduled right back: leave it.
  if (scheduling::TolerationsTolerateTaint(pod.spec.tolerations, DisruptedTaint())) return -1;
  const bool critical = IsCritical(pod);
  const bool daemon = IsOwnedByDaemonSet(pod);
  return (critical ? 2 : 0) + (daemon ? 1 : 0);
}

Terminator::Terminator(const core::Clock& clock, cluster::ClusterApi& cluster,
                       cloud::CloudProvider& cloud, runtime::EventRecorder& recorder,
                       TerminationOptions options)
    : clock_(clock), cluster_(cluster), cloud_(cloud), recorder_(recorder), options_(options) {}

std::string Terminator::Name() const { return kTerminationName; }

std::vector<cluster::Kind> Terminator::Watches() const {
  return {cluster::Kind::kNodeClaim, cluster::Kind::kNode, cluster::Kind::kPod};
}

core::Result<runtime::ReconcileResult> Terminator::Reconcile(const runtime::Request& request) {
  std::string node_name;
  if (!request.namespace_.empty()) {
    // A pod: only pods on nodes being terminated matter.
    auto pod = cluster_.Get<api::Pod>(request.namespace_, request.name);
    if (!pod.ok() || pod->spec.node_name.empty()) return runtime::ReconcileResult::Done();
    node_name = pod->spec.node_name;
  } else {
    auto claim = cluster_.Get<api::NodeClaim>("", request.name);
    if (claim.ok()) return Terminate(std::move(claim).value());
    if (claim.status().code() != core::StatusCode::kNotFound) return claim.status();
    node_name = request.name;
  }
  auto node = cluster_.Get<api::Node>("", node_name);
  if (!node.ok() || !HasDisruptedTaint(*node)) return runtime::ReconcileResult::Done();
  auto claim = NodeClaimForNode(cluster_, *node);
  if (!claim) return runtime::ReconcileResult::Done();
  return Terminate(std::move(*claim));
}

core::Result<runtime::ReconcileResult> Terminator::Terminate(api::NodeClaim claim) {
  if (!claim.metadata.deletion_timestamp ||
      !ContainsString(claim.metadata.finalizers, kTerminationFinalizer)) {
    return runtime::ReconcileResult::Done();
  }
  const core::Time now = clock_.Now();
  std::optional<core::Time> deadline;
  if (claim.spec.termination_grace_period) {
    deadline = *claim.metadata.deletion_timestamp + *claim.spec.termination_grace_period;
  }

  std::optional<api::Node> node;
  if (!claim.status.provider_id.empty() || !claim.status.node_name.empty()) {
    node = NodeForNodeClaim(cluster_, claim);
  }
  // An instance that is already gone runs nothing worth draining gracefully.
  bool instance_gone = false;
  if (!claim.status.provider_id.empty()) {
    auto instance = cloud_.Get(claim.status.provider_id);
    instance_gone = !instance.ok() && instance.status().code() == core::StatusCode::kNotFound;
  }
  if (node && !node->metadata.deletion_timestamp && !instance_gone) {
    NS_RETURN_IF_ERROR(Taint(*node, claim));
    auto drained = Drain(*node, claim, deadline && now >= *deadline);
    if (!drained.ok()) return drained.status();
    if (!*drained) {
      core::Duration wait = options_.drain_retry;
      if (deadline && *deadline > now) wait = std::min(wait, *deadline - now);
      return runtime::ReconcileResult::RequeueAfter(wait);
    }
  }

  if (!claim.status.provider_id.empty()) {
    core::Status st = cloud_.Delete(claim);
    if (!st.ok() && st.code() != core::StatusCode::kNotFound) {
      return st.WithPrefix("terminating instance of nodeclaim " + claim.metadata.name);
    }
  }
  if (node) {
    const std::string& name = node->metadata.name;
    if (!node->metadata.deletion_timestamp) {
      core::Status st = cluster_.Delete<api::Node>("", name);
      if (!st.ok() && st.code() != core::StatusCode::kNotFound) return st;
      Emit(recorder_, runtime::LogLevel::kInfo, kLogger, "Deleted node " + name);
    }
    // The pod garbage collector's part: pods bound to a node that no longer exists go too.
    for (const auto& pod : PodsOnNode(cluster_, name)) {
      core::Status st = cluster_.Delete<api::Pod>(pod.metadata.namespace_, pod.metadata.name);
      if (!st.ok() && st.code() != core::StatusCode::kNotFound) return st;
    }
  }
  if (!claim.status.provider_id.empty()) {
    auto instance = cloud_.Get(claim.status.provider_id);
    if (instance.ok()) return runtime::ReconcileResult::RequeueAfter(options_.instance_poll);
    if (instance.status().code() != core::StatusCode::kNotFound) return instance.status();
  }

  auto fresh = cluster_.Get<api::NodeClaim>("", claim.metadata.name);
  if (!fresh.ok()) return runtime::ReconcileResult::Done();
  RemoveString(fresh->metadata.finalizers, kTerminationFinalizer);
  auto updated = cluster_.Update(*fresh);
  if (!updated.ok()) return updated.status().WithPrefix("removing finalizer of " + claim.metadata.name);
  std::vector<std::pair<std::string, std::string>> fields = {{"nodeClaim", claim.metadata.name}};
  if (node) fields.emplace_back("node", node->metadata.name);
  Emit(recorder_, runtime::LogLevel::kInfo, kLogger, "Deleted nodeclaim " + claim.metadata.name,
       "NodeClaimDeleted", std::move(fields));
  return runtime::ReconcileResult::Done();
}

core::Status Terminator::Taint(api::Node& node, const api::NodeClaim& claim) {
  if (HasDisruptedTaint(node)) return core::Status::Ok();
  node.spec.taints.push_back(DisruptedTaint());
  auto updated = cluster_.Update(node);
  if (!updated.ok()) return updated.status().WithPrefix("cordoning node " + node.metadata.name);
  node = std::move(updated).value();
  Emit(recorder_, runtime::LogLevel::kInfo, kLogger, "Cordoned node " + node.metadata.name,
       "NodeTainted",
       {{"node", node.metadata.name},
        {"nodeClaim", claim.metadata.name},
        {"taint", scheduling::TaintString(DisruptedTaint())}});
  return core::Status::Ok();
}

core::Result<bool> Terminator::Drain(const api::Node& node, const api::NodeClaim& claim,
                                     bool force) {
  const std::string& name = node.metadata.name;
  for (int tier = 0; tier < 4; ++tier) {
    bool blocked = false;
    for (const auto& pod : PodsOnNode(cluster_, name)) {
      const int t = DrainTier(pod);
      if (t < 0) continue;
      if (t < tier) return false;  // an earlier tier is still on its way out
      if (t != tier && !force) continue;
      const std::string key = api::PodKey(pod);
      if (force) {
        core::Status st = cluster_.Delete<api::Pod>(pod.metadata.namespace_, pod.metadata.name);
        if (!st.ok() && st.code() != core::StatusCode::kNotFound) return st;
        Emit(recorder_, runtime::LogLevel::kInfo, kLogger,
             "Deleted pod " + key + " from node " + name + ": terminationGracePeriod elapsed",
             "PodEvicted", {{"pod", key}, {"node", name}, {"nodeClaim", claim.metadata.name},
                            {"forced", "true"}});
        continue;
      }
      if (pod.metadata.deletion_timestamp) {
        blocked = true;  // already going; wait for it
        continue;
      }
      core::Status st = cluster_.Evict(pod.metadata.namespace_, pod.metadata.name);
      if (st.ok()) {
        Emit(recorder_, runtime::LogLevel::kInfo, kLogger, "Evicted pod " + key, "PodEvicted",
             {{"pod", key}, {"node", name}, {"nodeClaim", claim.metadata.name}});
      } else if (st.code() == core::StatusCode::kUnavailable) {
        blocked = true;  // a PodDisruptionBudget says not now
      } else if (st.code() != core::StatusCode::kNotFound) {
        return st.WithPrefix("evicting pod " + key);
      }
    }
    if (force) return true;
    if (blocked) return false;
  }
  // Everything drainable went; anything still listed was just evicted but not yet removed.
  for (const auto& pod : PodsOnNode(cluster_, name)) {
    if (DrainTier(pod) >= 0) return false;
  }
  return true;
}

}  // namespace nodesmith::controllers
