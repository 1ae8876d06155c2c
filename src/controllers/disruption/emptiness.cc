#include "controllers/disruption/emptiness.h"

#include <map>

#include "controllers/disruption/candidate_order.h"

namespace nodesmith::controllers {

bool Emptiness::ShouldDisrupt(const Candidate& c) const {
  const api::Disruption& d = c.node_pool.disruption;
  if (d.consolidation_policy != "WhenEmpty" && d.consolidation_policy != "WhenEmptyOrUnderutilized") {
    return false;
  }
  if (d.consolidate_after.never()) return false;
  if (clock_.Now() < c.last_activity + *d.consolidate_after.value) return false;
  return c.reschedulable_pods.empty();
}

core::Result<std::vector<Command>> Emptiness::ComputeCommands(
    const BudgetMapping& budgets, const std::vector<Candidate>& candidates) {
  std::map<std::string, int> remaining(budgets.begin(), budgets.end());
  Command cmd;
  cmd.method = Name();
  cmd.reason = Reason();
  for (const Candidate& c : BySavingsRatio(candidates)) {
    if (!c.reschedulable_pods.empty()) continue;
    auto budget = remaining.find(c.node_pool_name());
    if (budget == remaining.end() || budget->second <= 0) continue;
    --budget->second;
    cmd.savings_per_hour += c.price_per_hour;
    cmd.candidates.push_back(c);
  }
  if (cmd.empty()) return std::vector<Command>{};
  return std::vector<Command>{std::move(cmd)};
}

}  // namespace nodesmith::controllers
