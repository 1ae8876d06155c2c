// Disruption as a specification: candidates, budgets and the emptiness method, driven through
// the DisruptionController.
#include "controllers/disruption/disruption_controller.h"

#include <gmock/gmock.h>
#include <gtest/gtest.h>

#include "controllers/disruption/budgets.h"
#include "controllers/disruption/candidates.h"
#include "controllers/disruption/emptiness.h"
#include "controllers/nodeclaim/drift_detection.h"
#include "controllers/testing/fixtures.h"

namespace nodesmith::controllers {
namespace {

using std::chrono::seconds;
using std::chrono::milliseconds;
using ::testing::Contains;
using ::testing::ElementsAre;
using ::testing::IsEmpty;
using ::testing::SizeIs;
using ::testing::HasSubstr;
using testing::World;
namespace s = scheduling;

class DisruptionTest : public ::testing::Test {
 protected:
  DisruptionTest() {
    api::NodePool pool = testing::Pool();
    pool.disruption.consolidation_policy = "WhenEmpty";
    pool.disruption.consolidate_after = core::NillableDuration{seconds(30)};
    world_.MustCreate(pool);
  }

  // An initialized node of the default pool, named ip-<i>, with NodeClaim default-<i>.
  void AddNode(int i, std::string pool = "default") {
    world_.AddManagedNode(std::to_string(i), pool);
  }
  // AddNode(i) with room for 2 CPUs and 110 pods: small pods of several such nodes fit on one.
  void AddTwoCpuNode(int i) {
    AddNode(i);
    api::Node n = world_.MustGet<api::Node>("", "ip-" + std::to_string(i));
    n.status.capacity = {{"cpu", api::Quantity::MustParse("2")},
                         {"pods", api::Quantity::MustParse("110")}};
    n.status.allocatable = n.status.capacity;
    ASSERT_TRUE(world_.cluster.Update(n).ok());
  }
  // A pod of 100m bound to `node`.
  void BindSmallPod(const std::string& name, const std::string& node) {
    world_.MustCreate(testing::PendingPod(name, "100m"));
    ASSERT_TRUE(world_.cluster.Bind("default", name, node).ok());
  }
  // Three two-CPU nodes with one small pod each, underutilized consolidation at once and a
  // budget that allows all of them.
  void AddThreeNodesAnyTwoOfWhichFitOnTheThird() {
    UpdatePool([](api::NodePool& p) {
      p.disruption.consolidation_policy = "WhenEmptyOrUnderutilized";
      p.disruption.consolidate_after = core::NillableDuration{seconds(0)};
      p.disruption.budgets = {api::Budget{"100%", std::nullopt, std::nullopt, {}}};
    });
    for (int i = 1; i <= 3; ++i) {
      AddTwoCpuNode(i);
      BindSmallPod("web-" + std::to_string(i), "ip-" + std::to_string(i));
    }
    world_.clock.Step(seconds(10));
  }
  // The consolidation timeouts recorded so far, as "<consolidationType> <how>".
  std::vector<std::string> ConsolidationTimeouts() const {
    std::vector<std::string> out;
    for (const auto& e : world_.recorder.events()) {
      const std::string how = World::Field(e, kConsolidationTimeoutField);
      if (!how.empty()) out.push_back(World::Field(e, "consolidationType") + " " + how);
    }
    return out;
  }
  // A controller whose passes may spend `work` of simulation (Reconcile only; Decide is never
  // bounded).
  std::unique_ptr<DisruptionController> BoundedController(int64_t work) {
    DisruptionOptions options;
    options.validation_delay = seconds(0);
    options.simulator = simulator_;
    options.simulation_work_per_pass = work;
    return std::make_unique<DisruptionController>(world_.clock, world_.cluster, world_.cloud,
                                                  world_.recorder,
                                                  DefaultMethods(world_.clock, *simulator_),
                                                  options);
  }
  void BindPod(const std::string& name, const std::string& node, bool daemon = false) {
    api::Pod p = testing::PendingPod(name);
    if (daemon) p.metadata.owner_references = {{"apps/v1", "DaemonSet", "ds", "u", true}};
    world_.MustCreate(p);
    ASSERT_TRUE(world_.cluster.Bind("default", name, node).ok());
  }
  // A pod of `owner_kind` bound to `node`, then deleted: a finalizer holds it terminating.
  void BindTerminatingPod(const std::string& name, const std::string& node, const std::string& owner_kind) {
    api::Pod p = testing::PendingPod(name);
    p.metadata.owner_references = {{"apps/v1", owner_kind, "owner", "u", true}};
    p.metadata.finalizers = {"example.com/hold"};
    world_.MustCreate(p);
    ASSERT_TRUE(world_.cluster.Bind("default", name, node).ok());
    ASSERT_TRUE(world_.cluster.Delete<api::Pod>("default", name).ok());
  }
  void UpdatePool(const std::function<void(api::NodePool&)>& fn) {
    api::NodePool p = world_.MustGet<api::NodePool>("", "default");
    fn(p);
    ASSERT_TRUE(world_.cluster.Update(p).ok());
  }
  std::vector<std::string> Deleting() {
    std::vector<std::string> out;
    for (const auto& c : world_.cluster.List<api::NodeClaim>()) {
      if (c.metadata.deletion_timestamp) out.push_back(c.metadata.name);
    }
    return out;
  }
  core::Result<runtime::ReconcileResult> Reconcile() { return controller_->Reconcile({}); }

