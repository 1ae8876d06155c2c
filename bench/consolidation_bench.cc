// consolidation_bench: how fast the disruption controller decides on a large cluster after a
// scale-in, and how close consolidating to a fixed point gets to the cheapest possible cluster.
//
//   consolidation_bench [--nodes 1000] [--pods-per-node 30] [--max-passes 200] [--check]
//
// Builds `nodes` on-demand m5/c5/r5 2xlarge nodes from the aws catalog, each running
// `pods-per-node` pods of mixed shapes, then scales in: every other node keeps a third of its
// pods. It then times one DisruptionController::Decide (every method in Karpenter's order:
// emptiness, drift, expiration, multi-node and single-node consolidation) and applies decisions
// pass after pass, as the orchestration queue and the kube-scheduler would (replacements
// launched, pods moved where the simulation put them, candidates removed), until no method
// has anything left to do. Prints the cluster's price before and after, and the LP lower bound
// (solver/lower_bound.h) on any set of new nodes holding the remaining pods.
// --check exits 1 when the first pass decides nothing, the price does not fall, or the final
// price is below the bound (which would mean the bound or the bookkeeping is wrong).
#include <chrono>
#include <cstdio>
#include <map>
#include <memory>
#include <set>
#include <string>
#include <vector>

#include "api/object_set.h"
#include "cloud/catalog.h"
#include "cloud/sim/simulated_cloud.h"
#include "cluster/cluster_snapshot.h"
#include "cluster/memory_cluster.h"
#include "controllers/common/karpenter.h"
#include "controllers/disruption/disruption_controller.h"
#include "controllers/disruption/simulation.h"
#include "core/clock.h"
#include "runtime/event_recorder.h"
#include "scheduling/well_known_labels.h"
#include "solver/scheduler.h"
#include "solver/snapshot.h"

namespace nodesmith::bench {
namespace {

namespace s = scheduling;
using Clock = std::chrono::steady_clock;

double Seconds(Clock::time_point since) {
  return std::chrono::duration<double>(Clock::now() - since).count();
}

struct PodShape {
  const char* cpu;
  const char* memory;
};
// Averages 225m and 640Mi: 30 of them fill about 85% of an m5.2xlarge's CPU.
constexpr PodShape kShapes[] = {{"100m", "256Mi"}, {"200m", "512Mi"}, {"300m", "768Mi"},
                                {"300m", "1Gi"}};
constexpr const char* kNodeTypes[] = {"m5.2xlarge", "c5.2xlarge", "r5.2xlarge"};

class Bench {
 public:
  explicit Bench(cloud::Catalog catalog)
      : clock_(core::Time::FromUnixSeconds(1735689600)),
        cluster_(clock_),
        cloud_(clock_, catalog) {
    for (const auto& t : catalog.instance_types) types_[t->name] = t;
    simulator_ = std::make_shared<controllers::SchedulingSimulator>(cluster_, cloud_);
    controllers::DisruptionOptions options;
    options.simulator = simulator_;
    options.validation_delay = core::Duration(0);
    controller_ = std::make_unique<controllers::DisruptionController>(
        clock_, cluster_, cloud_, recorder_, controllers::DefaultMethods(clock_, *simulator_),
        options);
  }

  bool Build(int nodes, int pods_per_node) {
    api::NodePool pool;
    pool.metadata.name = "default";
    pool.template_.spec.node_class_ref = {"karpenter.k8s.aws", "EC2NodeClass", "default"};
    pool.template_.spec.requirements = {
        {s::kLabelCapacityType, "In", {cloud::kCapacityTypeOnDemand}, std::nullopt},
        {"karpenter.k8s.aws/instance-family", "In", {"m5", "c5", "r5"}, std::nullopt}};
    pool.disruption.budgets = {api::Budget{.nodes = "100%"}};
    if (!cluster_.Create(pool).ok()) return false;
    int pod_id = 0;
    for (int i = 0; i < nodes; ++i) {
      const std::string name = "node-" + std::to_string(i);
      if (!AddNode(name, kNodeTypes[i % 3])) return false;
      // After the scale-in every other node keeps a third of its pods.
      const int keep = i % 2 == 0 ? pods_per_node : pods_per_node / 3;
      for (int p = 0; p < keep; ++p) {
        const PodShape& shape = kShapes[(pod_id + p) % 4];
        if (!AddPod("pod-" + std::to_string(pod_id + p), shape.cpu, shape.memory, name)) return false;
      }
      pod_id += pods_per_node;
    }
    return true;
  }

  // Runs one pass; applies its command. Returns the command's method, "" when there was none.
  std::string Step(double* seconds) {
    const auto start = Clock::now();
    auto decision = controller_->Decide();
    *seconds = Seconds(start);
    if (!decision.ok()) {
      std::fprintf(stderr, "decide failed: %s\n", decision.status().message().c_str());
      std::exit(2);
    }
    if (!decision->command) return "";
    Apply(*decision->command);
    return decision->command->method;
  }

