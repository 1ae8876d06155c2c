// LowerBound: a proven lower bound on what new capacity for a set of pods must cost.
//
// The problem, as a linear program (a relaxation of every real plan):
//   bins b: a new node of some instance type from some NodePool ("open" bins, any fractional
//           number x_b >= 0 of them at price_b each), or existing capacity ("fixed" bins: one,
//           already paid for, with what it has left);
//   classes c: count_c identical pods, each compatible with a set of bins;
//   y_{c,b} >= 0 pods of class c in bin b;  sum_b y_{c,b} = count_c;
//   for every resource r: sum_c req_{c,r} y_{c,b} <= cap_{b,r} x_b   (open)
//                         sum_c req_{c,r} y_{c,b} <= cap_{b,r}       (fixed);
//   minimise sum_b price_b x_b.
// Every real plan that places the same pods is a feasible point (x integral, y integral), so
// the LP optimum is <= its cost, as long as the inputs only ever over-approximate: a bin's
// capacity and compatibility may be larger, its price smaller, than in reality (callers ignore
// topology, host ports and NodePool limits, and take the cheapest offering of a type).
//
// Why the number returned is proven, not just computed: the LP is solved with COIN-OR CLP in
// floating point, then its row duals are turned into a certificate by weak duality. For any
// w_{b,r} >= 0 with sum_r cap_{b,r} w_{b,r} <= price_b on every open bin, and
// u_c = min over c's bins of sum_r req_{c,r} w_{b,r}, the Lagrangian gives
//   cost(any feasible plan) >= sum_c count_c u_c - sum_{fixed b} sum_r cap_{b,r} w_{b,r}.
// The solver's duals are clamped to >= 0 and each open bin's w is scaled down until its
// price row holds (with a 1e-12 relative margin covering the rounding of that sum), so the
// inequality holds for the w actually used whatever the LP solver's tolerances were. The
// bound is evaluated in long double; it is never negative.
//
// Two steps keep it proven and make it tighter: a class only keeps the bins one of its pods fits
// in alone (no real plan puts it anywhere else), and above 2,000 class x bin columns the full LP
// gives way to a pooled one: open bins grouped by which resources they offer at all (GPU nodes
// apart from CPU-only ones), one price per resource unit in each group. Pooling is a relaxation
// of the full LP, certified the same way (each bin takes its group's w).
//
// Where pods are large next to the nodes the fluid LP is weak (it fills a node to the last
// milli-core; a node holding two 28 GiB pods in 64 GiB wastes 8). So, for new capacity only
// (no fixed bins), up to 64 pod classes, 512 bins and 4,000 (class, bin) pairs, LowerBound also
// solves the configuration LP: buy patterns (a bin and the whole pods it holds) to cover every
// class, by column generation with an exact branch-and-bound knapsack per bin as the pricing
// step, starting from the caller's seeds (the plan's own nodes) and from the fluid LP's prices.
// Its certificate is Farley's: for duals u >= 0 and, per bin, K_b >= the value sum_c a_c u_c of
// every pattern that fits it (the knapsack's best, or the bound of a search cut short by its
// work limit),
//   cost(any plan) >= min_b (price_b / K_b) * sum_c count_c u_c.
// The larger of the two certified bounds is returned.
#pragma once

#include <cstdint>
#include <utility>
#include <vector>

namespace nodesmith::solver {

struct LowerBoundBin {
  double price = 0;              // per node; ignored for fixed bins
  bool fixed = false;            // existing capacity (exactly one, already paid)
  std::vector<double> capacity;  // per resource, same units as the classes' requests
};

struct LowerBoundClass {
  int64_t count = 0;
  std::vector<double> request;  // per resource
  std::vector<int> bins;        // indices of compatible bins
};

// Whole pods per class on one bin, e.g. a node of the plan being bounded.
struct LowerBoundPattern {
  int bin = 0;
  std::vector<std::pair<int, int64_t>> counts;  // (class, pods)
};

struct LowerBoundProblem {
  std::vector<LowerBoundBin> bins;
  std::vector<LowerBoundClass> classes;
  // Where column generation for the configuration LP starts (typically the plan's own nodes):
  // the master then starts at most at the plan's price instead of far above it. They only steer
  // the search; the certificate holds whatever they are (patterns that do not fit are skipped).
  std::vector<LowerBoundPattern> seeds;
};

// The certified bound (0 when there is nothing to place or the LP cannot be solved).
double LowerBound(const LowerBoundProblem& problem);

// What the pooled bound (bins grouped by the resources they offer, one price per resource unit
// in each group; the bound LowerBound falls back to on large problems) charges one pod of each
// class: the LP's shadow price of the pod, in problem.classes order. A plan pays at least the
// sum over its pods, and a node whose pods' prices add up to its own price is as efficient as
// the LP's. Empty when the LP cannot be solved.
std::vector<double> ClassPrices(const LowerBoundProblem& problem);

}  // namespace nodesmith::solver
