#include "controllers/disruption/single_node_consolidation.h"

#include <utility>

#include "controllers/disruption/candidate_order.h"

namespace nodesmith::controllers {

core::Result<std::vector<Command>> SingleNodeConsolidation::ComputeCommands(
    const BudgetMapping& budgets, const std::vector<Candidate>& candidates) {
  // One candidate per command: each only needs its pool's budget to allow one disruption.
  unfinished_ = false;
  bool asked = false;
  for (const Candidate& candidate :
       WithinBudgets(budgets, BySavingsRatioInterleavingNodePools(candidates), /*limit=*/-1,
                     /*together=*/false)) {
    if (tried_.count(candidate.name())) continue;
    if (asked && simulator_.Spent()) {
      unfinished_ = true;
      return std::vector<Command>{};
    }
    asked = true;
    tried_.insert(candidate.name());
    auto computed = ComputeConsolidation({candidate});
    if (!computed.ok()) {
      // One node's pods the solver cannot evaluate must not stop the others from being tried.
      if (round_error_.ok()) round_error_ = computed.status();
      continue;
    }
    if (*computed) {
      tried_.clear();
      round_error_ = core::Status::Ok();
      return std::vector<Command>{std::move(**computed)};
    }
  }
  tried_.clear();
  core::Status error = std::exchange(round_error_, core::Status::Ok());
  if (!error.ok()) return error;
  return std::vector<Command>{};
}

}  // namespace nodesmith::controllers
