// SingleNodeConsolidation: delete one underutilised node, or replace it by one cheaper node, as
// Karpenter's singlenodeconsolidation.go. Candidates are tried highest savings ratio first, the
// NodePools taking turns (candidate_order.h), each only if its NodePool's Underutilized budget
// allows; the first that consolidates gives the command.
#pragma once

#include <string>
#include <vector>

#include "controllers/disruption/consolidation.h"

namespace nodesmith::controllers {

class SingleNodeConsolidation : public Consolidation {
 public:
  // REQUIRES: `clock` and `simulator` outlive the method.
  SingleNodeConsolidation(const core::Clock& clock, SchedulingSimulator& simulator,
                          const MethodOptions& options)
      : Consolidation(clock, simulator, options) {}

  std::string Name() const override { return "single-node"; }
  std::string ConsolidationType() const override { return "single"; }
  core::Result<std::vector<Command>> ComputeCommands(
      const BudgetMapping& budgets, const std::vector<Candidate>& candidates) override;
};

}  // namespace nodesmith::controllers
