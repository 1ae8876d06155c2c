// DisruptionController: decides which nodes to take away, as Karpenter's disruption
// controller. Every `poll_interval` it builds the candidates and tries its methods in order
// (emptiness, drift, expiration, multi-node and single-node consolidation); the first method
// that yields a command ends the pass (one command per pass), and the next pass follows at once. A consolidation command
// (emptiness, multi-node, single-node) is held for `validation_delay` and computed again; it
// acts only if the method still decides the same (same candidates, as many replacements, the
// original replacement options still among the new ones), else it is abandoned. Executing a
// command logs and records a DisruptionDecision, then hands it to the orchestration queue
// (taint, launch replacements, wait for them, delete the candidates) or, without a queue,
// deletes the candidates' NodeClaims; the terminator drains and terminates them.
//
// Decide() is the same pass without acting and without waiting: what `nodesmith disrupt` prints.
//
// Consolidation is expensive (each decision simulates scheduling), so, as Karpenter does, the
// multi-node and single-node methods are skipped while nothing they look at has changed since
// a pass in which they found nothing: the candidates, their pods and blockers, the pending pods
// and the NodePools. They run again at least every `consolidation_recheck` regardless, since
// budgets with schedules and prices can change without the cluster changing.
//
// Its first pass, and one every `consolidation_recheck` after it, first has the queue take the
// disrupted taint off Nodes no command holds any more (a restart cut their command short).
//
// The controller also notices pods leaving by itself: a candidate seen with reschedulable pods
// on one pass and without them on a later one counts as having had a pod event at that later
// pass, unless its status.lastPodEventTime is newer. The pod events controller may run after
// this one at the same instant, and a node must not be taken as idle since long before its
// pods left.
// Singleton. Not thread-safe.
#pragma once

#include <cstdint>
#include <map>
#include <memory>
#include <optional>
#include <string>
#include <vector>

#include "cloud/cloud_provider.h"
#include "cluster/cluster_api.h"
#include "controllers/common/nominations.h"
#include "controllers/disruption/pods_by_node.h"
#include "controllers/disruption/simulation.h"
#include "controllers/disruption/types.h"
#include "core/clock.h"
#include "core/duration.h"
#include "runtime/controller.h"
#include "runtime/event_recorder.h"

namespace nodesmith::controllers {

class OrchestrationQueue;

struct DisruptionOptions {
  core::Duration poll_interval = std::chrono::seconds(10);
  // A pass that found nothing only because a candidate's pods would use capacity still coming up
  // looks again after this long instead of a poll: that capacity is usually a replacement an
  // earlier command launched, up within seconds.
  core::Duration capacity_recheck = std::chrono::seconds(1);
  // How long a consolidation command waits before it is validated and acted on (Karpenter's
  // consolidation TTL). Zero: act at once.
  core::Duration validation_delay = std::chrono::seconds(15);
  // The provisioner's nominations: nominated nodes are not candidates. Null: none known.
  std::shared_ptr<const Nominations> nominations;
  // Unchanged clusters are consolidated again after this long (see above).
  core::Duration consolidation_recheck = std::chrono::minutes(5);
  // The simulator the methods share; reset at the start of every pass. Null: no method needs it.
  std::shared_ptr<SchedulingSimulator> simulator;
  // Carries out commands: taints, launches replacements, deletes once they are up. Its nodes in
  // flight are not candidates. Null: candidates' NodeClaims are deleted directly and commands
  // with replacements are refused. Not owned; REQUIRES: outlives the controller.
  OrchestrationQueue* queue = nullptr;
  // The solver work (SchedulingSimulator::work) one reconcile's pass may spend before the
  // consolidation methods stop and the next pass goes on; 0: no bound. Every controller runs on
  // one runtime thread and launches wait while a pass runs; with ~9,000 pods pending a solve
  // counts ~9,500 and takes a good part of a second, and the passes of the 10,000-pod burst in
  // docs/RELIABILITY.md took 4 s on average. Decide() is never bounded.
  int64_t simulation_work_per_pass = 100'000;
  // Keep each node's pods in an index fed by the pod watch (PodsByNode) instead of scanning
  // every pod per pass. REQUIRES: the cluster announces every change before a read can see it
  // (MemoryCluster does; KubeCluster's informers may be read ahead of their announcements, and
  // index pods by node themselves: ClusterApi::ForEachPodOn).
  bool index_pods = false;
};
// Karpenter's consolidation timeout, as nodesmith has it: a consolidation method ran out of its
// pass's share of simulation work. Single-node is paused and goes on in the next pass;
// multi-node is cut short and acts on the best command it found, if any.
enum class ConsolidationTimeout { kPaused, kCutShortWithCommand, kCutShortWithoutCommand };

// The field that marks a pass's debug line as a consolidation timeout ("paused" or "cutShort");
// the operator's karpenter_voluntary_disruption_consolidation_timeouts_total counts these lines
// by it, not by their wording.
inline constexpr const char* kConsolidationTimeoutField = "consolidationTimeout";

// The line a pass records for a consolidation timeout of `method` ("single-node"), whose
// Karpenter consolidation type is `consolidation_type` ("single", "multi").
runtime::RecordedEvent ConsolidationTimeoutEvent(const std::string& method,
                                                 const std::string& consolidation_type,
                                                 ConsolidationTimeout timeout);


class DisruptionController : public runtime::Controller {
 public:
  // `methods` are tried in order. REQUIRES: every reference outlives the controller.
  DisruptionController(const core::Clock& clock, cluster::ClusterApi& cluster,
                       cloud::CloudProvider& cloud, runtime::EventRecorder& recorder,
                       std::vector<std::unique_ptr<Method>> methods,
                       DisruptionOptions options = {});

