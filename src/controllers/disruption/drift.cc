#include "controllers/disruption/drift.h"

#include <algorithm>
#include <map>
#include <set>
#include <utility>

#include "controllers/disruption/candidate_order.h"

namespace nodesmith::controllers {

bool Drift::ShouldDisrupt(const Candidate& c) const {
  return c.blocked.empty() && c.node_claim.IsTrue(kConditionDrifted);
}

core::Result<std::vector<Command>> Drift::ComputeCommands(
    const BudgetMapping& budgets, const std::vector<Candidate>& candidates) {
  waiting_for_capacity_ = false;
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
    if (!simulation->AllCandidatePodsScheduled()) {  // try the next one
      waiting_for_capacity_ = waiting_for_capacity_ || simulation->WaitingForCapacity();
      continue;
    }
    // A NodeClaim of the simulation holding none of the candidate's pods is for pods that were
    // pending already: the provisioner launches for those, and buying it here as well would
    // launch it twice (and hold the command until a node nobody drained for comes up).
    const std::set<std::string> moving(simulation->candidate_pods.begin(),
                                       simulation->candidate_pods.end());
    std::erase_if(simulation->replacements, [&](const solver::NewNodeClaim& r) {
      return std::none_of(r.pods.begin(), r.pods.end(),
                          [&](const std::string& pod) { return moving.count(pod) > 0; });
    });
    Command cmd{.method = Name(), .reason = Reason()};
    cmd.candidates.push_back(c);
    cmd.savings_per_hour = c.price_per_hour - simulation->ReplacementPricePerHour();
    cmd.replacements = std::move(simulation->replacements);
    return std::vector<Command>{std::move(cmd)};
  }
  return std::vector<Command>{};
}

}  // namespace nodesmith::controllers
