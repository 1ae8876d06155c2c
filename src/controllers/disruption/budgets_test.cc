// NodePool disruption budgets as a specification: given a pool's budgets, its nodes and the
// time, how many more nodes may be disrupted for a reason.
#include "controllers/disruption/budgets.h"

#include <gtest/gtest.h>

#include <chrono>
#include <climits>
#include <string>

#include "controllers/testing/fixtures.h"

namespace nodesmith::controllers {
namespace {

using std::chrono::hours;
using std::chrono::minutes;
using testing::World;
namespace s = scheduling;

core::Time At(const char* rfc3339) {
  auto t = core::ParseRfc3339(rfc3339);
  EXPECT_TRUE(t.ok()) << rfc3339;
  return t.ok() ? *t : core::Time{};
}

api::Budget Budget(std::string nodes, std::vector<std::string> reasons = {}) {
  api::Budget b;
  b.nodes = std::move(nodes);
  b.reasons = std::move(reasons);
  return b;
}

api::Budget Scheduled(std::string nodes, std::string schedule, core::Duration duration,
                      std::vector<std::string> reasons = {}) {
  api::Budget b = Budget(std::move(nodes), std::move(reasons));
  b.schedule = std::move(schedule);
  b.duration = duration;
  return b;
}

api::NodePool PoolWith(std::vector<api::Budget> budgets, std::string name = "default") {
  api::NodePool p = testing::Pool(std::move(name));
  p.disruption.budgets = std::move(budgets);
  return p;
}

// 2025-01-01 is a Wednesday.
const core::Time kWednesdayMorning = At("2025-01-01T10:00:00Z");

TEST(BudgetAllowanceTest, IntsAndPercentages) {
  EXPECT_EQ(*BudgetAllowance("10%", 12), 2);
  EXPECT_EQ(*BudgetAllowance("10%", 0), 0);
  EXPECT_EQ(*BudgetAllowance("5", 3), 5);
  EXPECT_EQ(*BudgetAllowance("0", 3), 0);
  EXPECT_FALSE(BudgetAllowance("ten", 3).ok());
  EXPECT_FALSE(BudgetAllowance("-1", 3).ok());
}

TEST(BudgetAllowanceTest, PercentagesRoundUp) {
  EXPECT_EQ(*BudgetAllowance("10%", 1), 1) << "10% of one node still allows that node";
  EXPECT_EQ(*BudgetAllowance("10%", 10), 1);
  EXPECT_EQ(*BudgetAllowance("10%", 11), 2);
  EXPECT_EQ(*BudgetAllowance("33%", 10), 4);
  EXPECT_EQ(*BudgetAllowance("100%", 7), 7);
  EXPECT_EQ(*BudgetAllowance("0%", 7), 0);
}

TEST(AllowedDisruptionsTest, TheDefaultBudgetIsTenPercentOfThePool) {
  const api::NodePool pool = testing::Pool();  // budgets as decoded: [{nodes: 10%}]
  EXPECT_EQ(AllowedDisruptions(pool, 12, "Underutilized", kWednesdayMorning), 2);
  EXPECT_EQ(AllowedDisruptions(pool, 3, "Drifted", kWednesdayMorning), 1);
  EXPECT_EQ(AllowedDisruptions(pool, 0, "Empty", kWednesdayMorning), 0);
}

TEST(AllowedDisruptionsTest, NoBudgetMeansUnlimited) {
  EXPECT_EQ(AllowedDisruptions(PoolWith({}), 12, "Empty", kWednesdayMorning), INT_MAX);
  // A budget for other reasons only does not limit this one.
  EXPECT_EQ(AllowedDisruptions(PoolWith({Budget("0", {"Drifted"})}), 12, "Empty",
                               kWednesdayMorning),
            INT_MAX);
}

TEST(AllowedDisruptionsTest, BudgetsApplyToTheReasonsTheyList) {
  const api::NodePool pool = PoolWith({Budget("100%"), Budget("1", {"Empty"}),
                                       Budget("0", {"Drifted"}),
                                       Budget("3", {"Empty", "Drifted"})});
  EXPECT_EQ(AllowedDisruptions(pool, 10, "Empty", kWednesdayMorning), 1);
  EXPECT_EQ(AllowedDisruptions(pool, 10, "Drifted", kWednesdayMorning), 0);
  EXPECT_EQ(AllowedDisruptions(pool, 10, "Underutilized", kWednesdayMorning), 10);
}

TEST(AllowedDisruptionsTest, TheMostRestrictiveBudgetWins) {
  const api::NodePool pool = PoolWith({Budget("5"), Budget("20%")});
  EXPECT_EQ(AllowedDisruptions(pool, 10, "Empty", kWednesdayMorning), 2) << "20% of 10 < 5";
  EXPECT_EQ(AllowedDisruptions(pool, 50, "Empty", kWednesdayMorning), 5) << "5 < 20% of 50";
}

TEST(AllowedDisruptionsTest, AScheduledBudgetAppliesOnlyWhileItsWindowIsOpen) {
  // Karpenter's documented example: no disruption on weekdays from 09:00 for 8 hours (UTC).
  const api::NodePool pool =
      PoolWith({Scheduled("0", "0 9 * * mon-fri", hours(8)), Budget("10")});
  EXPECT_EQ(AllowedDisruptions(pool, 20, "Underutilized", At("2025-01-01T08:59:59Z")), 10);
  EXPECT_EQ(AllowedDisruptions(pool, 20, "Underutilized", At("2025-01-01T09:00:00Z")), 0);
  EXPECT_EQ(AllowedDisruptions(pool, 20, "Underutilized", At("2025-01-01T16:59:59Z")), 0);
  EXPECT_EQ(AllowedDisruptions(pool, 20, "Underutilized", At("2025-01-01T17:00:00Z")), 10);
  EXPECT_EQ(AllowedDisruptions(pool, 20, "Underutilized", At("2025-01-04T10:00:00Z")), 10)
      << "Saturday";
  EXPECT_EQ(AllowedDisruptions(pool, 20, "Underutilized", At("2025-01-06T09:30:00Z")), 0)
      << "Monday";
}

TEST(AllowedDisruptionsTest, AScheduledBudgetCanAlsoAllowMoreForAWhile) {
  // Karpenter's documented example: only during the first ten minutes of each day may 100%
  // of the pool be disrupted for drift; the rest of the day drift is blocked.
  const api::NodePool pool = PoolWith({Scheduled("100%", "@daily", minutes(10), {"Drifted"}),
                                       Budget("0", {"Drifted"})});
  // Both budgets apply at 00:05: the most restrictive (0) still wins, as upstream.
  EXPECT_EQ(AllowedDisruptions(pool, 4, "Drifted", At("2025-01-02T00:05:00Z")), 0);
  const api::NodePool window_only = PoolWith({Scheduled("0", "@daily", minutes(10))});
  EXPECT_EQ(AllowedDisruptions(window_only, 4, "Empty", At("2025-01-02T00:09:59Z")), 0);
  EXPECT_EQ(AllowedDisruptions(window_only, 4, "Empty", At("2025-01-02T00:10:00Z")), INT_MAX);
}

TEST(AllowedDisruptionsTest, AScheduledBudgetOnlyLimitsItsReasons) {
  const api::NodePool pool = PoolWith({Scheduled("0", "0 9 * * mon-fri", hours(8), {"Drifted"})});
  EXPECT_EQ(AllowedDisruptions(pool, 5, "Drifted", kWednesdayMorning), 0);
  EXPECT_EQ(AllowedDisruptions(pool, 5, "Empty", kWednesdayMorning), INT_MAX);
}

TEST(AllowedDisruptionsTest, AnUnparsableScheduleBlocksEveryReason) {
  // Hour 25 does not exist. The broken budget lists only Drifted, but upstream fails the whole
  // pool closed rather than guess what was meant.
  const api::NodePool pool =
      PoolWith({Budget("100%"), Scheduled("0", "0 25 * * *", hours(1), {"Drifted"})});
  EXPECT_EQ(AllowedDisruptions(pool, 10, "Drifted", kWednesdayMorning), 0);
  EXPECT_EQ(AllowedDisruptions(pool, 10, "Empty", kWednesdayMorning), 0);
  EXPECT_EQ(AllowedDisruptions(PoolWith({Scheduled("5", "every day", hours(1))}), 10, "Empty",
                               kWednesdayMorning),
            0);
}

TEST(AllowedDisruptionsTest, AScheduleAndADurationGoTogether) {
  api::Budget duration_only = Budget("5");
  duration_only.duration = hours(1);
  EXPECT_EQ(AllowedDisruptions(PoolWith({duration_only}), 10, "Empty", kWednesdayMorning), 0)
      << "a duration without a schedule is misconfigured: fail closed";
  api::Budget schedule_only = Budget("0");
  schedule_only.schedule = "* * * * *";
  EXPECT_EQ(AllowedDisruptions(PoolWith({schedule_only}), 10, "Empty", kWednesdayMorning),
            INT_MAX)
      << "a schedule without a duration opens a window of length zero";
}

TEST(AllowedDisruptionsTest, AScheduleThatNeverFiresIsAlwaysActiveAsUpstream) {
  const api::NodePool pool = PoolWith({Scheduled("0", "0 0 30 2 *", hours(1))});
  EXPECT_EQ(AllowedDisruptions(pool, 10, "Empty", kWednesdayMorning), 0);
}

TEST(AllowedDisruptionsTest, NodesAreOnlyReadWhileTheBudgetIsActive) {
  const api::NodePool pool = PoolWith({Scheduled("lots", "0 9 * * sat", hours(1)), Budget("3")});
  EXPECT_EQ(AllowedDisruptions(pool, 10, "Empty", kWednesdayMorning), 3);
  EXPECT_EQ(AllowedDisruptions(pool, 10, "Empty", At("2025-01-04T09:30:00Z")), 0);
}

TEST(DescribeBudgetTest, NamesTheBudgetThatDecides) {
  const api::NodePool pool =
      PoolWith({Scheduled("0", "0 9 * * mon-fri", hours(8)), Budget("10%")});
  EXPECT_EQ(DescribeBudget(pool, 12, "Underutilized", kWednesdayMorning),
            "nodepool default allows 0 disruptions for reason Underutilized now (budget nodes=0 "
            "schedule=\"0 9 * * mon-fri\" duration=8h)");
  EXPECT_EQ(DescribeBudget(pool, 12, "Underutilized", At("2025-01-01T18:00:00Z")),
            "nodepool default allows 2 disruptions for reason Underutilized now (budget "
            "nodes=10% of 12 nodes)");
  EXPECT_EQ(DescribeBudget(PoolWith({Scheduled("1", "@daily", minutes(90), {"Drifted"})}), 3,
                           "Drifted", At("2025-01-01T01:00:00Z")),
            "nodepool default allows 1 disruption for reason Drifted now (budget nodes=1 "
            "schedule=\"@daily\" duration=1h30m reasons=Drifted)");
}

TEST(DescribeBudgetTest, SaysWhyThereIsNoLimit) {
  EXPECT_EQ(DescribeBudget(PoolWith({Budget("0", {"Drifted"})}), 4, "Empty", kWednesdayMorning),
            "nodepool default allows unlimited disruptions for reason Empty now (no budget "
            "applies to this reason)");
  EXPECT_EQ(DescribeBudget(PoolWith({Scheduled("0", "0 9 * * sat", hours(1))}), 4, "Empty",
                           kWednesdayMorning),
            "nodepool default allows unlimited disruptions for reason Empty now (no budget for "
            "this reason is active)");
}

TEST(DescribeBudgetTest, NamesAMisconfiguredBudget) {
  const std::string got = DescribeBudget(
      PoolWith({Budget("100%"), Scheduled("0", "0 25 * * *", hours(1), {"Drifted"})}), 4, "Empty",
      kWednesdayMorning);
  EXPECT_EQ(got.rfind("nodepool default allows 0 disruptions for reason Empty now (budget nodes=0 "
                      "schedule=\"0 25 * * *\" duration=1h reasons=Drifted is misconfigured: ",
                      0),
            0u)
      << got;
  EXPECT_NE(got.find("hour field \"25\""), std::string::npos) << got;
}

// A cluster of managed nodes, built the way the lifecycle controllers leave them.
class BuildBudgetMappingTest : public ::testing::Test {
 protected:
  BuildBudgetMappingTest() { world_.MustCreate(testing::Pool()); }

