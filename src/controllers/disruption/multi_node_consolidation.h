// MultiNodeConsolidation: replace several underutilised nodes by at most one cheaper node (or
// none), as Karpenter's multinodeconsolidation.go.
//
// It takes the candidates (highest savings ratio first, candidate_order.h) that the NodePools' Underutilized budgets
// allow, at most MethodOptions::multi_node_max_candidates of them, and binary-searches for the
// longest prefix of two or more that consolidates. A replacement must not be one of the
// candidates' own instance types at a price no lower than that candidate's: that would only
// move pods around (Karpenter's filterOutSameInstanceType). The rule sees every option the price
// filter keeps, before a launch narrows them to one capacity type, so a candidate's type that
// has no spot offering still bounds an on-demand -> spot replacement. One command at most.
#pragma once

#include <string>
#include <vector>

#include "controllers/disruption/consolidation.h"

namespace nodesmith::controllers {

class MultiNodeConsolidation : public Consolidation {
 public:
  // REQUIRES: `clock` and `simulator` outlive the method.
  MultiNodeConsolidation(const core::Clock& clock, SchedulingSimulator& simulator,
                         const MethodOptions& options)
      : Consolidation(clock, simulator, options) {}

  std::string Name() const override { return "multi-node"; }
  std::string ConsolidationType() const override { return "multi"; }
  core::Result<std::vector<Command>> ComputeCommands(
      const BudgetMapping& budgets, const std::vector<Candidate>& candidates) override;
  bool CutShort() const override { return cut_short_; }

 protected:
  // Below the cheapest candidate whose own instance type is among the options.
  double ReplacementCeiling(const solver::NewNodeClaim& replacement,
                            const std::vector<Candidate>& candidates) const override;

 private:
  bool cut_short_ = false;  // the last search ended with prefixes left to try
};

}  // namespace nodesmith::controllers
