// Emptiness: remove nodes that run nothing that needs a home, as Karpenter's emptiness method.
//
// A candidate qualifies when its NodePool's consolidationPolicy is WhenEmpty or
// WhenEmptyOrUnderutilized, consolidateAfter is not Never and has passed since the node's last
// pod event (else its initialization), and it has no reschedulable pods (DaemonSet, static and
// finished pods do not count). One command deletes every qualifying candidate the NodePools'
// budgets for reason Empty allow, the most expensive first (candidate_order.h).
#pragma once

#include <string>
#include <vector>

#include "controllers/disruption/types.h"
#include "core/clock.h"

namespace nodesmith::controllers {

class Emptiness : public Method {
 public:
  // REQUIRES: `clock` outlives the method.
  explicit Emptiness(const core::Clock& clock) : clock_(clock) {}

  std::string Name() const override { return "emptiness"; }
  bool ShouldDisrupt(const Candidate& candidate) const override;
  core::Result<std::vector<Command>> ComputeCommands(
      const BudgetMapping& budgets, const std::vector<Candidate>& candidates) override;
  std::string Reason() const override { return "Empty"; }
  std::string ConsolidationType() const override { return "empty"; }

 private:
  const core::Clock& clock_;
};

}  // namespace nodesmith::controllers
