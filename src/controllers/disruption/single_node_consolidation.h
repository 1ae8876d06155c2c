// SingleNodeConsolidation: delete one underutilised node, or replace it by one cheaper node, as
// Karpenter's singlenodeconsolidation.go. Candidates are tried highest savings ratio first, the
// NodePools taking turns (candidate_order.h), each only if its NodePool's Underutilized budget
// allows; the first that consolidates gives the command.
//
// Where Karpenter gives up after three minutes and starts again from the first candidate, this
// stops when the pass's share of simulation work is spent and the next pass goes on with the
// candidates not yet tried; a round ends with a command or when every candidate has been tried.
#pragma once

#include <set>
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
  bool Unfinished() const override { return unfinished_; }

 private:
  // Names of the candidates this round has tried, and the first error one of them gave.
  std::set<std::string> tried_;
  core::Status round_error_ = core::Status::Ok();
  bool unfinished_ = false;
};

}  // namespace nodesmith::controllers
