#include "controllers/disruption/drift.h"

#include <map>
#include <utility>

#include "controllers/disruption/candidate_order.h"

namespace nodesmith::controllers {

bool Drift::ShouldDisrupt(const Candidate& c) const {
  return c.blocked.empty() && c.node_claim.IsTrue(kConditionDrifted);
}

core::Result<std::vector<Command>> Drift::ComputeCommands(
    const BudgetMapping& budgets, const std::vector<Candidate>& candidates) {
  std::map<std::string, int> remaining(budgets.begin(), budgets.end());
  auto take_budget = [&](const Candidate& c) {
    auto budget = remaining.find(c.node_pool_name());
    if (budget == remaining.end() || budget->second <= 0) return false;
    --budget->second;
    return true;
  };

  const std::vector<Candidate> ordered = ByDriftTime(candidates, kConditionDrifted);
  // Empty drifted nodes first and together: nothing has to move, so they cost no simulation,
  // and if budgets are tight they should not wait behind nodes that need replacements.
  Command empty{.method = Name(), .reason = Reason()};
  for (const Candidate& c : ordered) {
    if (!c.reschedulable_pods.empty() || !take_budget(c)) continue;
    empty.savings_per_hour += c.price_per_hour;
    empty.candidates.push_back(c);
  }
  if (!empty.empty()) return std::vector<Command>{std::move(empty)};

  // Then one node at a time, the earliest drifted first, replaced by whatever its pods need.
  for (const Candidate& c : ordered) {
    if (c.reschedulable_pods.empty() || !take_budget(c)) continue;
    auto simulation = simulator_.Simulate({c});
    if (!simulation.ok()) return simulation.status();
    if (!simulation->AllCandidatePodsScheduled()) continue;  // try the next one
    Command cmd{.method = Name(), .reason = Reason()};
    cmd.candidates.push_back(c);
    cmd.savings_per_hour = c.price_per_hour - simulation->ReplacementPricePerHour();
    cmd.replacements = std::move(simulation->replacements);
    return std::vector<Command>{std::move(cmd)};
  }
  return std::vector<Command>{};
}

}  // namespace nodesmith::controllers
