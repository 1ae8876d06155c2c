// World: one `nodesmith simulate` run — nodesmith's real controllers over an embedded cluster and
// a simulated cloud, in virtual time, following a Scenario.
//
// It wires a FakeClock, an EventLoop, a MemoryCluster, a SimulatedCloud (catalog from the inputs'
// InstanceTypeCatalog, else --catalog/--region), the SimulatedRuntime with every controller of
// controllers::NewControllers, and around them what Kubernetes itself would do: workload
// controllers (sim/workload_controllers.h), kube-scheduler (sim/kube_scheduler.h) and kubelets
// (sim/kubelet.h). Cloud instance transitions are driven on the loop (the cloud says when it
// next changes) and reported as `InstanceTerminated`; the Scenario's events run at their
// times; a Sample of the cluster is taken at the start and every sample interval.
//
// Everything happens on the one loop in a fixed order, and only the FakeClock tells time, so
// the same inputs, scenario and seed give the same timeline, samples and summary.
// Not thread-safe.
#pragma once

#include <cstdint>
#include <iosfwd>
#include <map>
#include <memory>
#include <optional>
#include <string>
#include <vector>

#include <nlohmann/json_fwd.hpp>

#include "api/object_set.h"
#include "cloud/sim/simulated_cloud.h"
#include "cluster/memory_cluster.h"
#include "controllers/controllers.h"
#include "core/clock.h"
#include "runtime/controller_runtime.h"
#include "runtime/event_loop.h"
#include "sim/invariant_checker.h"
#include "sim/kube_scheduler.h"
#include "sim/kubelet.h"
#include "sim/scenario.h"
#include "sim/timeline.h"
#include "sim/workload_controllers.h"

namespace nodesmith::sim {

struct WorldOptions {
  std::string catalog = "aws";  // --catalog aws|kwok|FILE (an InstanceTypeCatalog input wins)
  std::string region = "us-west-2";
  uint64_t seed = 0;  // --seed: instance ids and private IPs
  bool spot_to_spot_consolidation = false;  // --feature-gates SpotToSpotConsolidation
  // Bound pod on a Ready node -> Running (image pull and container start).
  core::Duration pod_start_delay = std::chrono::seconds(1);
  // Check sim/invariant_checker.h's invariants after every step; the violations show in
  // invariant_violations(), the log and the result's `invariantViolations`. Costs a little time.
  bool check_invariants = false;
};

// The cluster at one instant (SimulationResult.samples).
struct Sample {
  core::Time at;
  std::map<std::string, int> nodes;  // running instances by instance type
  int pending_pods = 0;              // live pods not bound to a node
  double price_per_hour = 0;         // of the running instances
  int ready_nodes = 0;
  // Requests of the live pods on Ready nodes over their allocatable; 0 without Ready nodes.
  double cpu_utilization = 0;
  double memory_utilization = 0;
};

class World {
 public:
  // Builds the world at the scenario's start: loads the catalog and the input objects into the
  // cluster, starts the controllers and the simulated components, and schedules the scenario
  // events and samples. InvalidArgument/NotFound for bad inputs (a catalog that does not load,
  // an object the cluster refuses).
  static core::Result<std::unique_ptr<World>> Create(const api::ObjectSet& inputs,
                                                     Scenario scenario,
                                                     const WorldOptions& options = {});
  ~World();
  World(const World&) = delete;
  World& operator=(const World&) = delete;

  // Runs every event due at or before min(t, end()) and moves the clock there.
  void RunUntil(core::Time t);
  void Run() { RunUntil(end()); }

  core::Time start() const { return scenario_.start; }
  core::Time end() const { return scenario_.start + scenario_.duration; }
  core::Time Now() const { return clock_.Now(); }
  bool finished() const { return Now() >= end(); }

  // The SimulationResult document (CLI contract), as of Now(): scenario, start,
  // durationSeconds, sampleIntervalSeconds, events, samples, summary and, when `include_log`,
  // the whole log as {t, level, logger, message} (what the HTML report shows).
  nlohmann::ordered_json Result(bool include_log = true) const;
  // The controller log with virtual timestamps, one line per event, then a summary line.
  void WriteLog(std::ostream& out) const;

  const Scenario& scenario() const { return scenario_; }
  const Timeline& timeline() const { return timeline_; }
  const std::vector<Sample>& samples() const { return samples_; }
  cluster::MemoryCluster& cluster() { return cluster_; }
  const cloud::sim::SimulatedCloud& cloud() const { return *cloud_; }
  runtime::SimulatedRuntime& runtime() { return *runtime_; }
  const Kubelets& kubelets() const { return *kubelets_; }
  // Live pods not bound to a node, now.
  int PendingPods() const;
  // What the invariant checker found so far, in order; always empty unless check_invariants.
  const std::vector<InvariantViolation>& invariant_violations() const;

 private:
  World(Scenario scenario, const WorldOptions& options);
  core::Status Load(const api::ObjectSet& inputs);
  void Schedule(const ScenarioEvent& event);
  void Apply(const ScenarioEvent& event);
  void ApplyUnavailable(const UnavailableAction& action);
  void Interrupt(const InterruptAction& action);
  bool InterruptNode(const api::Node& node, cloud::sim::InterruptionKind kind);
  void PollCloud();
  // Runs the invariant checker (when on) and logs what it newly found.
  void CheckInvariants();
  void OnTransition(const cloud::sim::InstanceTransition& transition);
  void TakeSample();
  void Log(runtime::LogLevel level, const std::string& logger, const std::string& message,
           const std::string& type = "",
           std::vector<std::pair<std::string, std::string>> fields = {});

  Scenario scenario_;
  WorldOptions options_;
  core::FakeClock clock_;
  Timeline timeline_;
  cluster::MemoryCluster cluster_;
  std::unique_ptr<cloud::sim::SimulatedCloud> cloud_;
  // The loop is declared after everything its events point into and so destroyed before them.
  runtime::EventLoop loop_;
  std::unique_ptr<runtime::SimulatedRuntime> runtime_;
  std::unique_ptr<controllers::ControllerSet> controllers_;
  std::unique_ptr<WorkloadControllers> workloads_;
  std::unique_ptr<KubeScheduler> scheduler_;
  std::unique_ptr<Kubelets> kubelets_;
  std::unique_ptr<InvariantChecker> invariants_;  // null unless options_.check_invariants
  std::optional<core::Time> cloud_wake_;  // a loop event is due then to poll the cloud
  std::vector<Sample> samples_;
  // Pod uid -> (cpu, memory) requests; a pod's spec does not change, so samples compute it once.
  std::map<std::string, std::pair<double, double>> cpu_memory_requests_;
};

}  // namespace nodesmith::sim