  struct Options {
    std::string pool = "default";
    bool initialized = true;
    bool has_node = true;
    bool ready = true;
  };
  // NodeClaim <pool>-<i> and, unless told otherwise, its Ready Node ip-<i>.
  void AddNode(int i, Options o) {
    const std::string id = std::to_string(i);
    api::NodeClaim c;
    c.metadata.name = o.pool + "-" + id;
    c.metadata.labels = {{s::kLabelNodePool, o.pool}};
    c.metadata.finalizers = {kTerminationFinalizer};
    c.status.provider_id = "aws:///zone-a/i-" + id;
    c.status.node_name = "ip-" + id;
    const core::Time now = world_.clock.Now();
    c.status.conditions = {{kConditionLaunched, "True", "", "", now},
                           {kConditionRegistered, "True", "", "", now}};
    if (o.initialized) c.status.conditions.push_back({kConditionInitialized, "True", "", "", now});
    world_.MustCreate(c);
    if (!o.has_node) return;
    api::Node n;
    n.metadata.name = "ip-" + id;
    n.metadata.labels = {{s::kLabelNodePool, o.pool}};
    n.metadata.finalizers = {kTerminationFinalizer};
    n.spec.provider_id = c.status.provider_id;
    n.status.conditions = {{"Ready", o.ready ? "True" : "False", "", "", now}};
    world_.MustCreate(n);
  }
  void AddNode(int i) { AddNode(i, Options{}); }
  void AddNodes(int from, int to) {
    for (int i = from; i <= to; ++i) AddNode(i);
  }
  void SetBudgets(std::vector<api::Budget> budgets, const std::string& pool = "default") {
    auto p = world_.MustGet<api::NodePool>("", pool);
    p.disruption.budgets = std::move(budgets);
    ASSERT_TRUE(world_.cluster.Update(p).ok());
  }
  void TaintDisrupted(int i, const std::string& effect = s::kTaintEffectNoSchedule) {
    auto n = world_.MustGet<api::Node>("", "ip-" + std::to_string(i));
    n.spec.taints.push_back({s::kTaintDisrupted, "", effect});
    ASSERT_TRUE(world_.cluster.Update(n).ok());
  }
  int Allowed(const std::string& reason = "Underutilized", const std::string& pool = "default") {
    BudgetMapping m = BuildBudgetMapping(world_.cluster, reason, world_.clock.Now());
    auto it = m.find(pool);
    EXPECT_NE(it, m.end()) << "no entry for nodepool " << pool;
    return it == m.end() ? -1 : it->second;
  }

