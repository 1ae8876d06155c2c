// `nodesmith disrupt -f ... [-o text|json] [--now RFC3339] [--until-stable]`: what the
// disruption controller would do next on this cluster, as a dry run.
//
// The inputs are loaded into an in-memory cluster whose clock stands still at --now, next to a
// simulated cloud over the catalog; the real DisruptionController (with Karpenter's methods in
// Karpenter's order, validation waits skipped) is asked for its next command after drift
// detection has marked drifted NodeClaims. With --until-stable each command is applied to the
// in-memory cluster (replacements launched and registered, the candidates' pods moved where the
// scheduling simulation put them, the candidates removed) and the controller is asked again,
// until it has nothing more to do. The wall clock is read here only: for the default --now and
// to time the decisions.
#include <chrono>
#include <iostream>
#include <map>
#include <memory>
#include <optional>
#include <set>

#include "api/conditions.h"
#include "api/manifest.h"
#include "api/pod_status.h"
#include "api/workload_pods.h"
#include "cli/command.h"
#include "cli/disruption_plan.h"
#include "cli/inputs.h"
#include "cloud/catalog.h"
#include "cloud/sim/simulated_cloud.h"
#include "cluster/cluster_snapshot.h"
#include "cluster/memory_cluster.h"
#include "controllers/common/karpenter.h"
#include "controllers/disruption/candidates.h"
#include "controllers/disruption/disruption_controller.h"
#include "controllers/disruption/simulation.h"
#include "controllers/nodeclaim/drift_detection.h"
#include "controllers/provisioning/nodeclaim_builder.h"
#include "core/clock.h"
#include "runtime/event_recorder.h"
#include "scheduling/well_known_labels.h"
#include "sim/kubelet.h"

