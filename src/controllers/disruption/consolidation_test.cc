// Multi-node and single-node consolidation as a specification: given a cluster, which nodes the
// methods would delete or replace, and by what.
#include <gmock/gmock.h>
#include <gtest/gtest.h>

#include <memory>
#include <string>
#include <vector>

#include "controllers/disruption/budgets.h"
#include "controllers/disruption/candidates.h"
#include "controllers/disruption/consolidation.h"
#include "controllers/disruption/multi_node_consolidation.h"
#include "controllers/disruption/simulation.h"
#include "controllers/disruption/single_node_consolidation.h"
#include "controllers/testing/fixtures.h"

namespace nodesmith::controllers {
namespace {

using std::chrono::seconds;
using ::testing::ElementsAre;
using ::testing::IsEmpty;
using ::testing::SizeIs;
namespace s = scheduling;

// small: 2 cpu, spot $0.03 / on-demand $0.10; medium: 4 cpu, $0.06 / $0.20; large: 8 cpu,
// $0.12 / $0.40. All in zone-a.
cloud::Catalog ThreeSizes() {
  cloud::Catalog c;
  c.source = "test";
  c.instance_types = {testing::Type("large", "8", 0.12, 0.40),
                      testing::Type("medium", "4", 0.06, 0.20),
                      testing::Type("small", "2", 0.03, 0.10)};
  return c;
}

// ThreeSizes plus `n` two-cpu spot types cheaper than large ("cheap-00" at $0.050 rising by
// $0.001): enough, for n >= 15, to replace a large spot node spot-to-spot.
cloud::Catalog WithCheapSpotTypes(int n) {
  cloud::Catalog c = ThreeSizes();
  for (int i = 0; i < n; ++i) {
    const std::string name = std::string("cheap-") + (i < 10 ? "0" : "") + std::to_string(i);
    c.instance_types.push_back(testing::Type(name, "2", 0.050 + 0.001 * i, 0.30));
  }
  cloud::SortByName(c.instance_types);
  return c;
}

class ConsolidationTest : public ::testing::Test {
 protected:
  ConsolidationTest() : cluster_(clock_) { UseCatalog(ThreeSizes()); }

  void UseCatalog(cloud::Catalog catalog) {
    methods_.clear();
    simulator_.reset();
    cloud_ = std::make_unique<cloud::sim::SimulatedCloud>(clock_, std::move(catalog));
    simulator_ = std::make_unique<SchedulingSimulator>(cluster_, *cloud_);
  }

  // A NodePool launching `capacity_types`, consolidating WhenEmptyOrUnderutilized after 0s, its
  // budget allowing every node to be disrupted at once (Karpenter's default, 10%, would allow
  // one of these tests' few nodes).
  void AddPool(std::vector<std::string> capacity_types, std::string name = "default") {
    api::NodePool p = testing::Pool(std::move(name));
    p.disruption.budgets = {api::Budget{.nodes = "100%"}};
    p.template_.spec.requirements = {
        {s::kLabelCapacityType, "In", std::move(capacity_types), std::nullopt}};
    MustCreate(p);
  }
  void UpdatePool(const std::function<void(api::NodePool&)>& fn, const std::string& name = "default") {
    auto p = cluster_.Get<api::NodePool>("", name);
    ASSERT_TRUE(p.ok());
    fn(*p);
    ASSERT_TRUE(cluster_.Update(*p).ok());
  }

