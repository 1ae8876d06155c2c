#include "controllers/disruption/expiration.h"

namespace nodesmith::controllers {

bool IsExpired(const api::NodeClaim& claim, core::Time now) {
  const core::NillableDuration& expire_after = claim.spec.expire_after;
  if (expire_after.never() || !claim.metadata.creation_timestamp) return false;
  return *claim.metadata.creation_timestamp + *expire_after.value <= now;
}

bool Expiration::ShouldDisrupt(const Candidate& c) const {
  // Forceful: what blocks graceful methods (c.blocked) does not matter here.
  return IsExpired(c.node_claim, clock_.Now());
}

core::Result<std::vector<Command>> Expiration::ComputeCommands(
    const BudgetMapping& /*budgets: expiration is not bound by them*/,
    const std::vector<Candidate>& candidates) {
  Command cmd{.method = Name(), .reason = Reason()};
  const core::Time now = clock_.Now();
  for (const Candidate& c : candidates) {
    if (!IsExpired(c.node_claim, now)) continue;
    cmd.savings_per_hour += c.price_per_hour;
    cmd.candidates.push_back(c);
  }
  if (cmd.empty()) return std::vector<Command>{};
  return std::vector<Command>{std::move(cmd)};
}

}  // namespace nodesmith::controllers
