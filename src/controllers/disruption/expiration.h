// Expiration: remove nodes that have lived past their NodeClaim's spec.expireAfter, as
// Karpenter v1's forceful expiration.
//
// A candidate qualifies when its NodeClaim's creationTimestamp + spec.expireAfter is at or
// before now (expireAfter Never: never). Expiration is forceful: it ignores what blocks graceful
// methods (do-not-disrupt pods, PDBs) and the NodePools' budgets; termination still honours
// PDBs up to the NodeClaim's terminationGracePeriod. One command deletes every expired
// candidate without replacements: their pods go pending and the provisioner launches capacity.
// NodeClaims that are not initialized or have no Node are not candidates and so never expire
// here.
#pragma once

#include <string>
#include <vector>

#include "api/nodeclaim.h"
#include "controllers/disruption/types.h"
#include "core/clock.h"

namespace nodesmith::controllers {

// Whether the NodeClaim has reached its expireAfter at `now`.
bool IsExpired(const api::NodeClaim& claim, core::Time now);

class Expiration : public Method {
 public:
  // REQUIRES: `clock` outlives the method.
  explicit Expiration(const core::Clock& clock) : clock_(clock) {}

  std::string Name() const override { return "expiration"; }
  bool ShouldDisrupt(const Candidate& candidate) const override;
  core::Result<std::vector<Command>> ComputeCommands(
      const BudgetMapping& budgets, const std::vector<Candidate>& candidates) override;
  std::string Reason() const override { return "Expired"; }
  std::string ConsolidationType() const override { return ""; }
  bool Forceful() const override { return true; }

 private:
  const core::Clock& clock_;
};

}  // namespace nodesmith::controllers
