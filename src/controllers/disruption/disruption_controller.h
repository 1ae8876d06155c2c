// DisruptionController: decides which nodes to take away, as Karpenter's disruption
// controller. Every `poll_interval` it builds the candidates, and tries its methods in order
// (today: emptiness); the first method that yields a command has it executed, and the pass ends
// (one command per pass). Executing a command logs and records a DisruptionDecision, then
// deletes the candidates' NodeClaims; the terminator drains and terminates them.
//
// The controller also notices pods leaving by itself: a candidate seen with reschedulable pods
// on one pass and without them on a later one counts as having had a pod event at that later
// pass, unless its status.lastPodEventTime is newer. The pod events controller may run after
// this one at the same instant, and a node must not be taken as idle since long before its
// pods left.
// Singleton. Not thread-safe.
#pragma once

#include <map>
#include <memory>
#include <optional>
#include <string>
#include <vector>

#include "cloud/cloud_provider.h"
#include "cluster/cluster_api.h"
#include "controllers/common/nominations.h"
#include "controllers/disruption/types.h"
#include "core/clock.h"
#include "core/duration.h"
#include "runtime/controller.h"
#include "runtime/event_recorder.h"

namespace nodesmith::controllers {

struct DisruptionOptions {
  core::Duration poll_interval = std::chrono::seconds(10);
  // The provisioner's nominations: nominated nodes are not candidates. Null: none known.
  std::shared_ptr<const Nominations> nominations;
};

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

 private:
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
  std::map<std::string, Seen> seen_;  // by NodeClaim name
};

// The methods Karpenter tries, in its order, that nodesmith implements so far.
std::vector<std::unique_ptr<Method>> DefaultMethods(const core::Clock& clock);

}  // namespace nodesmith::controllers
