// The disruption framework's vocabulary, as Karpenter's disruption package: a Candidate is a
// node nodesmith may take away, a Command what a Method decided to do with some of them, and a
// Method one reason for disrupting (emptiness, drift, consolidation, ...) behind one interface,
// so methods slot into the DisruptionController and are tried in order.
#pragma once

#include <map>
#include <optional>
#include <string>
#include <vector>

#include "api/node.h"
#include "api/nodeclaim.h"
#include "api/nodepool.h"
#include "api/pod.h"
#include "core/status.h"
#include "core/time.h"
#include "solver/results.h"

namespace nodesmith::controllers {

// An initialized, managed node that is not being deleted, with what disrupting it would move.
struct Candidate {
  api::NodeClaim node_claim;
  api::Node node;
  api::NodePool node_pool;
  // Keys ("namespace/name") of the pods bound to the node that would need a new home (see
  // IsReschedulable), in list order; DaemonSet, static and finished pods are left out. Keys,
  // not copies: candidates are built every poll over every pod, and a method that simulates
  // rescheduling reads the few pods it needs.
  std::vector<std::string> reschedulable_pods;
  std::string instance_type;
  std::string zone;
  std::string capacity_type;
  double price_per_hour = 0;  // 0 when the cloud no longer offers it
  // Karpenter's disruption cost: the pods' eviction costs times the fraction of the node's
  // lifetime (expireAfter) remaining. Cheaper candidates are disrupted first.
  double disruption_cost = 0;
  // Karpenter's reschedule disruption cost: 1 for the node itself (cordon, drain, replacement
  // latency) plus each reschedulable pod's eviction cost where positive.
  double reschedule_disruption_cost = 1;
  // When the node last changed (last pod event, else initialization): consolidateAfter counts
  // from here.
  core::Time last_activity;
  // Why graceful methods must leave this node alone now ("pod default/db-0 has
  // karpenter.sh/do-not-disrupt", a PDB that forbids an eviction); "" when nothing does.
  // Forceful methods (expiration) disrupt it anyway: termination still honours PDBs up to the
  // NodeClaim's terminationGracePeriod.
  std::string blocked;

  const std::string& name() const { return node.metadata.name; }
  const std::string& node_pool_name() const { return node_pool.metadata.name; }
  // What disrupting the node saves per unit of disruption: consolidation tries the highest first.
  double SavingsRatio() const { return price_per_hour / reschedule_disruption_cost; }
};

// What one method decided: delete the candidates, launching `replacements` first when any.
struct Command {
  std::string method;  // "emptiness"
  std::string reason;  // "Empty"
  std::vector<Candidate> candidates;
  std::vector<solver::NewNodeClaim> replacements;
  double savings_per_hour = 0;  // candidates' prices minus the replacements'

  bool empty() const { return candidates.empty(); }
};

// Disruptions still allowed now, per NodePool name, for one reason.
using BudgetMapping = std::map<std::string, int>;

// A node nodesmith will not disrupt now, and why ("pod default/db-0 has
// karpenter.sh/do-not-disrupt", "pdb default/db prevents evicting pod default/db-0", ...).
struct BlockedNode {
  std::string node;
  std::string reason;

  bool operator==(const BlockedNode&) const = default;
};

// What one disruption pass concluded: the command it would take (at most one, the first method
// in order that has one), and the nodes that could not be considered, with reasons.
struct Decision {
  std::optional<Command> command;
  std::vector<BlockedNode> blocked;
  int nodes = 0;  // managed nodes looked at
  // No command, but a method would act once capacity coming up is initialized.
  bool waiting_for_capacity = false;
};

// What the consolidation methods may do beyond Karpenter's defaults.
struct MethodOptions {
  // Karpenter's SpotToSpotConsolidation feature gate.
  bool spot_to_spot_consolidation = false;
  // Multi-node consolidation considers at most this many candidates per pass (Karpenter: 100).
  int multi_node_max_candidates = 100;
};

class Method {
 public:
  virtual ~Method() = default;
  // "emptiness", "drift", ...: for logs and the DisruptionDecision event.
  virtual std::string Name() const = 0;
  // Whether this method may consider the candidate at all (policy, timing, pods).
  virtual bool ShouldDisrupt(const Candidate& candidate) const = 0;
  // The commands it would run over `candidates` (already filtered by ShouldDisrupt and sorted by
  // disruption cost), never exceeding `budgets`. Empty when there is nothing to do.
  virtual core::Result<std::vector<Command>> ComputeCommands(
      const BudgetMapping& budgets, const std::vector<Candidate>& candidates) = 0;
  // The budget reason it counts against: "Empty", "Drifted", "Underutilized".
  virtual std::string Reason() const = 0;
  // "empty", "single", "multi" for consolidation methods; "" otherwise. Commands of
  // consolidation methods are validated again after the validation delay before they act.
  virtual std::string ConsolidationType() const = 0;
  // A forceful method (expiration) sees blocked candidates too and is not bound by budgets.
  virtual bool Forceful() const { return false; }
  // After ComputeCommands found nothing: whether a candidate was held back only by capacity still
  // coming up (a replacement launched by an earlier command), so a pass as soon as it is up may
  // act where a poll later would leave the candidate waiting.
  virtual bool WaitingForCapacity() const { return false; }
  // After ComputeCommands found nothing: whether it stopped because the pass's share of
  // simulation work was spent (SchedulingSimulator::Spent) before it had tried every candidate.
  // The controller passes again at once, after the other controllers' waiting work, and the
  // method goes on with the candidates it has not tried.
  virtual bool Unfinished() const { return false; }
  // After ComputeCommands: whether it stopped looking because the pass's share of simulation
  // work was spent, with or without a command (Unfinished, or multi-node consolidation keeping
  // the best command it had found). Karpenter counts these as consolidation timeouts.
  virtual bool CutShort() const { return Unfinished(); }
};

}  // namespace nodesmith::controllers