  // A controller over the fixture's world with the default methods; validation waits
  // `validation_delay` (the emptiness timing tests below act without one).
  std::unique_ptr<DisruptionController> NewController(
      core::Duration validation_delay = seconds(0),
      std::shared_ptr<const Nominations> nominations = nullptr) {
    DisruptionOptions options;
    options.validation_delay = validation_delay;
    options.nominations = std::move(nominations);
    options.simulator = simulator_;
    return std::make_unique<DisruptionController>(world_.clock, world_.cluster, world_.cloud,
                                                  world_.recorder,
                                                  DefaultMethods(world_.clock, *simulator_),
                                                  options);
  }

  World world_;
  std::shared_ptr<SchedulingSimulator> simulator_ =
      std::make_shared<SchedulingSimulator>(world_.cluster, world_.cloud);
  std::unique_ptr<DisruptionController> controller_ = NewController();
};

TEST_F(DisruptionTest, PollsEveryTenSeconds) {
  auto r = Reconcile();
  ASSERT_TRUE(r.ok());
  EXPECT_EQ(r->requeue_after, seconds(10));
}

TEST_F(DisruptionTest, ACommandIssuedBringsTheNextPassAtOnce) {
  // Two empty nodes, a budget of one at a time: the first pass takes ip-1 and looks again at once
  // (as Karpenter requeues immediately), not a poll later; that pass finds the budget taken.
  UpdatePool([](api::NodePool& p) {
    p.disruption.budgets = {api::Budget{"1", std::nullopt, std::nullopt, {}}};
  });
  AddNode(1);
  AddNode(2);
  world_.clock.Step(seconds(31));
  auto acted = Reconcile();
  ASSERT_TRUE(acted.ok());
  EXPECT_THAT(Deleting(), SizeIs(1));
  ASSERT_TRUE(acted->requeue_after.has_value());
  EXPECT_LT(*acted->requeue_after, milliseconds(1));
  auto quiet = Reconcile();
  ASSERT_TRUE(quiet.ok());
  EXPECT_THAT(Deleting(), SizeIs(1)) << "the budget allows one node at a time";
  EXPECT_EQ(quiet->requeue_after, seconds(10));
}

// A method that finds nothing and says whether it waits for capacity coming up; counts its calls.
class WaitingMethod : public Method {
 public:
  WaitingMethod(bool waiting, int* calls) : waiting_(waiting), calls_(calls) {}
  std::string Name() const override { return "waiting"; }
  bool ShouldDisrupt(const Candidate&) const override { return true; }
  core::Result<std::vector<Command>> ComputeCommands(const BudgetMapping&,
                                                     const std::vector<Candidate>&) override {
    ++*calls_;
    return std::vector<Command>{};
  }
  std::string Reason() const override { return "Drifted"; }
  std::string ConsolidationType() const override { return ""; }
  bool WaitingForCapacity() const override { return waiting_; }