namespace nodesmith::cli {
namespace {

// --until-stable gives up after this many commands: a cluster that keeps changing is a bug.
constexpr int kMaxCommands = 1000;

struct DisruptFlags {
  InputFlags inputs;
  std::optional<std::string> now;  // RFC 3339; absent = the current time
  bool until_stable = false;
};

int ExitCodeFor(const core::Status& st) {
  return st.code() == core::StatusCode::kInvalidArgument ||
                 st.code() == core::StatusCode::kNotFound
             ? kExitBadInput
             : kExitFailure;
}

std::string LabelOr(const api::Labels& labels, const char* key) {
  auto it = labels.find(key);
  return it == labels.end() ? "" : it->second;
}

struct Fleet {
  int nodes = 0;
  double price_per_hour = 0;
};

// The managed nodes (a Node with a NodeClaim that is not being deleted) and what they cost, priced
// as disruption prices its candidates: the cloud's offering for the node's instance type, zone
// and capacity type (0 when the cloud no longer offers it).
Fleet PriceManagedNodes(const cluster::ClusterApi& cluster, const cloud::CloudProvider& cloud) {
  std::map<std::string, api::NodePool> pools;
  for (auto& p : cluster.List<api::NodePool>()) pools.emplace(p.metadata.name, std::move(p));
  Fleet fleet;
  for (const auto& claim : cluster.List<api::NodeClaim>()) {
    if (claim.metadata.deletion_timestamp) continue;
    std::optional<api::Node> node = controllers::NodeForNodeClaim(cluster, claim);
    if (!node) continue;
    ++fleet.nodes;
    api::NodePool pool;
    if (auto it = pools.find(LabelOr(claim.metadata.labels, scheduling::kLabelNodePool));
        it != pools.end()) {
      pool = it->second;
    }
    auto types = cloud.GetInstanceTypes(pool);
    if (!types.ok()) continue;
    const std::string type = LabelOr(node->metadata.labels, scheduling::kLabelInstanceTypeStable);
    const std::string zone = LabelOr(node->metadata.labels, scheduling::kLabelTopologyZone);
    const std::string capacity = LabelOr(node->metadata.labels, scheduling::kLabelCapacityType);
    for (const auto& t : *types) {
      if (t->name != type) continue;
      for (const auto& o : t->offerings) {
        if (o.zone == zone && o.capacity_type == capacity) fleet.price_per_hour += o.price;
      }
    }
  }
  return fleet;
}

// Removes the object for good: finalizers first, as the termination controller would once the
// node is drained and the instance gone, so it does not linger as "disrupting" in budgets.
template <typename T>
core::Status DeleteForGood(cluster::ClusterApi& cluster, const std::string& ns,
                           const std::string& name) {
  auto obj = cluster.Get<T>(ns, name);
  if (!obj.ok()) {
    return obj.status().code() == core::StatusCode::kNotFound ? core::Status::Ok() : obj.status();
  }
  if (!obj->metadata.finalizers.empty()) {
    obj->metadata.finalizers.clear();
    auto updated = cluster.Update(*obj);
    if (!updated.ok()) return updated.status();
  }
  core::Status st = cluster.Delete<T>(ns, name);
  return st.code() == core::StatusCode::kNotFound ? core::Status::Ok() : st;
}

// Launches one replacement as the orchestration queue would, and registers and initializes its
// node at once. Returns the Node's name. The NodeClaim's last pod event is `last_activity`: the
// pods it receives were moved, not changed, so the consolidateAfter clock of the nodes they came
// from carries over.
core::Result<std::string> LaunchReplacement(const solver::NewNodeClaim& planned,
                                            core::Time last_activity, const core::Clock& clock,
                                            cluster::ClusterApi& cluster,
                                            cloud::sim::SimulatedCloud& cloud) {
  auto pool = cluster.Get<api::NodePool>("", planned.node_pool);
  if (!pool.ok()) return pool.status().WithPrefix("replacement " + planned.name);
  auto claim = cluster.Create(controllers::BuildNodeClaim(planned, *pool));
  if (!claim.ok()) return claim.status().WithPrefix("creating replacement " + planned.name);
  auto launched = cloud.Create(*claim);
  if (!launched.ok()) return launched.status().WithPrefix("launching replacement " + planned.name);
  const cloud::sim::SimulatedInstance* instance = cloud.FindInstance(launched->status.provider_id);
  if (!instance) return core::Status::Internal("launched instance of " + planned.name + " not found");

  const core::Time now = clock.Now();
  api::Node node;
  node.metadata.name = sim::NodeNameForIp(instance->private_ip);
  node.metadata.labels = launched->metadata.labels;
  node.metadata.labels["kubernetes.io/hostname"] = node.metadata.name;
  node.metadata.labels["karpenter.sh/registered"] = "true";
  node.metadata.labels["karpenter.sh/initialized"] = "true";
  node.spec.provider_id = launched->status.provider_id;
  node.spec.taints = launched->spec.taints;
  node.status.capacity = launched->status.capacity;
  node.status.allocatable = launched->status.allocatable;
  api::SetCondition(node.status.conditions, "Ready", "True", "KubeletReady", now);
  auto created_node = cluster.Create(node);
  if (!created_node.ok()) {
    return created_node.status().WithPrefix("registering node of replacement " + planned.name);
  }

  api::NodeClaim ready = *launched;
  ready.metadata.resource_version = claim->metadata.resource_version;
  ready.status.node_name = node.metadata.name;
  for (const char* type : {controllers::kConditionLaunched, controllers::kConditionRegistered,
                           controllers::kConditionInitialized, "Ready"}) {
    api::SetCondition(ready.status.conditions, type, "True", type, now);
  }
  ready.status.last_pod_event_time = last_activity;
  auto updated = cluster.Update(ready);
  if (!updated.ok()) return updated.status().WithPrefix("initializing replacement " + planned.name);
  return node.metadata.name;
}

// Applies a command to the simulated cluster as if it had run to completion: replacements up and
// initialized, every reschedulable pod of the candidates bound where the scheduling simulation
// places it (on a replacement, or on an existing node; pending when it has no place), the
// candidates' other pods (DaemonSet, static) gone, the candidates' Nodes and NodeClaims deleted.
// Timestamps of the nodes receiving pods are kept (see LaunchReplacement).
core::Status ApplyCommand(const controllers::Command& command, const core::Clock& clock,
                          cluster::ClusterApi& cluster, cloud::sim::SimulatedCloud& cloud,
                          controllers::SchedulingSimulator& simulator) {
  std::set<std::string> candidate_nodes;
  std::set<std::string> moving;
  core::Time last_activity;
  for (const auto& c : command.candidates) {
    candidate_nodes.insert(c.name());
    moving.insert(c.reschedulable_pods.begin(), c.reschedulable_pods.end());
    last_activity = std::max(last_activity, c.last_activity);
  }

  // Where the pods go: the command's replacements, else the existing capacity the same
  // simulation chose (asked again: the command only lists what must be launched).
  std::map<std::string, std::string> target;  // pod key -> node name
  // New NodeClaims the pods need beyond the command's own replacements: a command without
  // replacements (expiration, emptiness) leaves pods that fit nowhere else to the provisioner,
  // which would launch these.
  std::vector<solver::NewNodeClaim> provisioned;
  if (!moving.empty()) {
    simulator.Reset();
    auto sim = simulator.Simulate(command.candidates);
    if (!sim.ok()) return sim.status().WithPrefix("simulating " + command.method);
    if (command.replacements.empty()) provisioned = sim->replacements;
    for (const auto& placement : sim->results.existing_nodes) {
      std::string node = placement.name;
      if (placement.in_flight) {
        auto claim = cluster.Get<api::NodeClaim>("", placement.name);
        std::optional<api::Node> n =
            claim.ok() ? controllers::NodeForNodeClaim(cluster, *claim) : std::nullopt;
        if (!n) continue;  // not registered yet: its pods stay pending
        node = n->metadata.name;
      }
      for (const auto& pod : placement.pods) {
        if (moving.count(pod)) target[pod] = node;
      }
    }
  }
  const std::vector<solver::NewNodeClaim>* all_launches[] = {&command.replacements, &provisioned};
  for (const auto* launches : all_launches) {
    for (const auto& planned : *launches) {
      auto node = LaunchReplacement(planned, last_activity, clock, cluster, cloud);
      if (!node.ok()) return node.status();
      for (const auto& pod : planned.pods) {
        if (moving.count(pod)) target[pod] = *node;
      }
    }
  }

  for (auto pod : cluster.List<api::Pod>()) {
    if (!candidate_nodes.count(pod.spec.node_name)) continue;
    const std::string key = api::PodKey(pod);
    if (!moving.count(key)) {
      core::Status st = cluster.Delete<api::Pod>(pod.metadata.namespace_, pod.metadata.name);
      if (!st.ok() && st.code() != core::StatusCode::kNotFound) return st;
      continue;
    }
    auto it = target.find(key);
    pod.spec.node_name = it == target.end() ? "" : it->second;
    if (pod.spec.node_name.empty()) pod.status.phase = "Pending";
    auto updated = cluster.Update(pod);
    if (!updated.ok()) return updated.status().WithPrefix("moving pod " + key);
  }
  for (const auto& c : command.candidates) {
    NS_RETURN_IF_ERROR(DeleteForGood<api::Node>(cluster, "", c.name()));
    NS_RETURN_IF_ERROR(DeleteForGood<api::NodeClaim>(cluster, "", c.node_claim.metadata.name));
  }
  return core::Status::Ok();
}

// Adds the decision's blocked nodes not listed yet.
void MergeBlocked(const std::vector<controllers::BlockedNode>& blocked,
                  std::vector<controllers::BlockedNode>& into) {
  for (const auto& b : blocked) {
    bool known = false;
    for (const auto& seen : into) known = known || seen.node == b.node;
    if (!known) into.push_back(b);
  }
}

int RunDisrupt(const DisruptFlags& flags) {
  core::Time now;
  if (!flags.now) {
    now = core::Time{std::chrono::duration_cast<std::chrono::nanoseconds>(
                         std::chrono::system_clock::now().time_since_epoch())
                         .count()};
  } else {
    core::Result<core::Time> parsed = core::ParseRfc3339(*flags.now);
    if (!parsed.ok()) {
      std::cerr << "error: --now: " << parsed.status().message()
                << " (give an RFC 3339 time such as 2025-06-07T12:30:00Z)\n";
      return kExitBadInput;
    }
    now = *parsed;
  }
  core::Result<FeatureGates> gates = ParseFeatureGates(flags.inputs.feature_gates);
  if (!gates.ok()) {
    std::cerr << "error: " << gates.status().message() << "\n";
    return kExitBadInput;
  }
  int load_exit = kExitBadInput;
  std::optional<api::ObjectSet> objects = LoadInputsOrReport(flags.inputs, std::cerr, &load_exit);
  if (!objects) return load_exit;
  if (core::Status expanded = api::ExpandWorkloads(*objects); !expanded.ok()) {
    std::cerr << "error: " << expanded.message() << "\n";
    return kExitBadInput;
  }

  cloud::CatalogSource source =
      objects->instance_type_catalogs.empty()
          ? cloud::CatalogSource::FromFlag(flags.inputs.catalog)
          : cloud::CatalogSource::FromObject(objects->instance_type_catalogs.front().object);
  std::optional<api::EC2NodeClass> node_class;
  if (!objects->ec2_node_classes.empty()) node_class = objects->ec2_node_classes.front().object;
  core::Result<cloud::Catalog> catalog = cloud::LoadCatalog(source, flags.inputs.region, node_class);
  if (!catalog.ok()) {
    std::cerr << "error: " << catalog.status().message() << "\n";
    return ExitCodeFor(catalog.status());
  }

  core::FakeClock clock(now);
  cluster::MemoryCluster cluster(clock);
  if (core::Status st = cluster::Load(*objects, cluster); !st.ok()) {
    std::cerr << "error: " << st.message() << "\n";
    return kExitBadInput;
  }
  controllers::SimulatorOptions simulator_options;
  simulator_options.well_known_labels = catalog->well_known_labels;
  cloud::sim::SimulatedCloud cloud(clock, std::move(catalog).value());
  runtime::RecordingEventRecorder recorder;
  auto simulator =
      std::make_shared<controllers::SchedulingSimulator>(cluster, cloud, simulator_options);
  controllers::MethodOptions method_options;
  method_options.spot_to_spot_consolidation = gates->spot_to_spot_consolidation;
  controllers::DisruptionOptions options;
  options.validation_delay = core::Duration::zero();
  options.simulator = simulator;
  controllers::DisruptionController controller(
      clock, cluster, cloud, recorder,
      controllers::DefaultMethods(clock, *simulator, method_options), options);

  DisruptionPlan plan;
  const Fleet before = PriceManagedNodes(cluster, cloud);
  plan.nodes = before.nodes;
  plan.price_per_hour_before = before.price_per_hour;
  double savings = 0;
  for (;;) {
    const auto start = std::chrono::steady_clock::now();
    // The contract honours an input Drifted=True: a snapshot cannot show cloud-side drift.
    core::Status drift = controllers::MarkDrift(clock, cluster, cloud, nullptr,
                                                controllers::UnexplainedDrift::kKeep);
    core::Result<controllers::Decision> decision =
        drift.ok() ? controller.Decide() : core::Result<controllers::Decision>(drift);
    plan.solve_seconds +=
        std::chrono::duration<double>(std::chrono::steady_clock::now() - start).count();
    if (!decision.ok()) {
      std::cerr << "error: deciding disruption: " << decision.status().message() << "\n";
      return ExitCodeFor(decision.status());
    }
    MergeBlocked(decision->blocked, plan.blocked);
    if (!decision->command) break;
    savings += decision->command->savings_per_hour;
    plan.commands.push_back(std::move(*decision->command));
    if (!flags.until_stable) break;
    if (plan.commands.size() >= static_cast<size_t>(kMaxCommands)) {
      std::cerr << "error: --until-stable: the cluster did not settle after " << kMaxCommands
                << " commands\n";
      return kExitFailure;
    }
    if (core::Status st = ApplyCommand(plan.commands.back(), clock, cluster, cloud, *simulator);
        !st.ok()) {
      std::cerr << "error: applying " << plan.commands.back().method
                << " command: " << st.message() << "\n";
      return kExitFailure;
    }
  }
  // A node disrupted after all (by a forceful method, or once a budget allowed it) is not blocked.
  std::set<std::string> disrupted;
  for (const auto& cmd : plan.commands) {
    for (const auto& c : cmd.candidates) disrupted.insert(c.name());
  }
  std::erase_if(plan.blocked, [&](const auto& b) { return disrupted.count(b.node) > 0; });
  // Applied commands are priced as the fleet they left, which includes what the provisioner
  // would launch for pods an expiration left without a home; a single step is priced by its
  // saving.
  plan.price_per_hour_after = flags.until_stable && !plan.commands.empty()
                                  ? PriceManagedNodes(cluster, cloud).price_per_hour
                                  : plan.price_per_hour_before - savings;

  if (flags.inputs.output == "json") {
    std::cout << DisruptionPlanJson(plan).dump(2) << "\n";
  } else {
    std::cout << DisruptionPlanText(plan);
  }
  std::cout.flush();
  return std::cout ? kExitOk : kExitFailure;
}

}  // namespace

void RegisterDisrupt(CLI::App& app, int* exit_code) {
  auto flags = std::make_shared<DisruptFlags>();
  CLI::App* cmd = app.add_subcommand(
      "disrupt",
      "what the disruption controller would do next (a dry run): emptiness, drift, expiration, "
      "multi-node and single-node consolidation, with budgets, PDBs and do-not-disrupt");
  AddInputAndClusterFlags(cmd, &flags->inputs);
  cmd->add_option("--now", flags->now,
                  "the time to judge the cluster at, RFC 3339 (default: the current time)");
  cmd->add_flag("--until-stable", flags->until_stable,
                "apply each command to the simulated cluster and repeat until nothing more would "
                "happen, listing every command");
  cmd->callback([flags, exit_code] { *exit_code = RunDisrupt(*flags); });
}

}  // namespace nodesmith::cli
