// InvariantChecker: promises nodesmith keeps whatever it decides, checked against the simulated
// world after every step, so a disruption bug shows as a named violation at a virtual time
// instead of a subtly wrong chart.
//
//   PodDisruptionBudget  a pod nodesmith removes on purpose is never taken while a budget
//                        guarding it allows no disruption: at the moment such a pod is deleted,
//                        the budget (cluster::ComputeDisruptionBudgetStatus) must have allowed
//                        one, i.e. currentHealthy must not drop below desiredHealthy because of
//                        it. Deletions are judged one at a time in the order they happen, so N
//                        pods of one budget taken before their replacements are healthy need
//                        disruptionsAllowed >= N: the Eviction API's own rule, and what a
//                        drain that bypassed it would break. Only healthy (Ready, not
//                        terminating) bound pods count. Excused, as Kubernetes excuses them:
//                          - pods of a node whose instance was lost involuntarily (a spot
//                            reclaim, a stop, a termination or failure by the cloud): the world
//                            notes those losses (NoteInvoluntaryLoss), and an instance that went
//                            down before its NodeClaim was deleted went down by itself;
//                          - pods force-deleted at their NodeClaim's terminationGracePeriod;
//                          - pods removed by their own workload (a scale-down or a delete: the
//                            workload is gone or still has at least `replicas` live pods);
//                          - pods of nodes nodesmith is not taking away (a NodeClaim not being
//                            deleted, a Node without the karpenter.sh/disrupted taint, a
//                            running instance): someone else deleted them.
//                        A budget already below desiredHealthy for other reasons raises nothing
//                        until nodesmith itself takes one of its healthy pods.
//   OrphanInstance       every instance the cloud still runs (not terminated) is pointed at by a
//                        NodeClaim's status.providerID, is still being launched (the NodeClaim
//                        named by the instance exists and has no providerID yet), or lost its
//                        NodeClaim less than `orphan_grace` ago (the garbage collector's
//                        interval, plus its minimum age, plus the cloud's termination latency).
//   LostPods             every Deployment, ReplicaSet and StatefulSet not being deleted has
//                        `replicas` live pods (bound or pending) again within `replica_grace`
//                        of any change: a pod evicted or lost is re-created, never dropped.
//   Churn                consolidation does not remove what was launched under the same
//                        demand, nor decide twice about a node whose pods did not change
//                        (churn_checker.h).
// Each violation is reported once per episode (a budget per deleted pod, an instance once, a
// workload once per stretch of mismatch).
//
// Cost: the budget rule runs only when a bound, healthy pod guarded by a budget is deleted; the
// instance rule only when an instance or NodeClaim changed or a grace period ran out; the
// workload rule keeps per-workload pod counts up to date from the pod watch and compares them
// only when pods or workloads changed or a grace period ran out. Check() after every event of a
// 24-hour simulation is therefore cheap.
//
// Not thread-safe. REQUIRES: clock, cluster and cloud outlive the checker; Start() is called
// before the cluster changes in ways that should be checked.
#pragma once

#include <map>
#include <optional>
#include <set>
#include <string>
#include <tuple>
#include <vector>

#include "api/pod.h"
#include "cloud/sim/simulated_cloud.h"
#include "cluster/cluster_api.h"
#include "core/clock.h"
#include "core/duration.h"
#include "sim/churn_checker.h"

namespace nodesmith::sim {

struct InvariantViolation {
  core::Time at;
  std::string invariant;  // "PodDisruptionBudget", "OrphanInstance", "LostPods" or "Churn"
  std::string message;    // names the objects and the figures that broke the rule
};

struct InvariantOptions {
  // How long an instance may run on after its NodeClaim is gone (or without ever having one).
  core::Duration orphan_grace = std::chrono::minutes(3);
  // How long a replicated workload may have a number of live pods other than `replicas`.
  core::Duration replica_grace = std::chrono::seconds(5);
};

// The options that match the controllers nodesmith runs: orphan_grace from
// controllers::GarbageCollectionOptions (interval + min_age) and the cloud's termination latency.
InvariantOptions DefaultInvariantOptions(const cloud::sim::CloudTimings& timings);

class InvariantChecker {
 public:
  InvariantChecker(const core::Clock& clock, cluster::ClusterApi& cluster,
                   const cloud::sim::SimulatedCloud& cloud, InvariantOptions options);
  InvariantChecker(const InvariantChecker&) = delete;
  InvariantChecker& operator=(const InvariantChecker&) = delete;

