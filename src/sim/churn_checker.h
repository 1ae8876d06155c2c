// ChurnChecker: the simulator's rule against consolidation churn, part of the invariants
// (invariant_checker.h) under the name "Churn". Consolidation that removes what was just
// launched, or that keeps deciding about the same node, costs pods restarts and money and saves
// nothing: with demand unchanged, a good decision stays good.
//
//   launched then consolidated  a NodeClaim launched while the cluster's demand stayed as it is
//                               now is never removed by consolidation (reason Underutilized or
//                               Empty): the launch, or the removal, was a mistake. Demand changes
//                               when a replicated workload is created, deleted or rescaled, or a
//                               pod of no replicated workload (a Job's, a bare pod) comes or goes.
//   decided twice               a NodeClaim is in at most one consolidation decision while the
//                               pods bound to its node stay the same; a decision that was
//                               abandoned (its replacement never came up) does not count.
// NodeClaims that existed before Start() were not launched under watch and are judged by the
// second rule only.
//
// Not thread-safe. REQUIRES: clock and cluster outlive the checker.
#pragma once

#include <functional>
#include <map>
#include <set>
#include <string>
#include <vector>

#include "cluster/cluster_api.h"
#include "core/clock.h"

namespace nodesmith::sim {

inline constexpr const char* kChurnInvariant = "Churn";

class ChurnChecker {
 public:
  using Reporter = std::function<void(std::string invariant, std::string message)>;

  ChurnChecker(const core::Clock& clock, cluster::ClusterApi& cluster, Reporter report);
  ChurnChecker(const ChurnChecker&) = delete;
  ChurnChecker& operator=(const ChurnChecker&) = delete;

  // Registers the watches and takes in the workloads and pods the cluster already holds.
  void Start();
  // The disruption controller decided to remove these NodeClaims (with their nodes, in the same
  // order) for `reason` ("Underutilized", "Empty", "Drifted", ...).
  void NoteDecision(const std::string& reason, const std::vector<std::string>& node_claims,
                    const std::vector<std::string>& nodes);
  // A decision about these NodeClaims was abandoned: the nodes stay.
  void NoteAbandoned(const std::vector<std::string>& node_claims);

 private:
  void OnPodEvent(const cluster::WatchEvent& e);
  void OnWorkloadEvent(const cluster::WatchEvent& e);

  const core::Clock& clock_;
  cluster::ClusterApi& cluster_;
  Reporter report_;

  core::Time demand_changed_at_;
  std::map<std::string, int> replicas_;                 // "kind/namespace/name" -> spec.replicas
  std::set<std::string> bare_pods_;                     // live pods of no replicated workload
  std::map<std::string, std::string> pod_nodes_;        // pod uid -> node it is bound to
  std::map<std::string, core::Time> pods_changed_at_;   // node -> when its pods last changed
  std::map<std::string, core::Time> launched_at_;       // NodeClaim -> when it was created
  std::map<std::string, core::Time> decided_at_;        // NodeClaim -> its last consolidation decision
};

}  // namespace nodesmith::sim
