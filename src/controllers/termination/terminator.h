// Terminator: takes a deleted NodeClaim's node away gracefully, as Karpenter's termination
// controllers. For a NodeClaim with a deletionTimestamp and the karpenter.sh/termination
// finalizer:
//   1. taint its Node karpenter.sh/disrupted:NoSchedule (cordon);
//   2. drain: evict the pods through the Eviction API in Karpenter's order — non-critical
//      non-DaemonSet pods, then non-critical DaemonSet pods, then critical non-DaemonSet, then
//      critical DaemonSet — a tier only once the one before is gone; a PodDisruptionBudget that
//      refuses (kUnavailable) is retried every `drain_retry`. Pods that tolerate the disrupted
//      taint, static pods and finished pods are not drained. At the NodeClaim's
//      terminationGracePeriod deadline (from its deletionTimestamp) the remaining pods are
//      deleted outright;
//   3. terminate the instance (CloudProvider::Delete), delete the Node object and the pods the
//      drain left on it (as the pod garbage collector would), and once the cloud reports the
//      instance gone, remove the finalizer.
// When the cloud merges terminations (MaxDeleteBatch > 1), a drained NodeClaim waits
// `terminate_batch_window` for others, and the first whose wait ends terminates every
// instance waiting, in one CloudProvider::DeleteAll (Karpenter's TerminateInstances batcher): a
// consolidation that removes many nodes costs one call. An instance the cloud already reports
// gone, or whose termination was sent within the last `instance_poll`, is not sent again.
// A NodeClaim without a Node only terminates its instance; one whose instance is already gone
// is not drained (its Node and pods are simply deleted). Requests name a NodeClaim, a Node or a
// Pod; Node and Pod requests reconcile the NodeClaim of a node being terminated. Not thread-safe.
#pragma once

#include <map>
#include <optional>
#include <string>
#include <vector>

#include "api/node.h"
#include "api/nodeclaim.h"
#include "api/pod.h"
#include "cloud/cloud_provider.h"
#include "cluster/cluster_api.h"
#include "core/clock.h"
#include "core/duration.h"
#include "runtime/controller.h"
#include "runtime/event_recorder.h"

namespace nodesmith::controllers {

struct TerminationOptions {
  core::Duration drain_retry = std::chrono::seconds(5);
  // How often to ask whether a terminating instance is gone.
  core::Duration instance_poll = std::chrono::seconds(5);
  // How long a drained NodeClaim waits for others to terminate with (Karpenter's
  // TerminateInstances batcher's idle window); only when the cloud merges terminations.
  core::Duration terminate_batch_window = std::chrono::milliseconds(100);
};

// The drain tier of a pod (0..3, lower first), or -1 when it is not drained at all.
int DrainTier(const api::Pod& pod);

class Terminator : public runtime::Controller {
 public:
  // REQUIRES: every reference outlives the controller.
  Terminator(const core::Clock& clock, cluster::ClusterApi& cluster, cloud::CloudProvider& cloud,
             runtime::EventRecorder& recorder, TerminationOptions options = {});

  std::string Name() const override;
  std::vector<cluster::Kind> Watches() const override;
  bool Singleton() const override { return false; }
  core::Result<runtime::ReconcileResult> Reconcile(const runtime::Request& request) override;

 private:
  core::Result<runtime::ReconcileResult> Terminate(api::NodeClaim claim);
  // Cordons the node; OK when it already is.
  core::Status Taint(api::Node& node, const api::NodeClaim& claim);
  // One drain pass. Returns true when nothing is left to drain.
  core::Result<bool> Drain(const api::Node& node, const api::NodeClaim& claim, bool force);
  // Sends the termination of the claim's instance, with those of every NodeClaim waiting when
  // the cloud merges them. Returns how long to wait first when the claim's batch is still
  // open, nothing once the termination is sent (or need not be).
  core::Result<std::optional<core::Duration>> TerminateInstance(const api::NodeClaim& claim,
                                                               bool instance_gone);
  // Forgets what TerminateInstance keeps of the claim.
  void ForgetTermination(const std::string& claim);

  const core::Clock& clock_;
  cluster::ClusterApi& cluster_;
  cloud::CloudProvider& cloud_;
  runtime::EventRecorder& recorder_;
  TerminationOptions options_;
  // NodeClaims drained and waiting for their batch's termination, with when each began to wait;
  // the instances whose termination was sent, with when.
  struct Waiting {
    api::NodeClaim claim;
    core::Time since;
  };
  std::map<std::string, Waiting> waiting_;
  std::map<std::string, core::Time> sent_;
};

}  // namespace nodesmith::controllers
