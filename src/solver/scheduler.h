// Scheduler: the provisioning simulation, as Karpenter's scheduler.go, made fast.
//
// Given a Snapshot it decides, for every pending pod, where it goes: an existing Node with room
// (Nodes by name), else an in-flight NodeClaim, else a NodeClaim created earlier in this solve
// (fewest pods first, as Karpenter), else a new NodeClaim from the first NodePool (highest
// weight, then name) that can take it. Pods are tried in Queue order; a pod that fails is
// relaxed (Preferences) and retried after the others until a full cycle makes no progress.
// Each new NodeClaim keeps the instance types that still fit everything placed on it; at the
// end they are ordered by price, cut to 60 (keeping minValues satisfiable) and the cheapest
// compatible offering becomes the launch. Before that, pods only resources constrain may be
// re-packed onto cheaper NodeClaims (SchedulerOptions::repack, solver/repack.h).
//
// How it stays fast: resources are dense int64 vectors (milli-units); pods with the same
// scheduling-relevant spec share a class, and a class remembers, per existing node, per new
// NodeClaim and per NodePool, failures that can never turn into successes during the solve
// (capacity only shrinks, requirements only narrow, limits only fall), so retries skip them
// with one byte test. A NodeClaim whose best remaining capacity cannot hold a pod is skipped
// before any requirement work. Pods that topology may constrain get no cached failures.
//
// Pure: no clock, no I/O, no threads; same Snapshot and options give the same Results.
//
// Topology (solver/topology.h) is consulted only for pods it may constrain
// (Topology::MayConstrain) and told only about placements it counts (Topology::Counts); it is
// not built at all when no pod declares spread, affinity or anti-affinity.
// NEEDS from topology (performance, not correctness): AddRequirements is called once per
// (pod, candidate) for constrained pods and dominates solves with many spread pods; a rejection
// path that builds no message (or a bool pre-check) would make those solves several times faster.
#pragma once

#include <functional>

#include "core/status.h"
#include "solver/results.h"
#include "solver/snapshot.h"

namespace nodesmith::solver {

struct SchedulerOptions {
  // --preference-policy Ignore: preferences are stripped up front instead of relaxed one by one.
  bool ignore_preferences = false;
  // --min-values-policy BestEffort: a minValues requirement the options cannot meet is lowered
  // to what they offer instead of failing the NodeClaim.
  bool min_values_best_effort = false;
  // Compute Results::lower_bound_per_hour: a proven lower bound (lower_bound.h) on the launch
  // prices of any plan that places the same pods this solve placed, with existing capacity
  // free and topology, host ports and NodePool limits relaxed (each only lowers the bound).
  bool compute_lower_bound = true;
  // After placement, re-pack pods that only resources constrain onto cheaper NodeClaims
  // (solver/repack.h); kept only when the plan gets cheaper. Off: Karpenter's packing as is.
  bool repack = true;
  // Called once the decision is made, before the lower bound is computed: lets a caller time
  // the two apart (the solver reads no clock).
  std::function<void()> on_decided;
};

// Runs one solve. Fails only on inputs topology cannot evaluate (malformed selectors).
core::Result<Results> Solve(const Snapshot& snapshot, const SchedulerOptions& options);

}  // namespace nodesmith::solver
