// Disruption as a specification: candidates, budgets and the emptiness method, driven through
// the DisruptionController.
#include "controllers/disruption/disruption_controller.h"

#include <gmock/gmock.h>
#include <gtest/gtest.h>

#include "controllers/disruption/candidates.h"
#include "controllers/disruption/emptiness.h"
#include "controllers/testing/fixtures.h"

namespace nodesmith::controllers {
namespace {

using std::chrono::seconds;
using ::testing::Contains;
using ::testing::ElementsAre;
using ::testing::IsEmpty;
using ::testing::SizeIs;
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
    const std::string id = std::to_string(i);
    api::NodeClaim c;
    c.metadata.name = pool + "-" + id;
    c.metadata.labels = {{s::kLabelNodePool, pool}};
    c.metadata.finalizers = {kTerminationFinalizer};
    c.status.provider_id = "aws:///zone-a/i-" + id;
    c.status.node_name = "ip-" + id;
    c.status.conditions = {{kConditionLaunched, "True", "", "", world_.clock.Now()},
                           {kConditionRegistered, "True", "", "", world_.clock.Now()},
                           {kConditionInitialized, "True", "", "", world_.clock.Now()}};
    world_.MustCreate(c);
    api::Node n;
    n.metadata.name = "ip-" + id;
    n.metadata.labels = {{s::kLabelNodePool, pool},
                         {s::kLabelInstanceTypeStable, "small"},
                         {s::kLabelTopologyZone, "zone-a"},
                         {s::kLabelCapacityType, "spot"}};
    n.spec.provider_id = c.status.provider_id;
    n.status.conditions = {{"Ready", "True", "", "", world_.clock.Now()}};
    world_.MustCreate(n);
  }
  void BindPod(const std::string& name, const std::string& node, bool daemon = false) {
    api::Pod p = testing::PendingPod(name);
    if (daemon) p.metadata.owner_references = {{"apps/v1", "DaemonSet", "ds", "u", true}};
    world_.MustCreate(p);
    ASSERT_TRUE(world_.cluster.Bind("default", name, node).ok());
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
  core::Result<runtime::ReconcileResult> Reconcile() { return controller_.Reconcile({}); }

  World world_;
  DisruptionController controller_{world_.clock, world_.cluster, world_.cloud, world_.recorder,
                                   DefaultMethods(world_.clock)};
};

TEST_F(DisruptionTest, PollsEveryTenSeconds) {
  auto r = Reconcile();
  ASSERT_TRUE(r.ok());
  EXPECT_EQ(r->requeue_after, seconds(10));
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
  EXPECT_THAT(BuildCandidates(world_.clock, world_.cluster, world_.cloud), IsEmpty());
  ASSERT_TRUE(Reconcile().ok());
  EXPECT_THAT(Deleting(), IsEmpty());
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

TEST_F(DisruptionTest, BudgetsApplyByReasonAndScheduledOnesAreSkipped) {
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
  DisruptionOptions options;
  options.nominations = nominations;
  DisruptionController controller(world_.clock, world_.cluster, world_.cloud, world_.recorder,
                                  DefaultMethods(world_.clock), options);
  world_.clock.Step(seconds(60));
  ASSERT_TRUE(controller.Reconcile({}).ok());
  EXPECT_THAT(Deleting(), IsEmpty());

  nominations->Publish({});  // the pods were bound elsewhere
  ASSERT_TRUE(controller.Reconcile({}).ok());
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

TEST(BudgetAllowanceTest, IntsAndPercentages) {
  EXPECT_EQ(*BudgetAllowance("10%", 12), 2);
  EXPECT_EQ(*BudgetAllowance("10%", 0), 0);
  EXPECT_EQ(*BudgetAllowance("5", 3), 5);
  EXPECT_EQ(*BudgetAllowance("0", 3), 0);
  EXPECT_FALSE(BudgetAllowance("ten", 3).ok());
  EXPECT_FALSE(BudgetAllowance("-1", 3).ok());
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
