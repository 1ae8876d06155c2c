#include "controllers/disruption/single_node_consolidation.h"

#include "controllers/disruption/candidate_order.h"

namespace nodesmith::controllers {

core::Result<std::vector<Command>> SingleNodeConsolidation::ComputeCommands(
    const BudgetMapping& budgets, const std::vector<Candidate>& candidates) {
  // One candidate per command: each only needs its pool's budget to allow one disruption.
  core::Status first_error = core::Status::Ok();
  for (const Candidate& candidate :
       WithinBudgets(budgets, BySavingsRatioInterleavingNodePools(candidates), /*limit=*/-1,
                     /*together=*/false)) {
    auto computed = ComputeConsolidation({candidate});
    if (!computed.ok()) {
      // One node's pods the solver cannot evaluate must not stop the others from being tried.
      if (first_error.ok()) first_error = computed.status();
      continue;
    }
    if (*computed) return std::vector<Command>{std::move(**computed)};
  }
  if (!first_error.ok()) return first_error;
  return std::vector<Command>{};
}

}  // namespace nodesmith::controllers
