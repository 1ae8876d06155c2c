// A small world for controller tests: a FakeClock, a MemoryCluster, a SimulatedCloud with a
// two-type catalog, a RecordingEventRecorder, and builders for the objects tests need.
// Header-only; used by the *_test.cc files under src/controllers/.
#pragma once

#include <climits>
#include <functional>
#include <map>
#include <string>
#include <vector>

#include <gtest/gtest.h>

#include "api/ec2nodeclass.h"
#include "api/node.h"
#include "api/nodeclaim.h"
#include "api/nodepool.h"
#include "api/pod.h"
#include "cloud/catalog.h"
#include "cloud/instance_type.h"
#include "cloud/sim/simulated_cloud.h"
#include "cluster/memory_cluster.h"
#include "controllers/common/karpenter.h"
#include "controllers/disruption/budgets.h"
#include "controllers/disruption/candidates.h"
#include "controllers/disruption/disruption_controller.h"
#include "controllers/disruption/simulation.h"
#include "controllers/disruption/types.h"
#include "core/clock.h"
#include "runtime/event_recorder.h"
#include "scheduling/requirements.h"
#include "scheduling/taints.h"
#include "scheduling/well_known_labels.h"

namespace nodesmith::controllers::testing {

inline const core::Time kStart = core::Time::FromUnixSeconds(1735689600);  // 2025-01-01T00:00:00Z

inline cloud::InstanceTypePtr Type(std::string name, std::string cpu, double spot, double od) {
  namespace s = scheduling;
  cloud::Overhead overhead;
  overhead.kube_reserved = {{"cpu", api::Quantity::MustParse("100m")}};
  std::vector<cloud::Offering> offerings = {
      {"zone-a", cloud::kCapacityTypeSpot, spot, true, {}},
      {"zone-a", cloud::kCapacityTypeOnDemand, od, true, {}},
  };
  return cloud::NewInstanceType(
      std::move(name),
      s::Requirements::FromLabels({{s::kLabelArchStable, "amd64"}, {s::kLabelOSStable, "linux"}}),
      {{"cpu", api::Quantity::MustParse(cpu)},
       {"memory", api::Quantity::MustParse("16Gi")},
       {"pods", api::Quantity::MustParse("110")}},
      overhead, std::move(offerings));
}

// small: 2 cpu (1.9 allocatable), spot $0.03; large: 8 cpu, spot $0.12.
inline cloud::Catalog TestCatalog() {
  cloud::Catalog c;
  c.source = "test";
  c.region = "test-region";
  c.instance_types = {Type("large", "8", 0.12, 0.40), Type("small", "2", 0.03, 0.10)};
  return c;
}

inline api::NodePool Pool(std::string name = "default") {
  api::NodePool p;
  p.metadata.name = std::move(name);
  p.template_.spec.node_class_ref = {"karpenter.k8s.aws", "EC2NodeClass", "default"};
  p.template_.spec.requirements = {
      {scheduling::kLabelCapacityType, "In", {cloud::kCapacityTypeSpot}, std::nullopt}};
  return p;
}

// The EC2NodeClass Pool() refers to, Ready as the AWS provider leaves one whose selectors
// resolve: NodePools that use it may launch.
inline api::EC2NodeClass ReadyNodeClass(std::string name = "default") {
  api::EC2NodeClass c;
  c.metadata.name = std::move(name);
  c.conditions = {{"Ready", "True", "Ready", "", kStart}};
  return c;
}

inline api::Pod PendingPod(std::string name, std::string cpu = "1") {
  api::Pod p;
  p.metadata.name = std::move(name);
  p.metadata.namespace_ = "default";
  api::Container c;
  c.name = "app";
  c.resources.requests = {{"cpu", api::Quantity::MustParse(cpu)}};
  p.spec.containers.push_back(c);
  p.status.phase = "Pending";
  return p;
}

// One pass of `method` as the DisruptionController runs it, without acting: the candidates it
// accepts (blocked ones only when it is forceful), in disruption-cost order, under the budgets
// for its reason (none for a forceful method), and the commands it computes. A failure is a
// test failure and gives no commands.
inline std::vector<Command> ComputeCommandsOf(Method& method, const core::Clock& clock,
                                              const cluster::ClusterApi& cluster,
                                              const cloud::CloudProvider& cloud) {
  std::vector<Candidate> eligible;
  BudgetMapping budgets;
  for (Candidate& c : BuildCandidates(clock, cluster, cloud)) {
    if (!method.Forceful() && !c.blocked.empty()) continue;
    if (!method.ShouldDisrupt(c)) continue;
    if (method.Forceful()) budgets[c.node_pool_name()] = INT_MAX;
    eligible.push_back(std::move(c));
  }
  if (!method.Forceful()) budgets = BuildBudgetMapping(cluster, method.Reason(), clock.Now());
  auto commands = method.ComputeCommands(budgets, eligible);
  EXPECT_TRUE(commands.ok()) << commands.status().message();
  return commands.ok() ? *commands : std::vector<Command>{};
}

// A cluster that passes every call to another; tests derive from it to change one call.
class ForwardingCluster : public cluster::ClusterApi {
 public:
  explicit ForwardingCluster(cluster::ClusterApi& inner) : inner_(inner) {}
  core::Result<cluster::Object> GetObject(cluster::Kind kind, const std::string& ns,
                                          const std::string& name) const override {
    return inner_.GetObject(kind, ns, name);
  }
  std::vector<cluster::Object> ListObjects(cluster::Kind kind) const override {
    return inner_.ListObjects(kind);
  }
  void ForEachObject(cluster::Kind kind,
                     const std::function<void(const cluster::Object&)>& fn) const override {
    inner_.ForEachObject(kind, fn);
  }
  void ForEachPodOn(const std::string& node,
                    const std::function<void(const api::Pod&)>& fn) const override {
    inner_.ForEachPodOn(node, fn);
  }
  bool IndexesPodsByNode() const override { return inner_.IndexesPodsByNode(); }
  core::Result<cluster::Object> CreateObject(cluster::Object o) override {
    return inner_.CreateObject(std::move(o));
  }
  core::Result<cluster::Object> UpdateObject(cluster::Object o) override {
    return inner_.UpdateObject(std::move(o));
  }
  core::Status DeleteObject(cluster::Kind kind, const std::string& ns,
                            const std::string& name) override {
    return inner_.DeleteObject(kind, ns, name);
  }
  core::Status Bind(const std::string& ns, const std::string& pod, const std::string& node) override {
    return inner_.Bind(ns, pod, node);
  }
  core::Status Evict(const std::string& ns, const std::string& pod) override {
    return inner_.Evict(ns, pod);
  }
  void Watch(cluster::Kind kind, std::function<void(const cluster::WatchEvent&)> cb) override {
    inner_.Watch(kind, std::move(cb));
  }

