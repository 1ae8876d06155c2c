// The controller set: every controller nodesmith runs, built from one Settings value, so the
// simulator and the operator wire exactly the same set.
//
// Usage (simulator):
//   auto set = controllers::NewControllers(clock, cluster, cloud, recorder, settings);
//   for (runtime::Controller* c : set->All()) runtime.Register(*c);
// The set owns the controllers (and the state they share: the provisioner's nominations, which
// disruption respects); the caller owns the dependencies. REQUIRES: clock, cluster, cloud and
// recorder outlive the set.
#pragma once

#include <memory>
#include <string>
#include <utility>
#include <vector>

#include "cloud/cloud_provider.h"
#include "cloud/interruption_queue.h"
#include "cluster/cluster_api.h"
#include "core/clock.h"
#include "core/duration.h"
#include "runtime/controller.h"
#include "runtime/event_recorder.h"
#include "scheduling/well_known_labels.h"

namespace nodesmith::controllers {

// Karpenter's operator settings that reach the controllers (its --batch-idle-duration,
// --batch-max-duration and --feature-gates flags). A plain value type; defaults are Karpenter's.
struct Settings {
  // The provisioner closes a batch of pending pods when none arrived for this long ...
  core::Duration batch_idle_duration = std::chrono::seconds(1);
  // ... or when this long has passed since the batch opened.
  core::Duration batch_max_duration = std::chrono::seconds(10);
  // Label keys the solver treats as well-known: the catalog's (cloud::Catalog::well_known_labels).
  // Empty: Karpenter's default set.
  scheduling::LabelKeySet well_known_labels;
  // --preference-policy Ignore / --min-values-policy BestEffort (solver::SchedulerOptions).
  bool ignore_preferences = false;
  bool min_values_best_effort = false;
  // Plan only pods a scheduler marked unschedulable (ProvisionerOptions); the operator's choice.
  bool require_unschedulable_condition = false;
  // Karpenter's SpotToSpotConsolidation feature gate: consolidation may replace spot nodes with
  // cheaper spot nodes (with at least 15 cheaper instance types, as upstream).
  bool spot_to_spot_consolidation = false;
  // Disruption reads each node's pods from an index kept from the pod watch
  // (DisruptionOptions::index_pods). Only for a store whose reads never run ahead of its watch
  // (MemoryCluster: the simulator); KubeCluster's informers are read before their changes are
  // announced, so the operator scans the pods it reads.
  bool index_pods_by_node = false;
};

// The names the controllers report from Name(), for SimulatedRuntime::Enqueue and logs.
inline constexpr const char* kProvisionerName = "provisioner";
inline constexpr const char* kLifecycleName = "nodeclaim.lifecycle";
inline constexpr const char* kGarbageCollectionName = "nodeclaim.garbagecollection";
inline constexpr const char* kPodEventsName = "nodeclaim.podevents";
inline constexpr const char* kDriftDetectionName = "nodeclaim.disruption";
inline constexpr const char* kDisruptionName = "disruption";
inline constexpr const char* kDisruptionQueueName = "disruption.queue";
inline constexpr const char* kTerminationName = "nodeclaim.termination";
inline constexpr const char* kInterruptionName = "interruption";
inline constexpr const char* kNodePoolCounterName = "nodepool.counter";
inline constexpr const char* kNodePoolReadinessName = "nodepool.readiness";
inline constexpr const char* kNodePoolValidationName = "nodepool.validation";
inline constexpr const char* kNodePoolHashName = "nodepool.hash";

class ControllerSet {
 public:
  explicit ControllerSet(std::vector<std::unique_ptr<runtime::Controller>> controllers)
      : controllers_(std::move(controllers)) {}

  // Every controller, in the order they should be registered (provisioner first).
  std::vector<runtime::Controller*> All() const {
    std::vector<runtime::Controller*> out;
    for (const auto& c : controllers_) out.push_back(c.get());
    return out;
  }
  // The controller whose Name() is `name`, or nullptr.
  runtime::Controller* Find(const std::string& name) const {
    for (const auto& c : controllers_) {
      if (c->Name() == name) return c.get();
    }
    return nullptr;
  }

 private:
  std::vector<std::unique_ptr<runtime::Controller>> controllers_;
};

// Builds the provisioner, NodeClaim lifecycle, garbage collection, pod events, disruption,
// termination and NodePool status (hash, validation, readiness, counter) controllers over the
// given dependencies, and the interruption controller when
// `interruption_queue` is set (Karpenter runs it only with an INTERRUPTION_QUEUE); it marks
// spot-interrupted offerings in `unavailable_offerings`. REQUIRES: both set or both nullptr, and
// outliving the set.
std::unique_ptr<ControllerSet> NewControllers(
    const core::Clock& clock, cluster::ClusterApi& cluster, cloud::CloudProvider& cloud,
    runtime::EventRecorder& recorder, const Settings& settings,
    cloud::InterruptionQueue* interruption_queue = nullptr,
    cloud::UnavailableOfferingsSink* unavailable_offerings = nullptr);

}  // namespace nodesmith::controllers
