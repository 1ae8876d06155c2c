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
    ForgetTermination(claim.metadata.name);
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
    auto wait = TerminateInstance(claim, instance_gone);
    if (!wait.ok()) return wait.status();
    if (*wait) return runtime::ReconcileResult::RequeueAfter(**wait);
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
  ForgetTermination(claim.metadata.name);
  std::vector<std::pair<std::string, std::string>> fields = {{"nodeClaim", claim.metadata.name}};
  if (node) fields.emplace_back("node", node->metadata.name);
  Emit(recorder_, runtime::LogLevel::kInfo, kLogger, "Deleted nodeclaim " + claim.metadata.name,
       "NodeClaimDeleted", std::move(fields));
  return runtime::ReconcileResult::Done();
}

core::Result<std::optional<core::Duration>> Terminator::TerminateInstance(
    const api::NodeClaim& claim, bool instance_gone) {
  const std::string& name = claim.metadata.name;
  const size_t most = cloud_.MaxDeleteBatch();
  if (most <= 1) {
    core::Status st = cloud_.Delete(claim);
    if (!st.ok() && st.code() != core::StatusCode::kNotFound)
      return st.WithPrefix("terminating instance of nodeclaim " + name);
    return std::optional<core::Duration>();
  }
  const core::Time now = clock_.Now();
  if (instance_gone) {
    waiting_.erase(name);
    return std::optional<core::Duration>();
  }
  if (auto it = sent_.find(name); it != sent_.end() && now - it->second < options_.instance_poll)
    return std::optional<core::Duration>();  // sent lately: the poll waits for it to go
  auto [self, added] = waiting_.try_emplace(name, Waiting{claim, now});
  if (!added) self->second.claim = claim;
  if (const core::Duration waited = now - self->second.since; waited < options_.terminate_batch_window)
    return std::optional<core::Duration>(options_.terminate_batch_window - waited);

  // This batch's window is over: terminate this instance and every other one waiting.
  std::vector<api::NodeClaim> batch = {claim};
  for (const auto& [other, w] : waiting_) {
    if (batch.size() >= most) break;
    if (other != name) batch.push_back(w.claim);
  }
  std::vector<core::Status> results = cloud_.DeleteAll(batch);
  for (auto it = sent_.begin(); it != sent_.end();)
    it = now - it->second >= options_.instance_poll ? sent_.erase(it) : std::next(it);
  core::Status own = core::Status::Ok();
  for (size_t i = 0; i < batch.size(); ++i) {
    const std::string& n = batch[i].metadata.name;
    waiting_.erase(n);
    // A failure is left to that NodeClaim's own reconcile, which sends it again and reports it.
    if (results[i].ok() || results[i].code() == core::StatusCode::kNotFound) sent_[n] = now;
    else if (i == 0) own = results[i];
  }
  if (!own.ok()) return own.WithPrefix("terminating instance of nodeclaim " + name);
  return std::optional<core::Duration>();
}

void Terminator::ForgetTermination(const std::string& claim) {
  waiting_.erase(claim);
  sent_.erase(claim);
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
