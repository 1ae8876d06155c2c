// OrchestrationQueue: carries out disruption commands launch-before-delete, as Karpenter's
// disruption orchestration queue.
//
// Add(command):
//   1. taints every candidate's Node karpenter.sh/disrupted:NoSchedule, so nothing new
//      schedules there while the command runs (the terminator uses the same taint), and sets
//      DisruptionReason=True (reason and message: the command's, "Empty", "Drifted", ...) on
//      every candidate's NodeClaim;
//   2. creates the replacement NodeClaims (BuildNodeClaim against the NodePool each replacement
//      names) and remembers the command;
//   a command without replacements has its candidates' NodeClaims deleted right away instead.
//   When marking or creating fails the marks are removed again and the error returned (a
//   replacement already created is left; consolidation removes it later, as upstream).
// Reconcile, for each command in flight:
//   - every replacement Initialized=True (once seen, remembered): the candidates' NodeClaims are
//     deleted (the terminator drains and terminates them) and the command completes;
//   - else a replacement NodeClaim gone or being deleted (its launch failed, or it never
//     registered), or `replacement_timeout` passed since Add: the command is abandoned. The
//     candidates' NodeClaims lose DisruptionReason and the disrupted taint comes off their
//     Nodes (not off Nodes already being terminated),
//     a log line "Abandoning disruption ..." says why and a DisruptionAbandoned event is
//     recorded (fields: method, reason, nodes, nodeClaims, replacements, cause);
//   - else every candidate's NodeClaim is already gone or being deleted (someone else took the
//     nodes): the command is dropped;
//   - else it keeps waiting.
// Reconcile requeues every `poll_interval` while commands are in flight and also watches
// NodeClaims, so a replacement's initialization is noticed when it happens.
// Singleton. Not thread-safe (the runtime calls it one reconcile at a time; Add is called from
// the disruption controller's reconcile).
#pragma once

#include <set>
#include <string>
#include <vector>

#include "cluster/cluster_api.h"
#include "controllers/controllers.h"
#include "controllers/disruption/types.h"
#include "core/clock.h"
#include "core/duration.h"
#include "core/time.h"
#include "runtime/controller.h"
#include "runtime/event_recorder.h"

namespace nodesmith::controllers {


struct OrchestrationOptions {
  // How long replacements get to initialize before the command is abandoned (Karpenter's).
  core::Duration replacement_timeout = std::chrono::minutes(10);
  // How often commands in flight are looked at without a NodeClaim change.
  core::Duration poll_interval = std::chrono::seconds(5);
};

class OrchestrationQueue : public runtime::Controller {
 public:
  // REQUIRES: every reference outlives the queue.
  OrchestrationQueue(const core::Clock& clock, cluster::ClusterApi& cluster,
                     runtime::EventRecorder& recorder, OrchestrationOptions options = {});

  std::string Name() const override { return kDisruptionQueueName; }
  std::vector<cluster::Kind> Watches() const override { return {cluster::Kind::kNodeClaim}; }
  bool Singleton() const override { return true; }
  core::Result<runtime::ReconcileResult> Reconcile(const runtime::Request& request) override;

  // Starts `command` (see above). FailedPrecondition when a candidate is already in flight.
  // REQUIRES: !command.empty().
  core::Status Add(const Command& command);

  // Removes the disrupted taint, and DisruptionReason, from every Node a command left behind:
  // tainted, its NodeClaim present and neither being deleted, and no command of this queue in
  // flight for it. That is what a restart (or a leader that died) in the middle of a command
  // leaves; Karpenter's disruption controller cleans it up the same way. Nodes this queue
  // tainted itself are left to their command and then to the terminator: the cache may not
  // show yet the deletion that followed the taint.
  core::Status RemoveOutdatedTaints();

  // Whether the named Node is a candidate of a command in flight.
  bool InProgress(const std::string& node_name) const;
  // Commands in flight.
  size_t size() const { return in_flight_.size(); }

 private:
  struct InFlight {
    Command command;
    std::vector<std::string> replacements;  // NodeClaim names, as created
    std::vector<bool> initialized;          // per replacement, once seen Initialized
    core::Time added;
  };
  enum class Outcome { kWaiting, kDone };

  // Adds (true) or removes (false) the disrupted taint on every candidate's Node. Removal skips
  // Nodes, and Nodes of NodeClaims, already being deleted: the terminator owns those taints.
  core::Status SetDisruptedTaint(const Command& command, bool add);
  // Deletes the candidates' NodeClaims; ones already gone are fine.
  core::Status DeleteCandidates(const Command& command);
  core::Result<Outcome> Advance(InFlight& command);
  core::Status Abandon(const InFlight& command, const std::string& cause);

  const core::Clock& clock_;
  cluster::ClusterApi& cluster_;
  runtime::EventRecorder& recorder_;
  OrchestrationOptions options_;
  std::vector<InFlight> in_flight_;  // in Add order
  // Nodes this queue tainted and has not untainted; forgotten once the Node is gone.
  std::set<std::string> tainted_;
};

}  // namespace nodesmith::controllers