 protected:
  void LookUpProviderId(cluster::Kind kind, const std::string& provider_id,
                        const std::function<void(const cluster::Object&)>& fn) const override {
    inner_.ForEachWithProviderId(kind, provider_id, fn);
  }

  cluster::ClusterApi& inner_;
};

// A cluster that counts the walks over every object of a kind (ForEachObject, ListObjects).
class WalkCountingCluster : public ForwardingCluster {
 public:
  WalkCountingCluster(cluster::ClusterApi& inner, bool indexes_pods_by_node = true)
      : ForwardingCluster(inner), indexes_(indexes_pods_by_node) {}
  void ForEachObject(cluster::Kind kind,
                     const std::function<void(const cluster::Object&)>& fn) const override {
    ++walks[kind];
    inner_.ForEachObject(kind, fn);
  }
  std::vector<cluster::Object> ListObjects(cluster::Kind kind) const override {
    ++walks[kind];
    return inner_.ListObjects(kind);
  }
  // Says the pods are indexed when asked to; ForEachPodOn and ForEachWithProviderId still
  // answer from the inner store, whose walks are not counted here.
  bool IndexesPodsByNode() const override { return indexes_; }

  mutable std::map<cluster::Kind, int> walks;

 private:
  bool indexes_;
};

// A cloud that passes every call to another; tests derive from it to change one call.
class ForwardingCloud : public cloud::CloudProvider {
 public:
  explicit ForwardingCloud(cloud::CloudProvider& inner) : inner_(inner) {}
  core::Result<api::NodeClaim> Create(const api::NodeClaim& c) override { return inner_.Create(c); }
  core::Status Delete(const api::NodeClaim& c) override { return inner_.Delete(c); }
  core::Result<api::NodeClaim> Get(const std::string& id) const override { return inner_.Get(id); }
  std::vector<api::NodeClaim> List() const override { return inner_.List(); }
  core::Result<cloud::InstanceTypes> GetInstanceTypes(const api::NodePool& p) const override {
    return inner_.GetInstanceTypes(p);
  }
  cloud::DriftReason IsDrifted(const api::NodeClaim& c) const override { return inner_.IsDrifted(c); }
  std::string Name() const override { return inner_.Name(); }