  // An initialized, Ready node `name` of `type`, with NodeClaim nc-<name>.
  void AddNode(const std::string& name, const std::string& type, const std::string& capacity_type,
               const std::string& pool = "default", api::Labels extra_labels = {}) {
    cloud::InstanceTypePtr it;
    auto types = cloud_->GetInstanceTypes(api::NodePool{});
    ASSERT_TRUE(types.ok());
    for (const auto& t : *types) {
      if (t->name == type) it = t;
    }
    api::NodeClaim c;
    c.metadata.name = "nc-" + name;
    c.metadata.labels = {{s::kLabelNodePool, pool}};
    c.metadata.finalizers = {kTerminationFinalizer};
    c.status.provider_id = "aws:///zone-a/i-" + name;
    c.status.node_name = name;
    c.status.conditions = {{kConditionLaunched, "True", "", "", clock_.Now()},
                           {kConditionRegistered, "True", "", "", clock_.Now()},
                           {kConditionInitialized, "True", "", "", clock_.Now()}};
    MustCreate(c);
    api::Node n;
    n.metadata.name = name;
    n.metadata.labels = {{s::kLabelNodePool, pool},
                         {s::kLabelInstanceTypeStable, type},
                         {s::kLabelTopologyZone, "zone-a"},
                         {s::kLabelCapacityType, capacity_type},
                         {s::kLabelHostname, name},
                         {s::kLabelArchStable, "amd64"},
                         {s::kLabelOSStable, "linux"},
                         {s::kLabelNodeRegistered, "true"},
                         {s::kLabelNodeInitialized, "true"}};
    for (const auto& [k, v] : extra_labels) n.metadata.labels[k] = v;
    n.spec.provider_id = c.status.provider_id;
    if (it) {
      n.status.capacity = it->capacity;
      n.status.allocatable = it->allocatable;
    } else {  // a type the cloud no longer offers
      n.status.capacity = {{"cpu", api::Quantity::MustParse("2")},
                           {"pods", api::Quantity::MustParse("110")}};
      n.status.allocatable = n.status.capacity;
    }
    n.status.conditions = {{"Ready", "True", "", "", clock_.Now()}};
    MustCreate(n);
  }

  // Pools a (a-1 pinned by its pod, a-2 with two pods, host with four) and b (b-1 with three);
  // single-node consolidation tries a-1, then b-1, then a-2, and only a-2 and b-1 can go.
  void AddTwoPoolsTakingTurns() {
    AddPool({"on-demand"}, "a");
    AddPool({"on-demand"}, "b");
    AddNode("a-1", "large", "on-demand", "a", {{"example.com/pinned", "a-1"}});
    AddNode("a-2", "large", "on-demand", "a");
    AddNode("b-1", "medium", "on-demand", "b");
    AddNode("host", "large", "on-demand", "a");
    for (int i = 0; i < 4; ++i) BindPod("host-" + std::to_string(i), "host");
    BindPod("stuck", "a-1", "1",
            [](api::Pod& p) { p.spec.node_selector["example.com/pinned"] = "a-1"; });
    BindPod("a-2-0", "a-2");
    BindPod("a-2-1", "a-2");
    for (int i = 0; i < 3; ++i) BindPod("b-1-" + std::to_string(i), "b-1");
  }

  // a and b (one small pod each) fit one small node together; c's pods (1.8 cpu) do not fit
  // with them on anything cheaper than the three nodes.
  void AddTwoNodesThatMergeAndOneThatDoesNot() {
    AddPool({"on-demand"});
    AddNode("a", "medium", "on-demand");
    AddNode("b", "medium", "on-demand");
    AddNode("c", "small", "on-demand");
    BindPod("web-a", "a", "900m");
    BindPod("web-b", "b", "900m");
    BindPod("big-1", "c", "1");
    BindPod("big-2", "c", "800m");
  }

  api::Pod BindPod(const std::string& name, const std::string& node, const std::string& cpu = "1",
                   const std::function<void(api::Pod&)>& edit = nullptr) {
    api::Pod p = testing::PendingPod(name, cpu);
    if (edit) edit(p);
    MustCreate(p);
    EXPECT_TRUE(cluster_.Bind("default", name, node).ok());
    return p;
  }

  template <typename T>
  void MustCreate(T object) {
    auto r = cluster_.Create(std::move(object));
    ASSERT_TRUE(r.ok()) << r.status().message();
  }

  // One pass of `method` as the disruption controller runs it: candidates it accepts, in
  // disruption-cost order, under the Underutilized budgets.
  std::vector<Command> Run(Method& method) {
    simulator_->Reset();
    return testing::ComputeCommandsOf(method, clock_, cluster_, *cloud_);
  }
  std::vector<Command> RunMulti() {
    MultiNodeConsolidation m(clock_, *simulator_, options_);
    return Run(m);
  }
  std::vector<Command> RunSingle() {
    SingleNodeConsolidation m(clock_, *simulator_, options_);
    return Run(m);
  }
  // Whether the methods would consider the node at all.
  bool Considered(const std::string& node) {
    SingleNodeConsolidation m(clock_, *simulator_, options_);
    for (const Candidate& c : BuildCandidates(clock_, cluster_, *cloud_)) {
      if (c.name() == node) return m.ShouldDisrupt(c);
    }
    ADD_FAILURE() << node << " is not a candidate";
    return false;
  }