  // Sum of the nodes' prices.
  double PricePerHour() const {
    double sum = 0;
    for (const auto& n : cluster_.List<api::Node>()) sum += NodePrice(n);
    return sum;
  }
  size_t Nodes() const { return cluster_.List<api::Node>().size(); }

  // The LP lower bound on new capacity for every running pod, and the price of the solver's own
  // plan for them on an empty cluster.
  std::pair<double, double> BoundAndFreshPlan() const {
    api::ObjectSet objects = cluster::Snapshot(cluster_);
    objects.nodes.clear();
    objects.node_claims.clear();
    for (auto& p : objects.pods) p.object.spec.node_name.clear();
    auto snapshot = solver::BuildSnapshot(std::move(objects), {}, cloud_instance_types(),
                                          s::WellKnownLabels());
    if (!snapshot.ok()) return {0, 0};
    solver::SchedulerOptions options;
    options.compute_lower_bound = true;
    auto results = solver::Solve(*snapshot, options);
    if (!results.ok()) return {0, 0};
    return {results->lower_bound_per_hour, results->price_per_hour};
  }

 private:
  cloud::InstanceTypes cloud_instance_types() const {
    cloud::InstanceTypes out;
    for (const auto& [name, t] : types_) out.push_back(t);
    return out;
  }

  double NodePrice(const api::Node& n) const {
    auto label = [&](const char* k) {
      auto it = n.metadata.labels.find(k);
      return it == n.metadata.labels.end() ? std::string() : it->second;
    };
    auto t = types_.find(label(s::kLabelInstanceTypeStable));
    if (t == types_.end()) return 0;
    for (const auto& o : t->second->offerings) {
      if (o.zone == label(s::kLabelTopologyZone) && o.capacity_type == label(s::kLabelCapacityType)) {
        return o.price;
      }
    }
    return 0;
  }

  bool AddNode(const std::string& name, const std::string& type_name, std::string zone = "",
               std::string capacity_type = cloud::kCapacityTypeOnDemand) {
    auto t = types_.find(type_name);
    if (t == types_.end()) {
      std::fprintf(stderr, "no instance type %s in the catalog\n", type_name.c_str());
      return false;
    }
    const cloud::InstanceType& type = *t->second;
    if (zone.empty()) {
      for (const auto& o : type.offerings) {
        if (o.capacity_type == capacity_type) {
          zone = o.zone;
          break;
        }
      }
    }
    api::NodeClaim c;
    c.metadata.name = "nc-" + name;
    c.metadata.labels = {{s::kLabelNodePool, "default"}};
    c.status.provider_id = "aws:///" + zone + "/i-" + name;
    c.status.node_name = name;
    c.status.conditions = {{controllers::kConditionLaunched, "True", "", "", clock_.Now()},
                           {controllers::kConditionRegistered, "True", "", "", clock_.Now()},
                           {controllers::kConditionInitialized, "True", "", "", clock_.Now()}};
    if (!cluster_.Create(c).ok()) return false;
    api::Node n;
    n.metadata.name = name;
    n.metadata.labels = type.requirements.SingleValuedLabels();
    n.metadata.labels[s::kLabelNodePool] = "default";
    n.metadata.labels[s::kLabelTopologyZone] = zone;
    n.metadata.labels[s::kLabelCapacityType] = capacity_type;
    n.metadata.labels[s::kLabelHostname] = name;
    n.metadata.labels[s::kLabelNodeRegistered] = "true";  // as the lifecycle controller leaves it
    n.metadata.labels[s::kLabelNodeInitialized] = "true";
    n.spec.provider_id = c.status.provider_id;
    n.status.capacity = type.capacity;
    n.status.allocatable = type.allocatable;
    n.status.conditions = {{"Ready", "True", "", "", clock_.Now()}};
    return cluster_.Create(n).ok();
  }

  bool AddPod(const std::string& name, const std::string& cpu, const std::string& memory,
              const std::string& node) {
    api::Pod p;
    p.metadata.name = name;
    p.metadata.namespace_ = "default";
    api::Container c;
    c.name = "app";
    c.resources.requests = {{"cpu", api::Quantity::MustParse(cpu)},
                            {"memory", api::Quantity::MustParse(memory)}};
    p.spec.containers.push_back(c);
    p.status.phase = "Running";
    if (!cluster_.Create(p).ok()) return false;
    return cluster_.Bind("default", name, node).ok();
  }

