// The Consolidatable condition as a specification: it appears once consolidateAfter has passed
// since the node's last pod event (or its initialization), goes when a pod event restarts the
// wait, never appears under consolidateAfter Never, and its writes are no news to consolidation.
#include "controllers/nodeclaim/consolidatable.h"

#include <gtest/gtest.h>

#include "controllers/disruption/disruption_controller.h"
#include "controllers/nodeclaim/drift_detection.h"
#include "controllers/nodepool/counter.h"
#include "controllers/testing/fixtures.h"

namespace nodesmith::controllers {
namespace {

using std::chrono::minutes;
using std::chrono::seconds;
using testing::World;

class ConsolidatableTest : public ::testing::Test {
 protected:
  ConsolidatableTest() {
    api::NodePool pool = testing::Pool();
    pool.disruption.consolidate_after = core::NillableDuration{seconds(30)};
    world_.MustCreate(pool);
  }

  void SetConsolidateAfter(core::NillableDuration after) {
    api::NodePool p = world_.MustGet<api::NodePool>("", "default");
    p.disruption.consolidate_after = after;
    ASSERT_TRUE(world_.cluster.Update(p).ok());
  }
  // Marks, then the NodeClaim's Consolidatable condition (nullopt when absent) and what
  // MarkConsolidatable said about the next one.
  std::optional<api::Condition> Mark(const std::string& claim = "default-1") {
    auto next = MarkConsolidatable(world_.clock, world_.cluster);
    EXPECT_TRUE(next.ok()) << next.status().message();
    next_ = next.ok() ? *next : std::nullopt;
    // Keep the NodeClaim: FindCondition points into it.
    const api::NodeClaim stored = world_.MustGet<api::NodeClaim>("", claim);
    const api::Condition* c = stored.FindCondition(kConditionConsolidatable);
    return c != nullptr ? std::optional<api::Condition>(*c) : std::nullopt;
  }
  void PodEventNow(const std::string& claim = "default-1") {
    api::NodeClaim c = world_.MustGet<api::NodeClaim>("", claim);
    c.status.last_pod_event_time = world_.clock.Now();
    ASSERT_TRUE(world_.cluster.Update(c).ok());
  }

  World world_;
  std::optional<core::Duration> next_;
};

TEST_F(ConsolidatableTest, ANodeIsConsolidatableOnceConsolidateAfterPassedSinceItsInitialization) {
  world_.AddManagedNode("1");
  world_.clock.Step(seconds(10));
  EXPECT_FALSE(Mark().has_value());
  EXPECT_EQ(next_, seconds(20)) << "the moment it turns consolidatable";

  world_.clock.Step(seconds(20));
  auto c = Mark();
  ASSERT_TRUE(c.has_value());
  EXPECT_EQ(c->status, "True");
  EXPECT_EQ(c->reason, kConditionConsolidatable);
  EXPECT_EQ(c->last_transition_time, world_.clock.Now());
  EXPECT_EQ(c->observed_generation, 1);
  EXPECT_FALSE(next_.has_value()) << "nothing else is waiting";
}

TEST_F(ConsolidatableTest, APodEventRestartsTheWait) {
  world_.AddManagedNode("1");
  world_.clock.Step(seconds(30));
  ASSERT_TRUE(Mark().has_value());

  world_.clock.Step(seconds(5));
  PodEventNow();
  EXPECT_FALSE(Mark().has_value()) << "removed: the node just changed";
  EXPECT_EQ(next_, seconds(30));
  world_.clock.Step(seconds(30));
  EXPECT_TRUE(Mark().has_value());
}

TEST_F(ConsolidatableTest, ConsolidateAfterZeroIsConsolidatableAtOnceAndNeverIsNever) {
  world_.AddManagedNode("1");
  SetConsolidateAfter(core::NillableDuration{seconds(0)});
  EXPECT_TRUE(Mark().has_value());
  SetConsolidateAfter(core::NillableDuration{});
  world_.clock.Step(std::chrono::hours(24));
  EXPECT_FALSE(Mark().has_value());
  EXPECT_FALSE(next_.has_value());
}

TEST_F(ConsolidatableTest, ANodeNotInitializedIsNotConsolidatable) {
  world_.AddManagedNode("1", "default", "small", [&](api::NodeClaim& c) {
    c.status.conditions.pop_back();  // Initialized
  });
  world_.clock.Step(minutes(5));
  EXPECT_FALSE(Mark().has_value());
  EXPECT_FALSE(next_.has_value());
}

TEST_F(ConsolidatableTest, ANodeClaimBeingDeletedOrWithoutItsNodePoolIsLeftAsItIs) {
  world_.AddManagedNode("1");
  world_.AddManagedNode("2", "gone");
  world_.clock.Step(seconds(30));
  ASSERT_TRUE(Mark().has_value());
  EXPECT_FALSE(Mark("gone-2").has_value());
  ASSERT_TRUE(world_.cluster.Delete<api::NodeClaim>("", "default-1").ok());
  PodEventNow();
  EXPECT_TRUE(Mark().has_value()) << "not touched while being deleted";
}

TEST_F(ConsolidatableTest, DriftDetectionWakesWhenTheNextNodeTurnsConsolidatable) {
  DriftDetection controller(world_.clock, world_.cluster, world_.cloud, world_.recorder);
  world_.AddManagedNode("1");
  world_.clock.Step(seconds(18));
  auto r = controller.Reconcile({});
  ASSERT_TRUE(r.ok());
  EXPECT_EQ(r->requeue_after, seconds(12));
  SetConsolidateAfter(core::NillableDuration{minutes(5)});
  r = controller.Reconcile({});
  ASSERT_TRUE(r.ok());
  EXPECT_EQ(r->requeue_after, seconds(30)) << "the drift interval comes first";
}

// Consolidation skips its simulations while the cluster is unchanged; the Consolidatable
// condition and the NodePool's counts, written because of what consolidation already sees,
// must not count as a change.
TEST_F(ConsolidatableTest, StatusWritesDoNotMakeConsolidationSimulateAgain) {
  SetConsolidateAfter(core::NillableDuration{seconds(30)});
  world_.AddManagedNode("1");  // a small node, already the cheapest home for its pod
  world_.MustCreate(testing::PendingPod("web", "1500m"));
  ASSERT_TRUE(world_.cluster.Bind("default", "web", "ip-1").ok());
  auto simulator = std::make_shared<SchedulingSimulator>(world_.cluster, world_.cloud);
  DisruptionOptions options;
  options.simulator = simulator;
  DisruptionController disruption(world_.clock, world_.cluster, world_.cloud, world_.recorder,
                                  DefaultMethods(world_.clock, *simulator), options);
  NodePoolCounter counter(world_.cluster);

  world_.clock.Step(seconds(30));
  ASSERT_TRUE(disruption.Reconcile({}).ok());  // the pass at the moment the node turns ...
  const int solves = simulator->solves();
  ASSERT_GT(solves, 0) << "consolidation looked";
  ASSERT_TRUE(Mark().has_value());             // ... and the condition written just after
  ASSERT_TRUE(counter.Reconcile({}).ok());
  ASSERT_EQ(world_.MustGet<api::NodePool>("", "default").nodes, 1);

  world_.clock.Step(seconds(10));
  ASSERT_TRUE(disruption.Reconcile({}).ok());
  EXPECT_EQ(simulator->solves(), solves) << "nothing consolidation reads has changed";
}

}  // namespace
}  // namespace nodesmith::controllers