  static std::vector<std::string> Nodes(const Command& c) {
    std::vector<std::string> out;
    for (const auto& cand : c.candidates) out.push_back(cand.name());
    return out;
  }

  core::FakeClock clock_{testing::kStart};
  cluster::MemoryCluster cluster_;
  std::unique_ptr<cloud::sim::SimulatedCloud> cloud_;
  std::unique_ptr<SchedulingSimulator> simulator_;
  std::vector<std::unique_ptr<Method>> methods_;
  MethodOptions options_;
};

TEST_F(ConsolidationTest, MethodsAreNamedAsKarpentersAndCountAgainstUnderutilized) {
  MultiNodeConsolidation multi(clock_, *simulator_, options_);
  SingleNodeConsolidation single(clock_, *simulator_, options_);
  EXPECT_EQ(multi.Name(), "multi-node");
  EXPECT_EQ(multi.ConsolidationType(), "multi");
  EXPECT_EQ(single.Name(), "single-node");
  EXPECT_EQ(single.ConsolidationType(), "single");
  EXPECT_EQ(multi.Reason(), "Underutilized");
  EXPECT_EQ(single.Reason(), "Underutilized");
}

TEST_F(ConsolidationTest, AnUnderutilisedNodeIsDeletedWhenItsPodsFitElsewhere) {
  AddPool({"on-demand"});
  AddNode("busy", "large", "on-demand");
  AddNode("idle", "large", "on-demand");
  for (int i = 0; i < 5; ++i) BindPod("busy-" + std::to_string(i), "busy");
  BindPod("lonely", "idle");

  auto commands = RunSingle();
  ASSERT_THAT(commands, SizeIs(1));
  EXPECT_EQ(commands[0].method, "single-node");
  EXPECT_EQ(commands[0].reason, "Underutilized");
  EXPECT_THAT(Nodes(commands[0]), ElementsAre("idle"));  // fewest pods: the best savings ratio
  EXPECT_THAT(commands[0].replacements, IsEmpty());
  EXPECT_DOUBLE_EQ(commands[0].savings_per_hour, 0.40);
}

TEST_F(ConsolidationTest, SingleNodeTriesTheHighestSavingsRatioFirst) {
  // Savings ratio = price / (1 + the pods' eviction costs): big $0.40 / 3, host $0.40 / 6,
  // little $0.10 / 2. big's two pods fit in host's free 3 cpu, and so would little's one; big
  // saves the most per pod moved, though little has the lowest disruption cost.
  AddPool({"on-demand"});
  AddNode("big", "large", "on-demand");
  AddNode("host", "large", "on-demand");
  AddNode("little", "small", "on-demand");
  for (int i = 0; i < 5; ++i) BindPod("host-" + std::to_string(i), "host");
  BindPod("big-0", "big");
  BindPod("big-1", "big");
  BindPod("little-0", "little");

  auto commands = RunSingle();
  ASSERT_THAT(commands, SizeIs(1));
  EXPECT_THAT(Nodes(commands[0]), ElementsAre("big"));
  EXPECT_THAT(commands[0].replacements, IsEmpty());
}

TEST_F(ConsolidationTest, SingleNodeLetsNodePoolsTakeTurns) {
  // Pool "a" has the two best ratios (a-1 $0.40 / 2, a-2 $0.40 / 3), pool "b" the worst (b-1
  // $0.20 / 4), yet b's node is tried second. Only a-2 and b-1 can go, so b's turn decides; by
  // ratio alone, or by disruption cost, a-2 would go.
  AddTwoPoolsTakingTurns();

  auto commands = RunSingle();
  ASSERT_THAT(commands, SizeIs(1));
  EXPECT_THAT(Nodes(commands[0]), ElementsAre("b-1"));
}

TEST_F(ConsolidationTest, SingleNodeGoesOnWhereASpentPassStopped) {
  // a-1 is tried first and cannot go, b-1 can. A pass whose share of simulation is spent after
  // one question stops before b-1 and says so; the next pass does not ask about a-1 again but
  // goes on with b-1.
  AddTwoPoolsTakingTurns();

  SingleNodeConsolidation single(clock_, *simulator_, options_);
  auto pass = [&] {
    simulator_->Reset(/*work_limit=*/1);
    return testing::ComputeCommandsOf(single, clock_, cluster_, *cloud_);
  };
  const int before = simulator_->solves();
  EXPECT_THAT(pass(), IsEmpty());
  EXPECT_TRUE(single.Unfinished());
  EXPECT_EQ(simulator_->solves(), before + 1) << "one question per spent pass";

  auto commands = pass();
  EXPECT_FALSE(single.Unfinished());
  EXPECT_EQ(simulator_->solves(), before + 2) << "a-1 is not asked about again";
  ASSERT_THAT(commands, SizeIs(1));
  EXPECT_THAT(Nodes(commands[0]), ElementsAre("b-1"));
}

TEST_F(ConsolidationTest, SingleNodeStartsARoundAgainOnceEveryCandidateWasTried) {
  // Neither node can go (each one's pod is pinned to it): two spent passes try one each, the
  // round is over, and the third pass starts again from the first.
  AddPool({"on-demand"});
  for (const std::string name : {"x", "y"}) {
    AddNode(name, "large", "on-demand", "default", {{"example.com/pinned", name}});
    BindPod("pod-" + name, name, "1",
            [&](api::Pod& p) { p.spec.node_selector["example.com/pinned"] = name; });
  }
  SingleNodeConsolidation single(clock_, *simulator_, options_);
  auto pass = [&] {
    simulator_->Reset(/*work_limit=*/1);
    return testing::ComputeCommandsOf(single, clock_, cluster_, *cloud_);
  };
  const int before = simulator_->solves();
  EXPECT_THAT(pass(), IsEmpty());
  EXPECT_TRUE(single.Unfinished());
  EXPECT_THAT(pass(), IsEmpty());
  EXPECT_FALSE(single.Unfinished()) << "every candidate tried: the round is over";
  EXPECT_THAT(pass(), IsEmpty());
  EXPECT_TRUE(single.Unfinished()) << "a new round";
  EXPECT_EQ(simulator_->solves(), before + 3);
}

TEST_F(ConsolidationTest, AnUnboundedPassTriesEveryCandidate) {
  AddPool({"on-demand"});
  for (const std::string name : {"x", "y", "z"}) {
    AddNode(name, "large", "on-demand", "default", {{"example.com/pinned", name}});
    BindPod("pod-" + name, name, "1",
            [&](api::Pod& p) { p.spec.node_selector["example.com/pinned"] = name; });
  }
  SingleNodeConsolidation single(clock_, *simulator_, options_);
  const int before = simulator_->solves();
  EXPECT_THAT(Run(single), IsEmpty());
  EXPECT_FALSE(single.Unfinished());
  EXPECT_EQ(simulator_->solves(), before + 3);
}

TEST_F(ConsolidationTest, ACandidatesPodMayNotRelyOnCapacityStillComingUp) {
  // The only room for "lonely" is a large NodeClaim still launching: if it never came up the pod
  // would have nowhere to go (helpers.go SimulateScheduling, UninitializedNodeError).
  AddPool({"on-demand"});
  AddNode("idle", "medium", "on-demand");
  BindPod("lonely", "idle");
  api::NodeClaim coming;
  coming.metadata.name = "nc-coming";
  coming.metadata.labels = {{s::kLabelNodePool, "default"}};
  coming.spec.requirements = {{s::kLabelInstanceTypeStable, "In", {"large"}, std::nullopt}};
  MustCreate(coming);
  EXPECT_THAT(RunSingle(), IsEmpty());
  EXPECT_THAT(RunMulti(), IsEmpty());
}

TEST_F(ConsolidationTest, ANodeClaimThatPendingPodsNeedCountsAsAReplacement) {
  // Deleting "idle" works only if the pending pod gets a node too: two new NodeClaims (the
  // pending pod's and lonely's, which cannot share: one host port), so no command
  // (consolidation.go computeConsolidation counts every NodeClaim of the simulation).
  AddPool({"on-demand"});
  AddNode("idle", "large", "on-demand");
  auto with_port = [](api::Pod& p) { p.spec.containers[0].ports.push_back({"http", 8080, 80, "TCP", ""}); };
  BindPod("lonely", "idle", "1", with_port);
  api::Pod waiting = testing::PendingPod("waiting", "1");
  with_port(waiting);
  MustCreate(waiting);
  EXPECT_THAT(RunSingle(), IsEmpty());
}

TEST_F(ConsolidationTest, MultiNodeWillNotReplaceNodesByOneOfTheirOwnTypeAtTheSamePrice) {
  // Both large nodes' six pods fit one new large node: that is just deleting one of them with
  // more pods moved, which single-node consolidation does instead.
  AddPool({"on-demand"});
  AddNode("busy", "large", "on-demand");
  AddNode("idle", "large", "on-demand");
  for (int i = 0; i < 5; ++i) BindPod("busy-" + std::to_string(i), "busy");
  BindPod("lonely", "idle");
  EXPECT_THAT(RunMulti(), IsEmpty());
}

TEST_F(ConsolidationTest, MultiNodeSameTypeRuleSeesOptionsWithoutSpotOfferings) {
  // Two on-demand mediums ($0.20 each, no spot capacity) whose pods fit on one of them. Replacing
  // both by a spot large ($0.25) is no cheaper than a medium, one of the candidates' own types, so
  // multi-node consolidation declines (filterOutSameInstanceType sees medium among the options
  // before the launch is narrowed to spot); single-node deletes one medium instead.
  cloud::Catalog c = ThreeSizes();
  c.instance_types = {testing::Type("large", "8", 0.25, 0.40), testing::Type("small", "2", 0.03, 0.10)};
  auto medium = std::make_shared<cloud::InstanceType>(*testing::Type("medium", "4", 0.06, 0.20));
  for (auto& o : medium->offerings) o.available = o.capacity_type != cloud::kCapacityTypeSpot;
  c.instance_types.push_back(medium);
  cloud::SortByName(c.instance_types);
  UseCatalog(c);
  AddPool({"on-demand", "spot"});
  AddNode("a", "medium", "on-demand");
  AddNode("b", "medium", "on-demand");
  BindPod("web-a", "a", "1500m");
  BindPod("web-b", "b", "1500m");

  EXPECT_THAT(RunMulti(), IsEmpty());
  auto single = RunSingle();
  ASSERT_THAT(single, SizeIs(1));
  EXPECT_THAT(single[0].replacements, IsEmpty());
  EXPECT_DOUBLE_EQ(single[0].savings_per_hour, 0.20);
}

TEST_F(ConsolidationTest, TwoHalfEmptyNodesAreReplacedByOneCheaperNode) {
  AddPool({"on-demand"});
  AddNode("a", "medium", "on-demand");
  AddNode("b", "medium", "on-demand");
  BindPod("web-a", "a", "900m");
  BindPod("web-b", "b", "900m");

  auto commands = RunMulti();
  ASSERT_THAT(commands, SizeIs(1));
  const Command& c = commands[0];
  EXPECT_EQ(c.method, "multi-node");
  EXPECT_THAT(Nodes(c), ElementsAre("a", "b"));
  ASSERT_THAT(c.replacements, SizeIs(1));
  // medium is a candidate's own type at no lower price, large is no cheaper than both.
  EXPECT_THAT(c.replacements[0].instance_type_options, ElementsAre("small"));
  EXPECT_EQ(c.replacements[0].launch.instance_type, "small");
  EXPECT_EQ(c.replacements[0].launch.capacity_type, "on-demand");
  EXPECT_THAT(c.replacements[0].pods, ElementsAre("default/web-a", "default/web-b"));
  EXPECT_NEAR(c.savings_per_hour, 0.40 - 0.10, 1e-9);
}

TEST_F(ConsolidationTest, MultiNodeTakesTheLongestPrefixThatConsolidates) {
  AddTwoNodesThatMergeAndOneThatDoesNot();

  auto commands = RunMulti();
  ASSERT_THAT(commands, SizeIs(1));
  EXPECT_THAT(Nodes(commands[0]), ElementsAre("a", "b"));
  ASSERT_THAT(commands[0].replacements, SizeIs(1));
  EXPECT_EQ(commands[0].replacements[0].launch.instance_type, "small");
}

TEST_F(ConsolidationTest, MultiNodeKeepsTheBestCommandFoundWhenThePassIsSpent) {
  // The search's first question (a and b) already consolidates; a pass spent after it ends the
  // search with that command, as Karpenter's returns its last valid command at its timeout.
  AddTwoNodesThatMergeAndOneThatDoesNot();

  MultiNodeConsolidation multi(clock_, *simulator_, options_);
  simulator_->Reset(/*work_limit=*/1);
  const int before = simulator_->solves();
  auto commands = testing::ComputeCommandsOf(multi, clock_, cluster_, *cloud_);
  EXPECT_EQ(simulator_->solves(), before + 1);
  ASSERT_THAT(commands, SizeIs(1));
  EXPECT_THAT(Nodes(commands[0]), ElementsAre("a", "b"));
  EXPECT_TRUE(multi.CutShort()) << "a, b and c was not asked";

  simulator_->Reset();
  testing::ComputeCommandsOf(multi, clock_, cluster_, *cloud_);
  EXPECT_FALSE(multi.CutShort()) << "an unbounded search asks until it is done";
}

TEST_F(ConsolidationTest, SingleNodeReplacesALargeNodeByACheaperSmallOne) {
  AddPool({"on-demand"});
  AddNode("big", "large", "on-demand");
  BindPod("web", "big", "1");

  EXPECT_THAT(RunMulti(), IsEmpty());  // one node: single-node's business
  auto commands = RunSingle();
  ASSERT_THAT(commands, SizeIs(1));
  const Command& c = commands[0];
  EXPECT_THAT(Nodes(c), ElementsAre("big"));
  ASSERT_THAT(c.replacements, SizeIs(1));
  EXPECT_THAT(c.replacements[0].instance_type_options, ElementsAre("small", "medium"));
  EXPECT_EQ(c.replacements[0].launch.instance_type, "small");
  EXPECT_DOUBLE_EQ(c.replacements[0].launch.price_per_hour, 0.10);
  EXPECT_EQ(c.replacements[0].labels.at(s::kLabelInstanceTypeStable), "small");
  EXPECT_NEAR(c.savings_per_hour, 0.30, 1e-9);
}

TEST_F(ConsolidationTest, NothingHappensWithoutACheaperOption) {
  AddPool({"on-demand"});
  AddNode("tiny", "small", "on-demand");
  BindPod("web", "tiny", "1");
  EXPECT_THAT(RunSingle(), IsEmpty());
}

TEST_F(ConsolidationTest, SpotToSpotNeedsTheFeatureGate) {
  AddPool({"spot"});
  AddNode("big", "large", "spot");
  BindPod("web", "big", "1");
  EXPECT_THAT(RunSingle(), IsEmpty());
}

TEST_F(ConsolidationTest, SingleNodeSpotToSpotNeedsFifteenCheaperTypes) {
  options_.spot_to_spot_consolidation = true;
  UseCatalog(WithCheapSpotTypes(12));  // small, medium and 12 more: 14 cheaper types
  AddPool({"spot"});
  AddNode("big", "large", "spot");
  BindPod("web", "big", "1");
  EXPECT_THAT(RunSingle(), IsEmpty());
}

TEST_F(ConsolidationTest, SingleNodeSpotToSpotKeepsTheFifteenCheapestTypes) {
  options_.spot_to_spot_consolidation = true;
  UseCatalog(WithCheapSpotTypes(16));
  AddPool({"spot"});
  AddNode("big", "large", "spot");
  BindPod("web", "big", "1");

  auto commands = RunSingle();
  ASSERT_THAT(commands, SizeIs(1));
  const solver::NewNodeClaim& r = commands[0].replacements.at(0);
  ASSERT_THAT(r.instance_type_options, SizeIs(kMinInstanceTypesForSpotToSpot));
  EXPECT_EQ(r.instance_type_options.front(), "small");
  EXPECT_EQ(r.instance_type_options[1], "cheap-00");
  EXPECT_EQ(r.instance_type_options.back(), "cheap-12");  // small + cheap-00..12; medium is $0.06
  EXPECT_EQ(r.launch.capacity_type, "spot");
  EXPECT_NEAR(commands[0].savings_per_hour, 0.12 - 0.03, 1e-9);
}

TEST_F(ConsolidationTest, MultiNodeSpotToSpotNeedsOnlyTheGate) {
  AddPool({"spot"});
  AddNode("a", "medium", "spot");
  AddNode("b", "medium", "spot");
  BindPod("web-a", "a", "900m");
  BindPod("web-b", "b", "900m");
  EXPECT_THAT(RunMulti(), IsEmpty());

  options_.spot_to_spot_consolidation = true;
  auto commands = RunMulti();
  ASSERT_THAT(commands, SizeIs(1));
  EXPECT_THAT(commands[0].replacements.at(0).instance_type_options, ElementsAre("small"));
  EXPECT_NEAR(commands[0].savings_per_hour, 0.12 - 0.03, 1e-9);
}

TEST_F(ConsolidationTest, OnDemandIsReplacedBySpotWhenThePoolAllowsIt) {
  AddPool({"spot", "on-demand"});
  AddNode("big", "large", "on-demand");
  BindPod("web", "big", "1");

  auto commands = RunSingle();
  ASSERT_THAT(commands, SizeIs(1));
  const solver::NewNodeClaim& r = commands[0].replacements.at(0);
  EXPECT_EQ(r.launch.instance_type, "small");
  EXPECT_EQ(r.launch.capacity_type, "spot");
  // Priced as spot, so it must launch as spot: never fall back to a dearer on-demand node.
  const s::Requirement ct = r.requirements.Get(s::kLabelCapacityType);
  EXPECT_TRUE(ct.Has("spot"));
  EXPECT_FALSE(ct.Has("on-demand"));
  EXPECT_EQ(r.labels.at(s::kLabelCapacityType), "spot");
  EXPECT_NEAR(commands[0].savings_per_hour, 0.40 - 0.03, 1e-9);
}

TEST_F(ConsolidationTest, WhenEmptyPoolsAreNeverConsolidatedForUnderutilisation) {
  AddPool({"on-demand"});
  UpdatePool([](api::NodePool& p) { p.disruption.consolidation_policy = "WhenEmpty"; });
  AddNode("big", "large", "on-demand");
  BindPod("web", "big", "1");
  EXPECT_FALSE(Considered("big"));
  EXPECT_THAT(RunSingle(), IsEmpty());
}

TEST_F(ConsolidationTest, ConsolidateAfterMustHavePassedSinceTheLastActivity) {
  AddPool({"on-demand"});
  UpdatePool([](api::NodePool& p) { p.disruption.consolidate_after = core::NillableDuration{seconds(60)}; });
  AddNode("big", "large", "on-demand");
  BindPod("web", "big", "1");
  clock_.Step(seconds(59));
  EXPECT_FALSE(Considered("big"));
  EXPECT_THAT(RunSingle(), IsEmpty());
  clock_.Step(seconds(1));
  EXPECT_TRUE(Considered("big"));
  EXPECT_THAT(RunSingle(), SizeIs(1));

  UpdatePool([](api::NodePool& p) { p.disruption.consolidate_after = core::NillableDuration{}; });
  EXPECT_FALSE(Considered("big"));  // Never
}

TEST_F(ConsolidationTest, AZeroBudgetStopsBothMethods) {
  AddPool({"on-demand"});
  UpdatePool([](api::NodePool& p) { p.disruption.budgets = {api::Budget{.nodes = "0"}}; });
  AddNode("a", "medium", "on-demand");
  AddNode("b", "medium", "on-demand");
  BindPod("web-a", "a", "900m");
  BindPod("web-b", "b", "900m");
  EXPECT_THAT(RunMulti(), IsEmpty());
  EXPECT_THAT(RunSingle(), IsEmpty());
}

TEST_F(ConsolidationTest, MultiNodeTakesNoMoreCandidatesThanTheBudgetAllows) {
  AddPool({"on-demand"});
  AddNode("a", "medium", "on-demand");
  AddNode("b", "medium", "on-demand");
  AddNode("c", "medium", "on-demand");
  BindPod("web-a", "a", "500m");
  BindPod("web-b", "b", "500m");
  BindPod("web-c", "c", "500m");
  UpdatePool([](api::NodePool& p) { p.disruption.budgets = {api::Budget{.nodes = "2"}}; });
  auto commands = RunMulti();
  ASSERT_THAT(commands, SizeIs(1));
  EXPECT_THAT(Nodes(commands[0]), ElementsAre("a", "b"));

  // Single-node commands hold one node each: a budget of one lets every node be tried.
  UpdatePool([](api::NodePool& p) { p.disruption.budgets = {api::Budget{.nodes = "1"}}; });
  EXPECT_THAT(RunMulti(), IsEmpty());
  EXPECT_THAT(RunSingle(), SizeIs(1));
}

TEST_F(ConsolidationTest, BlockedAndUnpricedNodesAreNotConsidered) {
  AddPool({"on-demand"});
  AddNode("big", "large", "on-demand");
  BindPod("db", "big", "1", [](api::Pod& p) {
    p.metadata.annotations[std::string(kDoNotDisruptAnnotation)] = "true";
  });
  AddNode("gone", "retired", "on-demand");  // the cloud no longer sells it
  BindPod("web", "gone", "1");
  EXPECT_FALSE(Considered("big"));
  EXPECT_FALSE(Considered("gone"));
  EXPECT_THAT(RunSingle(), IsEmpty());
  EXPECT_THAT(RunMulti(), IsEmpty());
}

TEST_F(ConsolidationTest, EmptyNodesAreLeftToEmptiness) {
  AddPool({"on-demand"});
  AddNode("empty", "large", "on-demand");
  EXPECT_TRUE(Considered("empty"));
  EXPECT_THAT(RunSingle(), IsEmpty());
}

TEST_F(ConsolidationTest, APodOnlyTheCandidateCanRunBlocksIt) {
  AddPool({"on-demand"});
  AddNode("big", "large", "on-demand", "default", {{"disk", "local-nvme"}});
  AddNode("other", "large", "on-demand");
  BindPod("cache", "big", "1", [](api::Pod& p) { p.spec.node_selector = {{"disk", "local-nvme"}}; });
  BindPod("web", "other", "1");
  BindPod("web-2", "other", "1");
  auto commands = RunSingle();
  // "big" cannot go; "other" can, onto "big".
  ASSERT_THAT(commands, SizeIs(1));
  EXPECT_THAT(Nodes(commands[0]), ElementsAre("other"));
  EXPECT_THAT(RunMulti(), IsEmpty());
}

TEST_F(ConsolidationTest, PodsThatRepelEachOtherAreNotMergedOntoOneNode) {
  AddPool({"on-demand"});
  auto anti = [](api::Pod& p) {
    p.metadata.labels = {{"app", "zk"}};
    api::PodAffinityTerm term;
    term.label_selector = api::LabelSelector{};
    term.label_selector->match_labels = {{"app", "zk"}};
    term.topology_key = s::kLabelHostname;
    p.spec.affinity = api::Affinity{};
    p.spec.affinity->pod_anti_affinity = api::PodAffinity{};
    p.spec.affinity->pod_anti_affinity->required.push_back(term);
  };
  AddNode("a", "small", "on-demand");
  AddNode("b", "small", "on-demand");
  BindPod("zk-0", "a", "500m", anti);
  BindPod("zk-1", "b", "500m", anti);
  EXPECT_THAT(RunMulti(), IsEmpty());   // would need two new nodes
  EXPECT_THAT(RunSingle(), IsEmpty());  // each would need a new small node: no cheaper
}

}  // namespace
}  // namespace nodesmith::controllers
