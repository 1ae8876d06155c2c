// Scenario: what `nodesmith simulate` plays out — how long to run, how fast the simulated cloud
// and kubelet are, the provisioner's batching windows, and the timed events (scale, delete,
// apply, interrupt, unavailable) of the CLI contract's nodesmith.dev/v1alpha1 Scenario.
//
// DecodeScenario turns the document (kept as JSON by api::LoadManifests) into this value and
// checks it; errors name the file, document, object and field path like the manifest loader:
//   scenario.yaml: document 1 (Scenario inflate): spec.events[2].scale.replicas: must be >= 0
// A plain value type. Events are kept in document order; the world runs events due at the same
// instant in that order.
#pragma once

#include <optional>
#include <string>
#include <variant>
#include <vector>

#include "api/object_set.h"
#include "cloud/sim/cloud_timings.h"
#include "cloud/sim/interruption.h"
#include "cluster/cluster_api.h"
#include "controllers/controllers.h"
#include "core/duration.h"
#include "core/status.h"
#include "core/time.h"

namespace nodesmith::sim {

// The default virtual start, as the contract's `spec.start` default.
inline constexpr const char* kDefaultScenarioStart = "2025-01-01T00:00:00Z";

// Sets a workload's replica count (a Job's parallelism), as `kubectl scale`.
struct ScaleAction {
  std::string kind;  // Deployment, ReplicaSet, StatefulSet or Job
  std::string name;
  std::string namespace_ = "default";
  int replicas = 0;
};

// Deletes an object (a workload's pods go with it, as with the default cascading delete).
struct DeleteAction {
  std::string kind;  // any kind the cluster holds (Deployment, Pod, NodePool, ...)
  std::string name;
  std::string namespace_;  // "default" for namespaced kinds when empty
};

// Creates the object, or replaces it when one of that name exists (`kubectl apply`).
struct ApplyAction {
  cluster::Object object;
};

// Sends interruption notices: to one node by name, or to the `count` oldest nodes of a pool.
struct InterruptAction {
  std::string node;       // set, or node_pool
  std::string node_pool;
  int count = 1;
  cloud::sim::InterruptionKind kind = cloud::sim::InterruptionKind::kSpotInterruption;
};

// Insufficient capacity for one offering for a while.
struct UnavailableAction {
  std::string instance_type;
  std::string zone;
  std::string capacity_type;
  core::Duration duration{0};  // `for`
};

using ScenarioAction =
    std::variant<ScaleAction, DeleteAction, ApplyAction, InterruptAction, UnavailableAction>;

struct ScenarioEvent {
  core::Duration at{0};  // since the start
  ScenarioAction action;
  std::string path;  // "spec.events[3]", for messages
};

struct Scenario {
  std::string name;
  std::string source;  // "scenario.yaml: document 1 (Scenario inflate)", for messages
  core::Time start;
  core::Duration duration{0};
  // A sample of the cluster (nodes by type, pending pods, price, utilisation) is taken at the
  // start and every sample_interval after it; default 30 s.
  core::Duration sample_interval = std::chrono::seconds(30);
  cloud::sim::CloudTimings cloud;
  controllers::Settings settings;
  std::vector<ScenarioEvent> events;
};

// Decodes and validates one Scenario document. InvalidArgument with the full message on error.
core::Result<Scenario> DecodeScenario(const api::Sourced<nlohmann::ordered_json>& doc);

// The one Scenario among the inputs: InvalidArgument when there is none or more than one.
core::Result<Scenario> ScenarioFromInputs(const api::ObjectSet& inputs);

}  // namespace nodesmith::sim
