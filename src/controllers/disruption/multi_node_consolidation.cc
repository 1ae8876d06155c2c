#include "controllers/disruption/multi_node_consolidation.h"

#include <algorithm>
#include <limits>
#include <map>

#include "controllers/disruption/candidate_order.h"

namespace nodesmith::controllers {
namespace {

// The price a replacement must stay below when it could be one of the candidates' own types:
// the cheapest candidate of any type among the options. Replacing N nodes by one node of a type
// one of them already has is deleting the others with extra pod churn (Karpenter's
// filterOutSameType). +infinity when no option is a candidate's type.
double SameTypeCeiling(const solver::NewNodeClaim& replacement,
                       const std::vector<Candidate>& candidates) {
  std::map<std::string, double> cheapest_by_type;
  for (const Candidate& c : candidates) {
    auto [it, inserted] = cheapest_by_type.emplace(c.instance_type, c.price_per_hour);
    if (!inserted) it->second = std::min(it->second, c.price_per_hour);
  }
  double ceiling = std::numeric_limits<double>::infinity();
  for (const std::string& option : replacement.instance_type_options) {
    auto it = cheapest_by_type.find(option);
    if (it != cheapest_by_type.end()) ceiling = std::min(ceiling, it->second);
  }
  return ceiling;
}

}  // namespace

double MultiNodeConsolidation::ReplacementCeiling(const solver::NewNodeClaim& replacement,
                                                  const std::vector<Candidate>& candidates) const {
  return SameTypeCeiling(replacement, candidates);
}

core::Result<std::vector<Command>> MultiNodeConsolidation::ComputeCommands(
    const BudgetMapping& budgets, const std::vector<Candidate>& candidates) {
  const std::vector<Candidate> eligible =
      WithinBudgets(budgets, BySavingsRatio(candidates), std::max(options_.multi_node_max_candidates, 0),
                    /*together=*/true);
  // Single nodes are single-node consolidation's; it finds every one-node option.
  cut_short_ = false;
  if (eligible.size() < 2) return std::vector<Command>{};

  // Binary search for the longest prefix of two or more candidates that consolidates: candidates
  // come highest savings ratio first, the order in which they are worth most to remove.
  // A pass whose share of simulation work is spent keeps the best command found so far, as
  // Karpenter's multi-node consolidation does at its timeout.
  std::optional<Command> best;
  size_t lo = 2, hi = eligible.size();
  bool asked = false;
  while (lo <= hi && !(asked && simulator_.Spent())) {
    asked = true;
    const size_t mid = lo + (hi - lo) / 2;
    const std::vector<Candidate> prefix(eligible.begin(), eligible.begin() + mid);
    auto computed = ComputeConsolidation(prefix);
    if (!computed.ok()) return computed.status();
    std::optional<Command>& cmd = *computed;
    if (cmd) {
      best = std::move(cmd);
      lo = mid + 1;
    } else {
      hi = mid - 1;
    }
  }
  cut_short_ = lo <= hi;
  if (!best) return std::vector<Command>{};
  return std::vector<Command>{std::move(*best)};
}

}  // namespace nodesmith::controllers
