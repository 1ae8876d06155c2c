// Repack: a cheaper arrangement of interchangeable pods over the new nodes of one NodePool.
//
// The scheduler places pods the way Karpenter does (each pod on the emptiest NodeClaim that can
// still take it, a NodeClaim keeping every instance type that fits what it holds, the cheapest
// of those launched at the end). That decides *which pods share a node* without asking what the
// node will cost, so the launch can be a type much larger or pricier per resource than needed.
// Repack re-decides it for pods nothing else constrains: it chooses each node's type by how much
// of the pods' value it holds per dollar, where a pod's value is given (the scheduler passes the
// LP lower bound's shadow price, so a node worth its price is as efficient as the LP allows) or
// else what its requests would cost on the cheapest type per unit of its scarcest resource (its
// "fractional price").
//
// Greedy, in two phases:
//   1. Pinned bins (NodeClaims that keep pods Repack may not move) are taken in order; for each,
//      every type that holds its pinned pods is tried, topped up first-fit-decreasing with
//      movable pods, and the type with the highest value per dollar kept.
//   2. The remaining movable pods open new bins the same way; a chosen pattern (type plus pod
//      counts) is repeated as long as enough pods of every class in it remain.
// Finally each bin is bought as the cheapest type that holds what ended up in it.
//
// The greedy runs several times, each pass with the pods' values corrected by what they paid in
// the last (sequential value correction): at least 6 passes, at most 20, further passes only
// while the fills so far looked at fewer than 40 million classes (about a third of a second).
// Passes differ, and every node any of them built is a packing that fits, so the best plan is
// finally sought among all of them: an LP over those patterns (plus a few priced in by its
// duals) covering every pod, its whole copies, and the greedy for what is left. On the OpenB
// trace this pooling is what brings the plan within 3% of the lower bound.
//
// Requirement sets: each type belongs to one set (an instance type under one set of NodeClaim
// requirements, e.g. a NodePool narrowed to one zone, or the NodePool as it is), and each class
// lists the sets it may go to. A pinned bin keeps its set: it is only ever bought as a type of
// that set. A new bin may take any type, and holds only classes allowed in that type's set; at
// the end it is bought as the cheapest type, of any set all its pods may go to, that holds it.
// Dominance among types is judged within a set; a new bin skips a type when another set offers
// the same capacity for no more money and may hold every pod still to place that the type's own
// set may.
//
// Pure, deterministic, no requirements or topology: the caller groups pods, NodeClaims and types
// so that any type of a set holds any pod allowed in it as far as requirements, taints, ports and
// topology go.
#pragma once

#include <cstdint>
#include <vector>

#include "solver/resource_vector.h"

namespace nodesmith::solver {

struct RepackType {
  ResourceVector capacity;  // what pods may use (allocatable minus DaemonSet overhead)
  double price = 0;
  int set = 0;              // requirement set the type is offered under
};

// Identical pods.
struct RepackClass {
  ResourceVector request;
  int64_t count = 0;
  // What one pod is worth when choosing types, e.g. its LP shadow price (ClassPrices in
  // solver/lower_bound.h); negative: its fractional price. The fractional price, a thousandth
  // of it, is added either way so pods the LP prices at zero still count.
  double value = -1;
  // Requirement sets whose types may hold these pods; empty: every set.
  std::vector<int> sets;
};

struct RepackBin {
  int type = -1;                // index into the types; -1 when nothing holds the bin
  std::vector<int64_t> counts;  // movable pods per class placed in this bin
};

struct RepackPlan {
  std::vector<RepackBin> pinned;    // one per pinned bin, same order
  std::vector<RepackBin> new_bins;  // bins holding movable pods only
  double price = 0;                 // total, every bin at its cheapest holding type
  bool ok = false;                  // false when some pod or pinned bin fits no type
};

// `classes` are the movable pods; `pinned[k]` lists the pods bin k must keep (their `sets` are
// not read) and `pinned_sets[k]` its requirement set (empty: set 0 for every pinned bin).
// `lower_bound`, when given, is a proven lower bound on the price of any packing of all the pods
// (e.g. the sum of their ClassPrices): once a plan costs no more, nothing cheaper exists and the
// remaining passes are skipped.
RepackPlan Repack(const std::vector<RepackType>& types, const std::vector<RepackClass>& classes,
                  const std::vector<std::vector<RepackClass>>& pinned,
                  const std::vector<int>& pinned_sets = {}, double lower_bound = 0);

}  // namespace nodesmith::solver