 private:
  bool waiting_;
  int* calls_;
};

TEST_F(DisruptionTest, AMethodWaitingForCapacityEndsThePassAndBringsTheNextWithinASecond) {
  // Later methods are not asked: a consolidation command would hold the controller for its
  // validation delay while the waiting candidate could go a second later.
  AddNode(1);
  BindPod("web", "ip-1");
  int first = 0, second = 0;
  std::vector<std::unique_ptr<Method>> methods;
  methods.push_back(std::make_unique<WaitingMethod>(true, &first));
  methods.push_back(std::make_unique<WaitingMethod>(false, &second));
  DisruptionController controller(world_.clock, world_.cluster, world_.cloud, world_.recorder,
                                  std::move(methods), DisruptionOptions{});
  auto r = controller.Reconcile({});
  ASSERT_TRUE(r.ok()) << r.status().message();
  EXPECT_EQ(first, 1);
  EXPECT_EQ(second, 0);
  EXPECT_EQ(r->requeue_after, seconds(1));
}

TEST_F(DisruptionTest, AnEmptyNodeIsRemovedOnceConsolidateAfterHasPassed) {
  AddNode(1);
  BindPod("agent", "ip-1", /*daemon=*/true);  // DaemonSet pods do not count
  world_.clock.Step(seconds(29));
  ASSERT_TRUE(Reconcile().ok());
  EXPECT_THAT(Deleting(), IsEmpty());

  world_.clock.Step(seconds(1));
  ASSERT_TRUE(Reconcile().ok());
  EXPECT_THAT(Deleting(), ElementsAre("default-1"));
  EXPECT_THAT(world_.Messages(), Contains("Triggering termination after 30s for empty node ip-1"));
  auto decisions = world_.recorder.OfType("DisruptionDecision");
  ASSERT_THAT(decisions, SizeIs(1));
  EXPECT_EQ(World::Field(decisions[0], "method"), "emptiness");
  EXPECT_EQ(World::Field(decisions[0], "reason"), "Empty");
  EXPECT_EQ(World::Field(decisions[0], "nodes"), "ip-1");
  EXPECT_EQ(World::Field(decisions[0], "nodeClaims"), "default-1");
  EXPECT_EQ(World::Field(decisions[0], "savingsPerHour"), "0.03");
}

TEST_F(DisruptionTest, ANodeWithReschedulablePodsIsNotEmpty) {
  AddNode(1);
  BindPod("web", "ip-1");
  world_.clock.Step(seconds(60));
  ASSERT_TRUE(Reconcile().ok());
  EXPECT_THAT(Deleting(), IsEmpty());
}

// A pod being deleted will not need a home (pkg/utils/pod IsReschedulable), except a
// StatefulSet's: its replacement cannot start until it is gone, so it still counts.
TEST_F(DisruptionTest, ANodeWhoseOnlyPodsAreTerminatingReplicaSetPodsIsEmpty) {
  AddNode(1);
  BindTerminatingPod("web", "ip-1", "ReplicaSet");
  world_.clock.Step(seconds(30));
  ASSERT_TRUE(Reconcile().ok());
  EXPECT_THAT(Deleting(), ElementsAre("default-1"));
}

TEST_F(DisruptionTest, ATerminatingStatefulSetPodStillNeedsAHome) {
  AddNode(1);
  BindTerminatingPod("db-0", "ip-1", "StatefulSet");
  world_.clock.Step(seconds(60));
  ASSERT_TRUE(Reconcile().ok());
  EXPECT_THAT(Deleting(), IsEmpty());
  auto candidates = BuildCandidates(world_.clock, world_.cluster, world_.cloud);
  ASSERT_THAT(candidates, SizeIs(1));
  EXPECT_THAT(candidates[0].reschedulable_pods, ElementsAre("default/db-0"));
}

TEST_F(DisruptionTest, ConsolidateAfterCountsFromTheLastPodEvent) {
  AddNode(1);
  world_.clock.Step(seconds(20));
  api::NodeClaim c = world_.MustGet<api::NodeClaim>("", "default-1");
  c.status.last_pod_event_time = world_.clock.Now();  // a pod just left
  ASSERT_TRUE(world_.cluster.Update(c).ok());
  world_.clock.Step(seconds(20));
  ASSERT_TRUE(Reconcile().ok());
  EXPECT_THAT(Deleting(), IsEmpty());
  world_.clock.Step(seconds(10));
  ASSERT_TRUE(Reconcile().ok());
  EXPECT_THAT(Deleting(), ElementsAre("default-1"));
}

TEST_F(DisruptionTest, NeverAndUnderutilizedOnlyPoliciesAreRespected) {
  AddNode(1);
  UpdatePool([](api::NodePool& p) { p.disruption.consolidate_after = core::NillableDuration{}; });
  world_.clock.Step(seconds(3600));
  ASSERT_TRUE(Reconcile().ok());
  EXPECT_THAT(Deleting(), IsEmpty());

  UpdatePool([](api::NodePool& p) {
    p.disruption.consolidate_after = core::NillableDuration{seconds(0)};
    p.disruption.consolidation_policy = "WhenEmptyOrUnderutilized";
  });
  ASSERT_TRUE(Reconcile().ok());
  EXPECT_THAT(Deleting(), ElementsAre("default-1"));
  EXPECT_THAT(world_.Messages(), Contains("Triggering termination after 0s for empty node ip-1"));
}

TEST_F(DisruptionTest, DoNotDisruptOnTheNodeOrAPodBlocks) {
  AddNode(1);
  AddNode(2);
  api::Node n = world_.MustGet<api::Node>("", "ip-1");
  n.metadata.annotations[kDoNotDisruptAnnotation] = "true";
  ASSERT_TRUE(world_.cluster.Update(n).ok());
  api::Pod p = testing::PendingPod("precious");
  p.metadata.annotations[kDoNotDisruptAnnotation] = "true";
  world_.MustCreate(p);
  ASSERT_TRUE(world_.cluster.Bind("default", "precious", "ip-2").ok());
  world_.clock.Step(seconds(60));
  auto candidates = BuildCandidates(world_.clock, world_.cluster, world_.cloud);
  ASSERT_THAT(candidates, SizeIs(2));
  EXPECT_EQ(candidates[0].blocked, "node has karpenter.sh/do-not-disrupt");
  EXPECT_EQ(candidates[1].blocked, "pod default/precious has karpenter.sh/do-not-disrupt");
  ASSERT_TRUE(Reconcile().ok());
  EXPECT_THAT(Deleting(), IsEmpty());
  auto decision = controller_->Decide();
  ASSERT_TRUE(decision.ok());
  EXPECT_FALSE(decision->command.has_value());
  EXPECT_THAT(decision->blocked,
              ElementsAre(BlockedNode{"ip-1", "node has karpenter.sh/do-not-disrupt"},
                          BlockedNode{"ip-2", "pod default/precious has karpenter.sh/do-not-disrupt"}));
}

TEST_F(DisruptionTest, TheDefaultTenPercentBudgetRoundsUp) {
  for (int i = 1; i <= 12; ++i) AddNode(i);
  world_.clock.Step(seconds(60));
  ASSERT_TRUE(Reconcile().ok());
  EXPECT_THAT(Deleting(), SizeIs(2)) << "ceil(10% of 12)";
  // Those two are disrupting now, which uses the budget up.
  ASSERT_TRUE(Reconcile().ok());
  EXPECT_THAT(Deleting(), SizeIs(2));
}

TEST_F(DisruptionTest, BudgetsApplyByReasonAndScheduledOnesOnlyInTheirWindow) {
  for (int i = 1; i <= 4; ++i) AddNode(i);
  UpdatePool([](api::NodePool& p) {
    p.disruption.budgets = {
        api::Budget{"100%", std::nullopt, std::nullopt, {}},
        api::Budget{"1", std::nullopt, std::nullopt, {"Empty"}},
        api::Budget{"0", std::nullopt, std::nullopt, {"Drifted"}},
        api::Budget{"0", std::string("0 9 * * mon-fri"), seconds(3600), {}},
    };
  });
  world_.clock.Step(seconds(60));
  ASSERT_TRUE(Reconcile().ok());
  EXPECT_THAT(Deleting(), SizeIs(1));
}

TEST_F(DisruptionTest, ANodePendingPodsAreNominatedToIsNotEmpty) {
  AddNode(1);
  AddNode(2);
  auto nominations = std::make_shared<Nominations>();
  nominations->Publish({{"default/web", "default-1"}, {"default/api", "ip-2"}});
  auto controller = NewController(seconds(0), nominations);
  world_.clock.Step(seconds(60));
  ASSERT_TRUE(controller->Reconcile({}).ok());
  EXPECT_THAT(Deleting(), IsEmpty());

  nominations->Publish({});  // the pods were bound elsewhere
  ASSERT_TRUE(controller->Reconcile({}).ok());
  EXPECT_THAT(Deleting(), SizeIs(1)) << "ceil(10% of 2)";
}

TEST_F(DisruptionTest, PodsSeenLeavingCountEvenBeforeTheirPodEventIsRecorded) {
  AddNode(1);
  BindPod("web", "ip-1");
  world_.clock.Step(seconds(600));
  ASSERT_TRUE(Reconcile().ok());  // sees the pod
  ASSERT_TRUE(world_.cluster.Delete<api::Pod>("default", "web").ok());
  // lastPodEventTime is not updated yet (the pod events controller runs later).
  ASSERT_TRUE(Reconcile().ok());
  EXPECT_THAT(Deleting(), IsEmpty()) << "empty for 0s, not since initialization";
  world_.clock.Step(seconds(29));
  ASSERT_TRUE(Reconcile().ok());
  EXPECT_THAT(Deleting(), IsEmpty());
  world_.clock.Step(seconds(1));
  ASSERT_TRUE(Reconcile().ok());
  EXPECT_THAT(Deleting(), ElementsAre("default-1"));
}

// A Running, Ready pod of the default namespace labelled app=<app>, bound to `node`.
api::Pod ReadyPod(World& world, const std::string& name, const std::string& app,
                  const std::string& node) {
  api::Pod p = testing::PendingPod(name);
  p.metadata.labels["app"] = app;
  p.status.phase = "Running";
  p.status.start_time = world.clock.Now();
  p.status.conditions.push_back({"Ready", "True", "", "", world.clock.Now()});
  world.MustCreate(p);
  EXPECT_TRUE(world.cluster.Bind("default", name, node).ok());
  return world.MustGet<api::Pod>("default", name);
}

TEST_F(DisruptionTest, APodDisruptionBudgetThatAllowsNoEvictionBlocksTheNode) {
  AddNode(1);
  AddNode(2);
  ReadyPod(world_, "db-0", "db", "ip-1");
  ReadyPod(world_, "web-0", "web", "ip-2");
  api::PodDisruptionBudget pdb;
  pdb.metadata.name = "db";
  pdb.metadata.namespace_ = "default";
  pdb.min_available = api::IntOrString{false, 1, ""};
  pdb.selector = api::LabelSelector{{{"app", "db"}}, {}};
  world_.MustCreate(pdb);

  auto candidates = BuildCandidates(world_.clock, world_.cluster, world_.cloud);
  ASSERT_THAT(candidates, SizeIs(2));
  for (const auto& c : candidates) {
    EXPECT_EQ(c.blocked, c.name() == "ip-1" ? "pdb default/db prevents pod evictions (pod default/db-0)"
                                            : "")
        << c.name();
  }

  // A second healthy replica gives the budget room: the node is free again.
  AddNode(3);
  ReadyPod(world_, "db-1", "db", "ip-3");
  for (const auto& c : BuildCandidates(world_.clock, world_.cluster, world_.cloud)) {
    EXPECT_EQ(c.blocked, "") << c.name();
  }
}

TEST_F(DisruptionTest, DoNotDisruptWithADurationProtectsAPodForThatLongAfterItStarted) {
  AddNode(1);
  api::Pod p = testing::PendingPod("batch");
  p.metadata.annotations[kDoNotDisruptAnnotation] = "10m";
  p.status.phase = "Running";
  p.status.start_time = world_.clock.Now();
  world_.MustCreate(p);
  ASSERT_TRUE(world_.cluster.Bind("default", "batch", "ip-1").ok());

  world_.clock.Step(seconds(300));
  auto candidates = BuildCandidates(world_.clock, world_.cluster, world_.cloud);
  ASSERT_THAT(candidates, SizeIs(1));
  EXPECT_EQ(candidates[0].blocked,
            "pod default/batch has karpenter.sh/do-not-disrupt until 2025-01-01T00:10:00Z");
  world_.clock.Step(seconds(300));
  candidates = BuildCandidates(world_.clock, world_.cluster, world_.cloud);
  ASSERT_THAT(candidates, SizeIs(1));
  EXPECT_EQ(candidates[0].blocked, "") << "protection ends exactly at start + 10m";
}

// As Karpenter's cluster state keeps each node's pods, a store that indexes pods by node
// (KubeCluster's informers) is asked per candidate: a pass never walks all 150,000 pods of a
// large cluster to find the few on its candidates.
TEST_F(DisruptionTest, WithPodsIndexedByNodeAPassFindsTheSameCandidatesWithoutWalkingEveryPod) {
  UpdatePool([](api::NodePool& p) { p.disruption.consolidation_policy = "WhenEmptyOrUnderutilized"; });
  AddNode(1);
  AddNode(2);
  AddNode(3);
  api::Pod kept = testing::PendingPod("db-0");
  kept.metadata.annotations[kDoNotDisruptAnnotation] = "true";
  world_.MustCreate(kept);
  ASSERT_TRUE(world_.cluster.Bind("default", "db-0", "ip-1").ok());
  ReadyPod(world_, "web-0", "web", "ip-2");
  ReadyPod(world_, "web-1", "web", "ip-2");
  BindPod("agent", "ip-3", /*daemon=*/true);
  world_.MustCreate(testing::PendingPod("waiting"));
  // (No PodDisruptionBudget here: working out a PDB's status reads its namespace's pods.)
  testing::WalkCountingCluster indexed(world_.cluster, /*indexes_pods_by_node=*/true);

  auto scanned = BuildCandidates(world_.clock, world_.cluster, world_.cloud);
  auto asked = BuildCandidates(world_.clock, indexed, world_.cloud);
  ASSERT_THAT(asked, SizeIs(3));
  ASSERT_EQ(asked.size(), scanned.size());
  for (size_t i = 0; i < asked.size(); ++i) {
    EXPECT_EQ(asked[i].name(), scanned[i].name());
    EXPECT_EQ(asked[i].reschedulable_pods, scanned[i].reschedulable_pods) << asked[i].name();
    EXPECT_EQ(asked[i].blocked, scanned[i].blocked) << asked[i].name();
    EXPECT_EQ(asked[i].disruption_cost, scanned[i].disruption_cost) << asked[i].name();
  }
  EXPECT_EQ(asked[0].name(), "ip-3") << "only a DaemonSet pod: the cheapest to disrupt";
  EXPECT_THAT(asked[0].reschedulable_pods, IsEmpty());
  EXPECT_EQ(asked[1].name(), "ip-1");
  EXPECT_EQ(asked[1].blocked, "pod default/db-0 has karpenter.sh/do-not-disrupt");
  EXPECT_THAT(asked[2].reschedulable_pods, ElementsAre("default/web-0", "default/web-1"));
  EXPECT_EQ(indexed.walks[cluster::Kind::kPod], 0);

  // A whole pass: the candidates, and the pending pods its consolidation state digests.
  DisruptionOptions options;
  options.validation_delay = seconds(15);
  std::vector<std::unique_ptr<Method>> methods;
  methods.push_back(std::make_unique<Emptiness>(world_.clock));
  DisruptionController controller(world_.clock, indexed, world_.cloud, world_.recorder,
                                  std::move(methods), options);
  ASSERT_TRUE(controller.Reconcile({}).ok());
  EXPECT_EQ(indexed.walks[cluster::Kind::kPod], 0);
}

TEST_F(DisruptionTest, APassAfterAnAbandonedCommandStartsFromTheCandidatesValidationBuilt) {
  // ip-1 is empty and held for validation; a pod lands on it meanwhile, so the command is
  // abandoned and the methods after emptiness look at once, at the same instant.
  testing::WalkCountingCluster counting(world_.cluster, /*indexes_pods_by_node=*/false);
  DisruptionOptions options;
  options.validation_delay = seconds(15);
  options.simulator = simulator_;
  DisruptionController controller(world_.clock, counting, world_.cloud, world_.recorder,
                                  DefaultMethods(world_.clock, *simulator_), options);
  AddNode(1);
  world_.clock.Step(seconds(30));
  ASSERT_TRUE(controller.Reconcile({}).ok());
  BindPod("web", "ip-1");
  world_.clock.Step(seconds(15));

  counting.walks.clear();
  ASSERT_TRUE(controller.Reconcile({}).ok());
  EXPECT_THAT(world_.Messages(), Contains(HasSubstr("Abandoning emptiness disruption")));
  EXPECT_THAT(Deleting(), IsEmpty());
  // The PodDisruptionBudgets are read once per building of the candidates.
  EXPECT_EQ(counting.walks[cluster::Kind::kPodDisruptionBudget], 1);
}

// Each PodDisruptionBudget's status counts its namespace's pods. Building the candidates works
// all of them out in one walk over the pods, and only once a candidate's pod is one a PDB
// guards: in a large cluster, a pass over nodes whose pods no PDB guards reads no pod at all.
TEST_F(DisruptionTest, PodDisruptionBudgetsAreWorkedOutInOneWalkAndOnlyForACandidatesPods) {
  auto budget = [&](const std::string& app, int min_available) {
    api::PodDisruptionBudget pdb;
    pdb.metadata.name = app;
    pdb.metadata.namespace_ = "default";
    pdb.min_available = api::IntOrString{false, min_available, ""};
    pdb.selector = api::LabelSelector{{{"app", app}}, {}};
    world_.MustCreate(pdb);
  };
  budget("db", 1);
  budget("web", 1);
  budget("queue", 0);
  AddNode(1);
  AddNode(2);
  ReadyPod(world_, "batch-0", "batch", "ip-1");  // guarded by no PDB
  testing::WalkCountingCluster indexed(world_.cluster, /*indexes_pods_by_node=*/true);

  EXPECT_THAT(BuildCandidates(world_.clock, indexed, world_.cloud), SizeIs(2));
  EXPECT_EQ(indexed.walks[cluster::Kind::kPod], 0) << "no candidate's pod is guarded";

  ReadyPod(world_, "db-0", "db", "ip-1");
  ReadyPod(world_, "web-0", "web", "ip-2");
  ReadyPod(world_, "web-1", "web", "ip-2");
  indexed.walks.clear();
  auto asked = BuildCandidates(world_.clock, indexed, world_.cloud);
  EXPECT_EQ(indexed.walks[cluster::Kind::kPod], 1) << "one walk for the three budgets";
  auto scanned = BuildCandidates(world_.clock, world_.cluster, world_.cloud);
  ASSERT_THAT(asked, SizeIs(2));
  ASSERT_EQ(asked.size(), scanned.size());
  for (size_t i = 0; i < asked.size(); ++i) {
    EXPECT_EQ(asked[i].name(), scanned[i].name());
    EXPECT_EQ(asked[i].blocked, scanned[i].blocked) << asked[i].name();
    EXPECT_EQ(asked[i].blocked, asked[i].name() == "ip-1"
                                    ? "pdb default/db prevents pod evictions (pod default/db-0)"
                                    : "")
        << "web has two healthy pods for a minAvailable of 1";
  }
}

TEST_F(DisruptionTest, UnusableNodesAreExcludedWithTheirReasons) {
  AddNode(1);
  api::NodeClaim launching;
  launching.metadata.name = "default-9";
  launching.metadata.labels = {{s::kLabelNodePool, "default"}};
  world_.MustCreate(launching);
  std::vector<BlockedNode> excluded;
  auto candidates = BuildCandidates(world_.clock, world_.cluster, world_.cloud, nullptr, &excluded);
  EXPECT_THAT(candidates, SizeIs(1));
  EXPECT_THAT(excluded, ElementsAre(BlockedNode{"nodeclaim default-9",
                                                "nodeclaim default-9 has no node yet"}));
}

TEST_F(DisruptionTest, AConsolidationCommandActsOnlyAfterTheValidationDelay) {
  auto controller = NewController(seconds(15));
  AddNode(1);
  world_.clock.Step(seconds(30));
  auto r = controller->Reconcile({});
  ASSERT_TRUE(r.ok());
  EXPECT_EQ(r->requeue_after, seconds(15));
  EXPECT_THAT(Deleting(), IsEmpty()) << "held for validation";
  world_.clock.Step(seconds(15));
  ASSERT_TRUE(controller->Reconcile({}).ok());
  EXPECT_THAT(Deleting(), ElementsAre("default-1"));
}

TEST_F(DisruptionTest, ValidationAbandonsACommandTheClusterNoLongerSupports) {
  auto controller = NewController(seconds(15));
  AddNode(1);
  world_.clock.Step(seconds(30));
  ASSERT_TRUE(controller->Reconcile({}).ok());
  BindPod("late", "ip-1");  // a pod lands during the validation window: the node is not empty
  world_.clock.Step(seconds(15));
  ASSERT_TRUE(controller->Reconcile({}).ok());
  EXPECT_THAT(Deleting(), IsEmpty());
  EXPECT_THAT(world_.Messages(),
              Contains("Abandoning emptiness disruption of 1 candidate(s): the command is no "
                       "longer valid"));
}

// As Karpenter: an abandoned command does not end the pass. The methods after it look at once,
// so a drifted node waits neither a poll interval nor another validation.
TEST_F(DisruptionTest, AfterAnAbandonedCommandTheLaterMethodsActInTheSamePass) {
  api::NodePool slow = testing::Pool();
  slow.metadata.name = "slow";  // never consolidated: only drift can take its node
  slow.disruption.consolidate_after = core::NillableDuration{};
  world_.MustCreate(slow);
  auto controller = NewController(seconds(15));
  AddNode(1);
  world_.AddManagedNode("2", "slow", "small", [&](api::NodeClaim& c) {
    c.status.conditions.push_back({kConditionDrifted, "True", "AMIDrift", "", world_.clock.Now()});
  });
  world_.clock.Step(seconds(30));
  auto held = controller->Reconcile({});
  ASSERT_TRUE(held.ok()) << held.status().message();
  EXPECT_EQ(held->requeue_after, seconds(15)) << "emptiness of ip-1 comes first, and waits";
  EXPECT_THAT(Deleting(), IsEmpty());

  BindPod("late", "ip-1");
  world_.clock.Step(seconds(15));
  auto r = controller->Reconcile({});
  ASSERT_TRUE(r.ok()) << r.status().message();
  EXPECT_THAT(world_.Messages(),
              Contains("Abandoning emptiness disruption of 1 candidate(s): the command is no "
                       "longer valid"));
  EXPECT_THAT(Deleting(), ElementsAre("slow-2")) << "drift acted in the same pass";
  EXPECT_LT(r->requeue_after, seconds(1)) << "and the next pass follows at once";
}

TEST_F(DisruptionTest, DecideReportsAnExhaustedBudgetAsTheBlocker) {
  AddNode(1);
  UpdatePool([](api::NodePool& p) {
    p.disruption.budgets = {api::Budget{"0", std::nullopt, std::nullopt, {}}};
  });
  world_.clock.Step(seconds(60));
  auto decision = controller_->Decide();
  ASSERT_TRUE(decision.ok());
  EXPECT_FALSE(decision->command.has_value());
  EXPECT_EQ(decision->nodes, 1);
  EXPECT_THAT(decision->blocked,
              Contains(BlockedNode{"ip-1", "disruption budgets of nodepool default allow no more "
                                           "disruptions for reason Empty now"}));
}

TEST_F(DisruptionTest, ConsolidationIsNotRecomputedWhileNothingChanged) {
  UpdatePool([](api::NodePool& p) {
    p.disruption.consolidation_policy = "WhenEmptyOrUnderutilized";
    p.disruption.consolidate_after = core::NillableDuration{seconds(0)};
  });
  AddNode(1);  // a small node, already the cheapest home for its pod
  world_.MustCreate(testing::PendingPod("web", "1500m"));
  ASSERT_TRUE(world_.cluster.Bind("default", "web", "ip-1").ok());
  world_.clock.Step(seconds(10));
  ASSERT_TRUE(Reconcile().ok());
  const int solves = simulator_->solves();
  EXPECT_GT(solves, 0) << "consolidation looked";
  EXPECT_THAT(Deleting(), IsEmpty());

  world_.clock.Step(seconds(10));
  ASSERT_TRUE(Reconcile().ok());
  EXPECT_EQ(simulator_->solves(), solves) << "same cluster, same answer: not simulated again";

  world_.MustCreate(testing::PendingPod("other", "100m"));  // the cluster changed
  ASSERT_TRUE(world_.cluster.Bind("default", "other", "ip-1").ok());
  world_.clock.Step(seconds(10));
  ASSERT_TRUE(Reconcile().ok());
  const int after_change = simulator_->solves();
  EXPECT_GT(after_change, solves);

  world_.clock.Step(std::chrono::minutes(5));
  ASSERT_TRUE(Reconcile().ok());
  EXPECT_GT(simulator_->solves(), after_change) << "looked again after the recheck interval";
}

TEST_F(DisruptionTest, ASpentPassComesBackAtOnceAndGoesOnWhereItStopped) {
  // ip-1's pod is pinned to it; ip-2's fits on ip-3. Single-node consolidation tries ip-1 first
  // (its lone pod: the best savings ratio). With a share of simulation work that one question
  // spends, the first pass stops there, records no idle state and comes back at once; the
  // second goes on with ip-2 and removes it. Decide() is never bounded.
  UpdatePool([](api::NodePool& p) {
    p.disruption.consolidation_policy = "WhenEmptyOrUnderutilized";
    p.disruption.consolidate_after = core::NillableDuration{seconds(0)};
  });
  for (int i = 1; i <= 3; ++i) AddTwoCpuNode(i);
  api::Node one = world_.MustGet<api::Node>("", "ip-1");
  one.metadata.labels["example.com/pinned"] = "yes";
  ASSERT_TRUE(world_.cluster.Update(one).ok());
  api::Pod pinned = testing::PendingPod("pinned", "100m");
  pinned.spec.node_selector["example.com/pinned"] = "yes";
  world_.MustCreate(pinned);
  ASSERT_TRUE(world_.cluster.Bind("default", "pinned", "ip-1").ok());
  for (const std::string name : {"web-a", "web-b"}) BindSmallPod(name, "ip-2");
  for (const std::string name : {"db-a", "db-b", "db-c"}) BindSmallPod(name, "ip-3");
  world_.clock.Step(seconds(10));

  auto decided = controller_->Decide();
  ASSERT_TRUE(decided.ok()) << decided.status().message();
  std::string why;
  for (const auto& b : decided->blocked) why += b.node + ": " + b.reason + "\n";
  ASSERT_TRUE(decided->command.has_value()) << "an unbounded pass finds it at once\n" << why;

  auto bounded = BoundedController(1);
  auto first = bounded->Reconcile({});
  ASSERT_TRUE(first.ok()) << first.status().message();
  EXPECT_THAT(Deleting(), IsEmpty());
  ASSERT_TRUE(first->requeue_after.has_value());
  EXPECT_LT(*first->requeue_after, milliseconds(1)) << "comes back at once, not a poll later";
  // The line the consolidation-timeout metric counts.
  EXPECT_THAT(world_.Messages(), Contains(HasSubstr("Pausing single-node consolidation: ")));
  EXPECT_THAT(ConsolidationTimeouts(), ElementsAre("single paused"));

  auto second = bounded->Reconcile({});
  ASSERT_TRUE(second.ok()) << second.status().message();
  EXPECT_THAT(Deleting(), ElementsAre("default-2"));
}

TEST_F(DisruptionTest, ASpentPassCutsMultiNodeShortAndActsOnTheBestCommandFound) {
  // Three nodes of small pods: any two of them fit on the third. Multi-node consolidation's
  // first question (the first two candidates) already consolidates; with a share of simulation
  // work that one question spends, the pass acts on that command instead of asking whether all
  // three would, and records a consolidation timeout.
  AddThreeNodesAnyTwoOfWhichFitOnTheThird();

  auto bounded = BoundedController(1);
  auto pass = bounded->Reconcile({});
  ASSERT_TRUE(pass.ok()) << pass.status().message();
  EXPECT_THAT(Deleting(), SizeIs(2)) << "the first question's two nodes, not a pass later";
  EXPECT_THAT(ConsolidationTimeouts(), ElementsAre("multi cutShort"));
  EXPECT_THAT(world_.Messages(),
              Contains(HasSubstr("Cutting multi-node consolidation short: this pass's share of "
                                 "simulation is spent; acting on the best command found")));
}

TEST_F(DisruptionTest, AnUnboundedPassRecordsNoConsolidationTimeout) {
  AddThreeNodesAnyTwoOfWhichFitOnTheThird();

  auto unbounded = BoundedController(0);
  auto pass = unbounded->Reconcile({});
  ASSERT_TRUE(pass.ok()) << pass.status().message();
  EXPECT_THAT(Deleting(), SizeIs(2)) << "two of the three go, their pods onto the third";
  EXPECT_THAT(ConsolidationTimeouts(), IsEmpty());
}

TEST_F(DisruptionTest, MethodsAreTriedInKarpentersOrderOneCommandAPass) {
  std::vector<std::string> names;
  for (const auto& m : DefaultMethods(world_.clock, *simulator_)) names.push_back(m->Name());
  EXPECT_THAT(names, ElementsAre("emptiness", "drift", "expiration", "multi-node", "single-node"));

  // ip-1 is empty and expired; ip-2 has a pod, is drifted and expired. Budgets allow both at
  // once (the default 10% would hold drift back while ip-1 terminates).
  UpdatePool([](api::NodePool& p) {
    p.disruption.budgets = {api::Budget{"100%", std::nullopt, std::nullopt, {}}};
  });
  AddNode(1);
  AddNode(2);
  BindPod("web", "ip-2");
  for (const char* name : {"default-1", "default-2"}) {
    api::NodeClaim c = world_.MustGet<api::NodeClaim>("", name);
    c.metadata.creation_timestamp = world_.clock.Now();
    c.spec.expire_after = core::NillableDuration{seconds(60)};
    if (std::string(name) == "default-2") {
      c.status.conditions.push_back({kConditionDrifted, "True", "NodePoolDrifted", "", world_.clock.Now()});
    }
    ASSERT_TRUE(world_.cluster.Update(c).ok());
  }
  world_.clock.Step(seconds(120));
  auto first = controller_->Decide();
  ASSERT_TRUE(first.ok());
  ASSERT_TRUE(first->command.has_value());
  EXPECT_EQ(first->command->method, "emptiness") << "emptiness comes before drift and expiry";
  ASSERT_THAT(first->command->candidates, SizeIs(1));
  EXPECT_EQ(first->command->candidates[0].name(), "ip-1");

  ASSERT_TRUE(Reconcile().ok());  // acts: ip-1's NodeClaim is deleted
  auto second = controller_->Decide();
  ASSERT_TRUE(second.ok());
  ASSERT_TRUE(second->command.has_value());
  EXPECT_EQ(second->command->method, "drift") << "drift comes before expiration";
  EXPECT_EQ(second->command->candidates[0].name(), "ip-2");

  api::NodeClaim c = world_.MustGet<api::NodeClaim>("", "default-2");
  c.status.conditions.pop_back();  // no longer drifted
  ASSERT_TRUE(world_.cluster.Update(c).ok());
  auto third = controller_->Decide();
  ASSERT_TRUE(third.ok());
  ASSERT_TRUE(third->command.has_value());
  EXPECT_EQ(third->command->method, "expiration");
  EXPECT_EQ(third->command->reason, "Expired");
}

TEST(EvictionCostTest, PriorityAndDeletionCostRaiseIt) {
  api::Pod p = testing::PendingPod("p");
  EXPECT_DOUBLE_EQ(EvictionCost(p), 1.0);
  p.spec.priority = 1 << 25;
  EXPECT_DOUBLE_EQ(EvictionCost(p), 2.0);
  p.spec.priority = 2000000000;
  EXPECT_DOUBLE_EQ(EvictionCost(p), 10.0) << "clamped";
}

TEST_F(DisruptionTest, CandidatesAreOrderedByDisruptionCost) {
  AddNode(1);
  AddNode(2);
  BindPod("a", "ip-1");
  BindPod("b", "ip-1");
  BindPod("c", "ip-2");
  auto candidates = BuildCandidates(world_.clock, world_.cluster, world_.cloud);
  ASSERT_THAT(candidates, SizeIs(2));
  EXPECT_EQ(candidates[0].name(), "ip-2");
  EXPECT_EQ(candidates[1].name(), "ip-1");
  EXPECT_DOUBLE_EQ(candidates[0].price_per_hour, 0.03);
}

}  // namespace
}  // namespace nodesmith::controllers