  std::string Name() const override;
  std::vector<cluster::Kind> Watches() const override { return {}; }
  bool Singleton() const override { return true; }
  core::Result<runtime::ReconcileResult> Reconcile(const runtime::Request& request) override;

  // One pass without acting: the command the methods would take now and the nodes that are
  // blocked, with reasons. Validation waits are skipped. Only the controller's memory of which
  // nodes had pods is updated.
  core::Result<Decision> Decide();

 private:
  // The first method's command this pass, with the index of the method that made it.
  struct Pass {
    Decision decision;
    size_t method = 0;
    // A method stopped at the pass's share of simulation work (Method::Unfinished).
    bool unfinished = false;
  };
  // `skip_unchanged`: skip consolidation methods when the cluster is as it was when they last
  // found nothing (Reconcile; Decide never skips). `first_method`: where the methods start, past
  // one whose command was just abandoned. `bounded`: the simulation work is bounded by
  // simulation_work_per_pass (Reconcile; Decide never is).
  // The candidates a pass starts from, as the cluster is now, and the nodes left out with why.
  struct Survey {
    std::vector<Candidate> candidates;  // their emptiness observed (ObserveEmptiness)
    std::vector<BlockedNode> excluded;
  };
  Survey TakeSurvey();
  // `survey`: one taken at this instant (by Validate), else the pass takes its own.
  core::Result<Pass> RunPass(bool skip_unchanged, size_t first_method = 0, bool bounded = true,
                             std::optional<Survey> survey = std::nullopt);
  // What Reconcile does with a pass: hold its command for validation, execute it, or wait.
  core::Result<runtime::ReconcileResult> Act(Pass pass);
  // A digest of what consolidation decisions depend on.
  uint64_t ConsolidationState(const std::vector<Candidate>& candidates) const;
  // Whether `command`, made by methods_[method] one validation delay ago, still stands in the
  // cluster `survey` (taken now) describes. A pass after an abandoned command starts from the same
  // survey rather than building every candidate again.
  core::Result<bool> Validate(const Command& command, size_t method, const Survey& survey);
  core::Status Execute(const Command& command);
  // Updates what was seen of each candidate and moves its last_activity accordingly.
  void ObserveEmptiness(std::vector<Candidate>& candidates);

  struct Seen {
    bool had_pods = false;
    std::optional<core::Time> emptied_at;  // the pass that first saw it empty after pods
  };

  const core::Clock& clock_;
  cluster::ClusterApi& cluster_;
  cloud::CloudProvider& cloud_;
  runtime::EventRecorder& recorder_;
  std::vector<std::unique_ptr<Method>> methods_;
  DisruptionOptions options_;
  // The pods of every node, from the pod watch: a pass reads them instead of every pod. Null
  // unless options_.index_pods.
  std::unique_ptr<PodsByNode> pods_;
  std::map<std::string, Seen> seen_;  // by NodeClaim name
  // A consolidation command waiting for validation, the method that made it, and since when.
  struct Held {
    Command command;
    size_t method = 0;
    core::Time since;
  };
  std::optional<Held> held_;
  // When the queue last removed the taints of commands cut short (the first pass, then every
  // consolidation_recheck): a restart is the only way to lose a command in flight.
  std::optional<core::Time> taints_checked_;
  // The ConsolidationState at the last pass in which consolidation found nothing, and when.
  std::optional<uint64_t> idle_state_;
  core::Time idle_since_;
};

// The methods Karpenter tries, in its order: emptiness, drift, expiration, multi-node and
// single-node consolidation. REQUIRES: clock and simulator outlive the methods.
std::vector<std::unique_ptr<Method>> DefaultMethods(const core::Clock& clock,
                                                    SchedulingSimulator& simulator,
                                                    const MethodOptions& options = {});

}  // namespace nodesmith::controllers