  World world_;
};

TEST_F(BuildBudgetMappingTest, EveryNodePoolGetsAnEntryEvenWithoutNodes) {
  EXPECT_EQ(Allowed(), 0) << "10% of no nodes";
}

TEST_F(BuildBudgetMappingTest, TheDefaultBudgetCountsThePoolsNodes) {
  AddNodes(1, 12);
  EXPECT_EQ(Allowed(), 2) << "ceil(10% of 12)";
}

TEST_F(BuildBudgetMappingTest, OnlyInitializedNodeClaimsWithANodeCountTowardsTheTotal) {
  SetBudgets({Budget("50%")});
  AddNodes(1, 2);
  AddNode(3, {.initialized = false});
  AddNode(4, {.has_node = false});
  EXPECT_EQ(Allowed(), 1) << "50% of 2, not of 4";
}

TEST_F(BuildBudgetMappingTest, NodeClaimsWhoseInstanceIsTerminatingDoNotCount) {
  SetBudgets({Budget("50%")});
  AddNodes(1, 4);
  auto c = world_.MustGet<api::NodeClaim>("", "default-4");
  c.status.conditions.push_back({"InstanceTerminating", "True", "", "", world_.clock.Now()});
  ASSERT_TRUE(world_.cluster.Update(c).ok());
  EXPECT_EQ(Allowed(), 2) << "50% of 3, rounded up; the terminating one is not disrupting either";
}

TEST_F(BuildBudgetMappingTest, NodesOfOtherPoolsCountForTheirOwnPool) {
  world_.MustCreate(testing::Pool("gpu"));
  SetBudgets({Budget("50%")});
  SetBudgets({Budget("50%")}, "gpu");
  AddNodes(1, 2);
  for (int i = 3; i <= 8; ++i) AddNode(i, {.pool = "gpu"});
  EXPECT_EQ(Allowed("Empty", "default"), 1);
  EXPECT_EQ(Allowed("Empty", "gpu"), 3);
}

TEST_F(BuildBudgetMappingTest, DeletingNodesUseUpTheBudget) {
  SetBudgets({Budget("3")});
  AddNodes(1, 10);
  ASSERT_TRUE(world_.cluster.Delete<api::NodeClaim>("", "default-1").ok());
  EXPECT_EQ(Allowed(), 2);
  ASSERT_TRUE(world_.cluster.Delete<api::Node>("", "ip-2").ok());
  EXPECT_EQ(Allowed(), 1);
}

TEST_F(BuildBudgetMappingTest, NotReadyNodesUseUpTheBudget) {
  SetBudgets({Budget("3")});
  AddNodes(1, 9);
  AddNode(10, {.ready = false});
  EXPECT_EQ(Allowed(), 2);
}

TEST_F(BuildBudgetMappingTest, NodesTaintedForAnInProgressCommandUseUpTheBudget) {
  SetBudgets({Budget("3")});
  AddNodes(1, 10);
  TaintDisrupted(1);
  TaintDisrupted(2);
  EXPECT_EQ(Allowed(), 1);
  TaintDisrupted(3, s::kTaintEffectPreferNoSchedule);
  EXPECT_EQ(Allowed(), 1) << "only the NoSchedule taint marks a disruption in progress";
}

TEST_F(BuildBudgetMappingTest, TheBudgetNeverGoesBelowZero) {
  SetBudgets({Budget("1")});
  AddNodes(1, 5);
  TaintDisrupted(1);
  TaintDisrupted(2);
  ASSERT_TRUE(world_.cluster.Delete<api::NodeClaim>("", "default-3").ok());
  EXPECT_EQ(Allowed(), 0);
}

TEST_F(BuildBudgetMappingTest, UnlimitedStaysUnlimited) {
  SetBudgets({});
  AddNodes(1, 3);
  TaintDisrupted(1);
  EXPECT_EQ(Allowed(), INT_MAX);
}

TEST_F(BuildBudgetMappingTest, ScheduledBudgetsAreEvaluatedAtTheGivenTime) {
  SetBudgets({Scheduled("0", "0 9 * * mon-fri", hours(8), {"Drifted"}), Budget("50%")});
  AddNodes(1, 4);
  world_.clock.Set(At("2025-01-02T12:00:00Z"));  // Thursday noon
  EXPECT_EQ(Allowed("Drifted"), 0);
  EXPECT_EQ(Allowed("Empty"), 2);
  world_.clock.Set(At("2025-01-02T20:00:00Z"));
  EXPECT_EQ(Allowed("Drifted"), 2);
}

}  // namespace
}  // namespace nodesmith::controllers