 private:
  cloud::CloudProvider& inner_;
};

class World {
 public:
  World() : clock(kStart), cluster(clock), cloud(clock, TestCatalog()) {}

  core::FakeClock clock;
  cluster::MemoryCluster cluster;
  cloud::sim::SimulatedCloud cloud;
  runtime::RecordingEventRecorder recorder;

  template <typename T>
  T MustCreate(T object) {
    auto r = cluster.Create(std::move(object));
    if (!r.ok()) ADD_FAILURE() << r.status().message();
    return r.ok() ? std::move(r).value() : T{};
  }
  template <typename T>
  T MustGet(const std::string& ns, const std::string& name) {
    auto r = cluster.Get<T>(ns, name);
    if (!r.ok()) ADD_FAILURE() << r.status().message();
    return r.ok() ? std::move(r).value() : T{};
  }

  // What the kubelet does: a Node for the NodeClaim's instance, unregistered-tainted, Ready
  // when `ready`.
  api::Node RegisterNode(const api::NodeClaim& claim, std::string name, bool ready = true) {
    api::Node n;
    n.metadata.name = std::move(name);
    n.spec.provider_id = claim.status.provider_id;
    n.spec.taints.push_back({scheduling::kTaintUnregistered, "", scheduling::kTaintEffectNoExecute});
    n.status.capacity = claim.status.capacity;
    n.status.allocatable = claim.status.allocatable;
    if (ready) n.status.conditions.push_back({"Ready", "True", "KubeletReady", "", clock.Now()});
    return MustCreate(std::move(n));
  }

  // An initialized, Ready managed node "ip-<id>" with its NodeClaim "<pool>-<id>", created now,
  // as the lifecycle controller leaves them: both carry the pool, instance type, zone and
  // capacity type labels. `edit` may change the NodeClaim before it is created (expireAfter,
  // extra conditions). Returns the NodeClaim as created.
  api::NodeClaim AddManagedNode(
      const std::string& id, const std::string& pool = "default",
      const std::string& instance_type = "small",
      const std::function<void(api::NodeClaim&)>& edit = nullptr) {
    namespace s = scheduling;
    const core::Time now = clock.Now();
    api::NodeClaim c;
    c.metadata.name = pool + "-" + id;
    c.metadata.labels = {{s::kLabelNodePool, pool},
                         {s::kLabelInstanceTypeStable, instance_type},
                         {s::kLabelTopologyZone, "zone-a"},
                         {s::kLabelCapacityType, "spot"}};
    c.metadata.finalizers = {kTerminationFinalizer};
    c.status.provider_id = "aws:///zone-a/i-" + id;
    c.status.node_name = "ip-" + id;
    c.status.conditions = {{kConditionLaunched, "True", "", "", now},
                           {kConditionRegistered, "True", "", "", now},
                           {kConditionInitialized, "True", "", "", now}};
    if (edit) edit(c);
    c = MustCreate(std::move(c));
    api::Node n;
    n.metadata.name = "ip-" + id;
    n.metadata.labels = c.metadata.labels;
    n.metadata.labels[s::kLabelNodeRegistered] = "true";
    n.metadata.labels[s::kLabelNodeInitialized] = "true";
    n.spec.provider_id = c.status.provider_id;
    n.status.conditions = {{"Ready", "True", "", "", now}};
    MustCreate(std::move(n));
    return c;
  }

  // Messages recorded so far, in order.
  std::vector<std::string> Messages() const {
    std::vector<std::string> out;
    for (const auto& e : recorder.events()) out.push_back(e.message);
    return out;
  }
  // The value of `key` among an event's fields ("" when absent).
  static std::string Field(const runtime::RecordedEvent& e, const std::string& key) {
    for (const auto& [k, v] : e.fields) {
      if (k == key) return v;
    }
    return "";
  }
};

// What a DisruptionController over `world` with the default methods would do now (Decide():
// one pass, without acting).
inline core::Result<Decision> DecideWithDefaultMethods(World& world) {
  auto simulator = std::make_shared<SchedulingSimulator>(world.cluster, world.cloud);
  DisruptionOptions options;
  options.simulator = simulator;
  DisruptionController controller(world.clock, world.cluster, world.cloud, world.recorder,
                                  DefaultMethods(world.clock, *simulator), options);
  return controller.Decide();
}

}  // namespace nodesmith::controllers::testing
