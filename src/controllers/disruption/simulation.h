// SchedulingSimulator: "if these candidates went away, where would their pods go?" — the question
// every consolidation and drift decision asks, as Karpenter's SimulateScheduling.
//
// It snapshots the cluster once per disruption pass (lazily, on the first Simulate after Reset)
// into one solver snapshot, and, per question, takes the candidates' Nodes out of it, adds their
// reschedulable pods as pending, runs the provisioning solver over what is left, and puts the
// snapshot back as it was (no copy of the cluster per question: a pass may ask dozens). The rest
// of the cluster is: every other Ready, schedulable
// Node and in-flight NodeClaim is existing capacity; Nodes being deleted or carrying the
// karpenter.sh/disrupted taint are not (their pods are pending too, so the simulation does not
// hand out room they will need). Pods already pending take part, so room they need is not
// promised twice, and every new NodeClaim of the solve is a replacement, also one that holds
// only pending pods: the candidates' pods fit only because it is assumed to come. A candidate's
// pod placed on capacity that is not initialized yet counts as unschedulable (that node may
// never come up), as Karpenter's SimulateScheduling.
//
// Pure over the snapshot: no cluster writes, no clock. Not thread-safe.
#pragma once

#include <cstdint>
#include <optional>
#include <string>
#include <vector>

#include "api/object_set.h"
#include "cloud/cloud_provider.h"
#include "cluster/cluster_api.h"
#include "controllers/disruption/types.h"
#include "core/status.h"
#include "scheduling/well_known_labels.h"
#include "solver/results.h"
#include "solver/scheduler.h"
#include "solver/snapshot.h"

namespace nodesmith::controllers {

struct SimulationResult {
  // The candidates' reschedulable pods ("namespace/name"), all of which need a new home.
  std::vector<std::string> candidate_pods;
  // Every new NodeClaim of the solve: what would have to be launched.
  std::vector<solver::NewNodeClaim> replacements;
  // Candidate pods the solver could not place, or placed only on capacity not yet initialized,
  // with the reasons. Non-empty: the candidates cannot go.
  std::vector<solver::UnschedulablePod> unschedulable;
  // The whole solve, for callers that need more (placements on existing nodes, prices).
  solver::Results results;

  // How many of `unschedulable` are there only because the capacity they were placed on is not
  // initialized yet.
  int waiting_for_capacity = 0;

  bool AllCandidatePodsScheduled() const { return unschedulable.empty(); }
  // The candidates could go once capacity coming up is initialized: every pod was placed, some
  // on capacity still coming up.
  bool WaitingForCapacity() const {
    return !unschedulable.empty() && static_cast<size_t>(waiting_for_capacity) == unschedulable.size();
  }
  // Sum of the replacements' launch prices per hour.
  double ReplacementPricePerHour() const;
};

struct SimulatorOptions {
  // Label keys the solver treats as well-known; empty: Karpenter's default set.
  scheduling::LabelKeySet well_known_labels;
  solver::SchedulerOptions scheduler{.compute_lower_bound = false};
};

class SchedulingSimulator {
 public:
  // REQUIRES: `cluster` and `cloud` outlive the simulator.
  SchedulingSimulator(const cluster::ClusterApi& cluster, const cloud::CloudProvider& cloud,
                      SimulatorOptions options = {});

  // Forgets the snapshot: the next Simulate reads the cluster again. The disruption controller
  // calls it at the start of every pass, with the pass's share of solver work (0: no bound).
  void Reset(int64_t work_limit = 0);

  // Reschedules the candidates' pods as described above. Errors only when the solver cannot
  // evaluate the inputs (malformed selectors) or instance types cannot be listed.
  core::Result<SimulationResult> Simulate(const std::vector<Candidate>& candidates);

  // How many solves ran since construction (for benchmarks and tests).
  int solves() const { return solves_; }

  // The solver work since Reset: per solve, the pods it places plus the nodes and NodeClaims it
  // may place them on — what a solve's time grows with, counted rather than timed so a pass
  // decides the same in the simulator, in tests and in a cluster.
  int64_t work() const { return work_; }
  // Whether this pass has had its share of work. A method asks no more questions once it has
  // (after its first, so every pass moves on) and leaves the rest to the next pass: the
  // controllers share one runtime thread, and a pass over thousands of pending pods must not
  // keep launches and registrations waiting for minutes.
  bool Spent() const { return work_limit_ > 0 && work_ >= work_limit_; }

  // The instance types of this pass (every NodePool's, by name); empty until the first Simulate
  // after Reset. Consolidation prices a replacement's instance-type options with them.
  const cloud::InstanceTypes& instance_types() const { return instance_types_; }

 private:
  core::Status EnsureSnapshot();

  const cluster::ClusterApi& cluster_;
  const cloud::CloudProvider& cloud_;
  SimulatorOptions options_;
  // The cluster at this pass, capacity that is going away removed; Simulate edits it and
  // restores it before returning.
  std::optional<solver::Snapshot> base_;
  cloud::InstanceTypes instance_types_;
  int solves_ = 0;
  int64_t work_ = 0;
  int64_t work_limit_ = 0;
};

}  // namespace nodesmith::controllers