  // Registers the watches and takes in what the cluster already holds.
  void Start();
  // The instance is lost at `at` through no doing of nodesmith (a spot reclaim at the end of its
  // warning, a stop, a termination or failure by the cloud); its pods are excused from budgets
  // from then on.
  void NoteInvoluntaryLoss(const std::string& provider_id, core::Time at);
  // The cloud reported a transition of the instance: it exists (the checker learns of instances
  // that no NodeClaim ever pointed at this way).
  void NoteInstance(const std::string& provider_id);
  // The disruption controller decided, or abandoned a decision (ChurnChecker).
  void NoteDisruptionDecision(const std::string& reason, const std::vector<std::string>& node_claims,
                              const std::vector<std::string>& nodes) {
    churn_.NoteDecision(reason, node_claims, nodes);
  }
  void NoteDisruptionAbandoned(const std::vector<std::string>& node_claims) {
    churn_.NoteAbandoned(node_claims);
  }
  // Checks the instance and workload rules as of Now(); the budget and churn rules are checked
  // as pods go and decisions come.
  void Check();

  const std::vector<InvariantViolation>& violations() const { return violations_; }

 private:
  // (kind, namespace, name) of a replicated workload.
  using WorkloadKey = std::tuple<std::string, std::string, std::string>;

  void OnPodEvent(const cluster::WatchEvent& e);
  void OnNodeClaimEvent(const cluster::WatchEvent& e);
  // The budget rule for one deleted pod.
  void JudgePodDeletion(const api::Pod& pod);
  // Why nodesmith is excused for the deletion of this bound pod, or "" when it is not.
  std::string Excuse(const api::Pod& pod) const;
  // The workload whose replica count the pod makes up, if any.
  std::optional<WorkloadKey> WorkloadOf(const api::Pod& pod) const;
  void CheckInstances();
  void CheckWorkloads();
  void Report(std::string invariant, std::string message);

  const core::Clock& clock_;
  cluster::ClusterApi& cluster_;
  const cloud::sim::SimulatedCloud& cloud_;
  InvariantOptions options_;

  std::vector<InvariantViolation> violations_;
  ChurnChecker churn_;

  // Budgets.
  std::map<std::string, std::string> node_provider_ids_;        // node name -> providerID
  std::map<std::string, core::Time> involuntary_losses_;        // providerID -> when lost

  // Instances.
  std::map<std::string, std::string> claim_provider_ids_;  // NodeClaim name -> providerID
  std::map<std::string, std::string> provider_claims_;     // providerID -> NodeClaim name
  std::set<std::string> live_instances_;                   // providerIDs not seen terminated
  std::map<std::string, core::Time> unclaimed_since_;      // providerID -> lost its NodeClaim
  std::set<std::string> reported_instances_;
  bool instances_dirty_ = false;
  std::optional<core::Time> instance_deadline_;  // the earliest orphan grace that runs out

  // Workloads.
  std::map<std::string, WorkloadKey> counted_pods_;  // pod uid -> the workload it counts for
  std::map<WorkloadKey, int> live_pods_;
  std::map<WorkloadKey, core::Time> mismatched_since_;
  std::set<WorkloadKey> reported_workloads_;  // reported in the current stretch of mismatch
  bool workloads_dirty_ = false;
  std::optional<core::Time> workload_deadline_;  // the earliest replica grace that runs out
};

}  // namespace nodesmith::sim
