// Drift: replace nodes that no longer match what their NodePool (or the cloud) would launch now,
// as Karpenter v1's drift method.
//
// A candidate qualifies when its NodeClaim carries Drifted=True (set by the NodeClaim drift
// detection controller, see controllers/nodeclaim/drift_detection.h) and nothing blocks it.
// Drifted candidates without reschedulable pods are all deleted by one command, as far as the
// NodePools' budgets for reason Drifted allow. Otherwise the command takes one candidate: the
// first, earliest Drifted transition first and within budget, whose pods all find a home in the
// scheduling simulation; it launches the simulation's replacements (any number of them, unlike
// consolidation) before deleting the candidate. NodeClaims the simulation opens only for pods
// that were pending already are left to the provisioner, not launched by the command. A
// candidate whose pods would land on capacity still coming up (usually the replacement of the
// previous command) waits for it, as in Karpenter; WaitingForCapacity() tells the controller to
// look again within a second rather than a poll later. Savings are the candidate's price minus the
// replacements' and may be negative: drift is not about cost.
#pragma once

#include <string>
#include <vector>

#include "controllers/disruption/simulation.h"
#include "controllers/disruption/types.h"
#include "controllers/nodeclaim/drift_detection.h"
#include "core/clock.h"

namespace nodesmith::controllers {

class Drift : public Method {
 public:
  // REQUIRES: `simulator` outlives the method. Drift needs no clock (the Drifted condition says
  // all there is to know); the parameter keeps the methods' constructors alike.
  Drift(const core::Clock& /*clock*/, SchedulingSimulator& simulator) : simulator_(simulator) {}

  std::string Name() const override { return "drift"; }
  bool ShouldDisrupt(const Candidate& candidate) const override;
  core::Result<std::vector<Command>> ComputeCommands(
      const BudgetMapping& budgets, const std::vector<Candidate>& candidates) override;
  std::string Reason() const override { return "Drifted"; }
  std::string ConsolidationType() const override { return ""; }
  bool WaitingForCapacity() const override { return waiting_for_capacity_; }

 private:
  SchedulingSimulator& simulator_;
  bool waiting_for_capacity_ = false;  // of the last ComputeCommands
};

}  // namespace nodesmith::controllers
