// Consolidation: what multi-node and single-node consolidation share, as Karpenter's
// consolidation.go. A candidate qualifies when it is not blocked, its NodePool consolidates
// WhenEmptyOrUnderutilized, consolidateAfter is not Never and has passed since the node's last
// activity, and the cloud still prices its instance type.
//
// ComputeConsolidation asks the SchedulingSimulator where the candidates' pods would go and turns
// the answer into at most one command: delete the candidates when everything fits on the rest of
// the cluster, replace them by one cheaper node when it does not, nothing otherwise. A
// replacement keeps only the instance types whose cheapest compatible offering costs less than
// the candidates together; spot-to-spot replacement needs the SpotToSpotConsolidation gate and,
// for a single node, at least 15 cheaper types (the 15 cheapest are kept, so a replacement is
// never one interruption-prone type).
#pragma once

#include <optional>
#include <string>
#include <vector>

#include "cloud/instance_type.h"
#include "controllers/disruption/simulation.h"
#include "controllers/disruption/types.h"
#include "core/clock.h"
#include "scheduling/requirements.h"
#include "solver/results.h"

namespace nodesmith::controllers {

// Spot-to-spot single-node consolidation needs this many cheaper instance types and keeps this
// many options (Karpenter's MinInstanceTypesForSpotToSpotConsolidation).
inline constexpr int kMinInstanceTypesForSpotToSpot = 15;

// What launching `type` under `reqs` could cost at worst, as Karpenter's WorstLaunchPrice: among
// its available offerings that `reqs` admits, those of the capacity type a launch prefers
// (reserved, then spot, then on-demand), the most expensive. +infinity when none.
double WorstLaunchPrice(const cloud::InstanceType& type, const scheduling::Requirements& reqs);

class Consolidation : public Method {
 public:
  // REQUIRES: `clock` and `simulator` outlive the method.
  Consolidation(const core::Clock& clock, SchedulingSimulator& simulator,
                const MethodOptions& options)
      : clock_(clock), simulator_(simulator), options_(options) {}

  bool ShouldDisrupt(const Candidate& candidate) const override;
  std::string Reason() const override { return "Underutilized"; }

 protected:
  // The command consolidating `candidates` together, or nullopt when they cannot go (a pod has
  // no new home, more than one node would be needed, nothing cheaper exists, spot-to-spot is
  // not allowed). Errors only when the simulation fails.
  core::Result<std::optional<Command>> ComputeConsolidation(
      const std::vector<Candidate>& candidates);

  // A price the replacement's options must stay below besides the candidates' total, judged on
  // the options the price filter keeps, before a launch narrows them to a capacity type;
  // +infinity for none. Multi-node consolidation bounds it by the candidates' own instance types.
  virtual double ReplacementCeiling(const solver::NewNodeClaim& replacement,
                                    const std::vector<Candidate>& candidates) const;

  // Keeps the replacement's options whose worst launch price is below `max_price`. False when
  // none is left or the rest no longer satisfy a minValues requirement.
  bool KeepOptionsCheaperThan(solver::NewNodeClaim& replacement, double max_price) const;

  // Orders the command's single replacement's options by their cheapest offering under its
  // requirements (dropping those without one), relaunches it on the cheapest, and sets the
  // savings: the candidates' prices minus the launch's. False when nothing can be launched or
  // nothing is saved.
  bool Relaunch(Command& command) const;

  // The candidates with reschedulable pods (empty nodes are emptiness's, under the Empty
  // budget) whose NodePool's budget allows a disruption, in order, at most `limit` of them
  // (limit < 0: all). With `together`, they are disrupted by one command, so each one taken uses
  // up one of its pool's allowed disruptions.
  static std::vector<Candidate> WithinBudgets(const BudgetMapping& budgets,
                                              const std::vector<Candidate>& candidates, int limit,
                                              bool together);

  const core::Clock& clock_;
  SchedulingSimulator& simulator_;
  MethodOptions options_;
};

}  // namespace nodesmith::controllers