  // What executing the command amounts to once it has run its course: replacements are up, the
  // candidates' pods run where the simulation put them, the candidates are gone.
  void Apply(const controllers::Command& command) {
    simulator_->Reset();
    auto sim = simulator_->Simulate(command.candidates);
    if (!sim.ok() || !sim->AllCandidatePodsScheduled()) {
      std::fprintf(stderr, "the command's simulation no longer holds\n");
      std::exit(2);
    }
    std::map<std::string, std::string> destination;  // pod key -> node
    for (const auto& e : sim->results.existing_nodes) {
      for (const auto& p : e.pods) destination[p] = e.name;
    }
    for (const auto& r : sim->replacements) {
      const std::string name = "repl-" + std::to_string(next_node_++);
      AddNode(name, r.launch.instance_type, r.launch.zone, r.launch.capacity_type);
      for (const auto& p : r.pods) destination[p] = name;
    }
    for (const auto& c : command.candidates) {
      (void)cluster_.Delete<api::NodeClaim>("", c.node_claim.metadata.name);
      (void)cluster_.Delete<api::Node>("", c.name());
    }
    for (const auto& [key, node] : destination) {
      const auto slash = key.find('/');
      const std::string ns = key.substr(0, slash), name = key.substr(slash + 1);
      auto pod = cluster_.Get<api::Pod>(ns, name);
      if (!pod.ok()) continue;
      api::Pod moved = *pod;
      (void)cluster_.Delete<api::Pod>(ns, name);
      moved.metadata.resource_version.clear();
      moved.metadata.uid.clear();
      moved.spec.node_name.clear();
      if (!cluster_.Create(moved).ok() || !cluster_.Bind(ns, name, node).ok()) {
        std::fprintf(stderr, "could not move pod %s to %s\n", key.c_str(), node.c_str());
        std::exit(2);
      }
    }
  }

  core::FakeClock clock_;
  cluster::MemoryCluster cluster_;
  cloud::sim::SimulatedCloud cloud_;
  runtime::RecordingEventRecorder recorder_;
  std::map<std::string, cloud::InstanceTypePtr> types_;
  std::shared_ptr<controllers::SchedulingSimulator> simulator_;
  std::unique_ptr<controllers::DisruptionController> controller_;
  int next_node_ = 0;
};

int Run(int argc, char** argv) {
  int nodes = 1000, pods_per_node = 30, max_passes = 200;
  bool check = false;
  for (int i = 1; i < argc; ++i) {
    const std::string arg = argv[i];
    const bool has_value = i + 1 < argc;
    if (arg == "--nodes" && has_value) {
      nodes = std::stoi(argv[++i]);
    } else if (arg == "--pods-per-node" && has_value) {
      pods_per_node = std::stoi(argv[++i]);
    } else if (arg == "--max-passes" && has_value) {
      max_passes = std::stoi(argv[++i]);
    } else if (arg == "--check") {
      check = true;
    } else {
      std::fprintf(stderr,
                   "usage: consolidation_bench [--nodes N] [--pods-per-node K] [--max-passes P] "
                   "[--check]\n");
      return 64;
    }
  }
  auto catalog = cloud::LoadCatalog(cloud::CatalogSource::FromFlag("aws"));
  if (!catalog.ok()) {
    std::fprintf(stderr, "catalog: %s\n", catalog.status().message().c_str());
    return 2;
  }
  Bench bench(*std::move(catalog));
  auto start = Clock::now();
  if (!bench.Build(nodes, pods_per_node)) return 2;
  std::printf("cluster: %zu nodes, %d pods per node before the scale-in, built in %.2f s\n",
              bench.Nodes(), pods_per_node, Seconds(start));
  const double price_before = bench.PricePerHour();

  double first_decision_s = 0;
  const std::string first = bench.Step(&first_decision_s);
  std::printf("first decision: %s in %.3f s (target < 1 s)\n",
              first.empty() ? "nothing to do" : first.c_str(), first_decision_s);

  std::map<std::string, int> commands;
  if (!first.empty()) ++commands[first];
  double slowest = first_decision_s, total = first_decision_s;
  int passes = 1;
  for (std::string method = first; !method.empty() && passes < max_passes; ++passes) {
    double seconds = 0;
    method = bench.Step(&seconds);
    slowest = std::max(slowest, seconds);
    total += seconds;
    if (!method.empty()) ++commands[method];
  }
  const double price_after = bench.PricePerHour();
  const auto [bound, fresh] = bench.BoundAndFreshPlan();
  std::printf("fixed point after %d passes (decisions %.2f s in all, slowest %.3f s):", passes,
              total, slowest);
  for (const auto& [method, n] : commands) std::printf(" %s x%d", method.c_str(), n);
  std::printf("\nnodes %d -> %zu; price $%.3f/h -> $%.3f/h\n", nodes, bench.Nodes(), price_before,
              price_after);
  std::printf("LP lower bound for the remaining pods $%.3f/h (consolidated cluster %.1f%% above); "
              "a fresh plan for them $%.3f/h\n",
              bound, bound > 0 ? 100.0 * (price_after / bound - 1) : 0.0, fresh);
  if (check) {
    if (first.empty() || !(price_after < price_before) || price_after + 1e-6 < bound) {
      std::fprintf(stderr, "CHECK FAILED\n");
      return 1;
    }
  }
  return 0;
}

}  // namespace
}  // namespace nodesmith::bench

int main(int argc, char** argv) { return nodesmith::bench::Run(argc, argv); }
