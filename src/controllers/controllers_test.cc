// The controller set end to end on the simulated runtime: pending pods become a NodeClaim one
// batch window later, an instance, a registered and initialized node; once its pods are gone
// the node is removed as empty and terminated. A minimal kubelet and scheduler stand in for the
// simulated world.
#include "controllers/controllers.h"

#include <gmock/gmock.h>
#include <gtest/gtest.h>

#include <set>

#include "api/conditions.h"
#include "api/ec2nodeclass.h"
#include "controllers/testing/fixtures.h"
#include "runtime/controller_runtime.h"
#include "runtime/event_loop.h"

namespace nodesmith::controllers {
namespace {

using std::chrono::seconds;
using ::testing::ElementsAre;
using ::testing::IsEmpty;
using ::testing::SizeIs;
namespace s = scheduling;

// Stamps each event with the virtual time it was recorded at.
class TimedRecorder : public runtime::EventRecorder {
 public:
  explicit TimedRecorder(const core::Clock& clock) : clock_(clock) {}
  void Record(runtime::RecordedEvent e) override {
    if (!e.type.empty()) timeline.emplace_back(clock_.Now(), e.type);
    events.push_back(std::move(e));
  }
  // Seconds since kStart of the first event of `type`, or -1.
  double FirstAt(const std::string& type) const {
    for (const auto& [t, ty] : timeline) {
      if (ty == type) return (t - testing::kStart).count() / 1e9;
    }
    return -1;
  }
  std::vector<std::pair<core::Time, std::string>> timeline;
  std::vector<runtime::RecordedEvent> events;

 private:
  const core::Clock& clock_;
};

class ControllerSetTest : public ::testing::Test {
 protected:
  ControllerSetTest() {
    api::NodePool pool = testing::Pool();
    pool.disruption.consolidation_policy = "WhenEmpty";
    pool.disruption.consolidate_after = core::NillableDuration{seconds(30)};
    world_.MustCreate(pool);
    world_.MustCreate(testing::ReadyNodeClass());
    set_ = NewControllers(world_.clock, world_.cluster, world_.cloud, recorder_, Settings{});
    for (runtime::Controller* c : set_->All()) runtime_.Register(*c);
    // Kubelet: a launched NodeClaim's Node registers 20 s later and is Ready 10 s after that;
    // then the scheduler binds every pending pod to it.
    world_.cluster.Watch(cluster::Kind::kNodeClaim, [this](const cluster::WatchEvent& e) {
      if (e.type == cluster::WatchEventType::kDeleted || !e.object) return;
      const auto& claim = std::get<api::NodeClaim>(*e.object);
      if (claim.status.provider_id.empty() || !launched_.insert(claim.metadata.name).second) return;
      const std::string node = "ip-" + claim.metadata.name;
      loop_.After(seconds(20), [this, claim, node] { world_.RegisterNode(claim, node, false); });
      loop_.After(seconds(30), [this, node] {
        auto n = world_.cluster.Get<api::Node>("", node);
        if (!n.ok()) return;
        n->status.conditions = {{"Ready", "True", "KubeletReady", "", world_.clock.Now()}};
        ASSERT_TRUE(world_.cluster.Update(*n).ok());
        for (const auto& p : world_.cluster.List<api::Pod>()) {
          if (p.spec.node_name.empty()) {
            ASSERT_TRUE(world_.cluster.Bind(p.metadata.namespace_, p.metadata.name, node).ok());
          }
        }
      });
    });
  }

  void RunFor(core::Duration d) { loop_.RunUntil(world_.clock.Now() + d); }

  testing::World world_;
  TimedRecorder recorder_{world_.clock};
  runtime::EventLoop loop_{world_.clock};
  runtime::SimulatedRuntime runtime_{loop_, world_.cluster};
  std::unique_ptr<ControllerSet> set_;
  std::set<std::string> launched_;
};

TEST_F(ControllerSetTest, WiresEveryControllerOnce) {
  EXPECT_THAT(runtime_.Controllers(),
              ElementsAre(kProvisionerName, kLifecycleName, kPodEventsName, kDriftDetectionName,
                          kDisruptionName, kDisruptionQueueName, kTerminationName,
                          kGarbageCollectionName, kNodePoolHashName, kNodePoolValidationName,
                          kNodePoolReadinessName, kNodePoolCounterName));
  EXPECT_NE(set_->Find(kTerminationName), nullptr);
  EXPECT_EQ(set_->Find("nope"), nullptr);
}

TEST_F(ControllerSetTest, FromPendingPodsToAnInitializedNodeAndBackToNothing) {
  // Three pods that fit one small node together (1.9 CPU allocatable).
  for (const char* name : {"a", "b", "c"}) world_.MustCreate(testing::PendingPod(name, "500m"));
  RunFor(seconds(60));

  EXPECT_EQ(recorder_.FirstAt("NodeClaimCreated"), 1.0) << "one idle second after the pods";
  EXPECT_EQ(recorder_.FirstAt("NodeClaimLaunched"), 1.0);
  EXPECT_EQ(recorder_.FirstAt("NodeRegistered"), 21.0);
  EXPECT_EQ(recorder_.FirstAt("NodeInitialized"), 31.0);
  auto claims = world_.cluster.List<api::NodeClaim>();
  ASSERT_THAT(claims, SizeIs(1));
  EXPECT_TRUE(claims[0].IsTrue(kConditionInitialized));
  for (const auto& p : world_.cluster.List<api::Pod>()) {
    EXPECT_EQ(p.spec.node_name, "ip-" + claims[0].metadata.name);
  }
  EXPECT_EQ(runtime_.ErrorCount(kProvisionerName), 0);
  EXPECT_EQ(runtime_.ErrorCount(kLifecycleName), 0);

  // The workload goes away; 30 s later the node is empty long enough, and 15 s after that the
  // decision has been validated.
  for (const char* name : {"a", "b", "c"}) {
    ASSERT_TRUE(world_.cluster.Delete<api::Pod>("default", name).ok());
  }
  const double deleted_at = (world_.clock.Now() - testing::kStart).count() / 1e9;
  RunFor(seconds(60));
  const double decided = recorder_.FirstAt("DisruptionDecision");
  EXPECT_GE(decided, deleted_at + 30 + 15);
  EXPECT_LE(decided, deleted_at + 40 + 15) << "within one poll of consolidateAfter, then validated";
  EXPECT_EQ(recorder_.FirstAt("NodeTainted"), decided);
  EXPECT_EQ(recorder_.FirstAt("NodeClaimDeleted"), decided);
  EXPECT_THAT(world_.cluster.List<api::NodeClaim>(), IsEmpty());
  EXPECT_THAT(world_.cluster.List<api::Node>(), IsEmpty());
  EXPECT_THAT(world_.cloud.List(), IsEmpty());
  for (const auto& name : runtime_.Controllers()) {
    EXPECT_EQ(runtime_.ErrorCount(name), 0) << name;
  }
}

TEST_F(ControllerSetTest, ANodePoolWhoseNodeClassIsNotReadyLaunchesNothing) {
  api::EC2NodeClass node_class = world_.MustGet<api::EC2NodeClass>("", "default");
  node_class.conditions = {{"Ready", "False", "SubnetsNotFound", "SubnetSelector did not match any Subnets",
                            world_.clock.Now()}};
  ASSERT_TRUE(world_.cluster.Update(node_class).ok());
  world_.MustCreate(testing::PendingPod("a", "500m"));
  RunFor(seconds(30));
  EXPECT_FALSE(api::IsConditionTrue(world_.MustGet<api::NodePool>("", "default").conditions, "Ready"));
  EXPECT_THAT(world_.cluster.List<api::NodeClaim>(), IsEmpty());
  bool logged = false;
  for (const auto& e : recorder_.events) logged = logged || e.message == "ignoring nodepool, not ready";
  EXPECT_TRUE(logged) << "the provisioner says why the pod waits";
}

TEST_F(ControllerSetTest, StatusFollowsTheNodesAsKarpenterKeepsIt) {
  RunFor(seconds(1));
  api::NodePool pool = world_.MustGet<api::NodePool>("", "default");
  EXPECT_EQ(pool.metadata.annotations[kNodePoolHashAnnotation], NodePoolHash(pool));
  EXPECT_TRUE(api::IsConditionTrue(pool.conditions, "ValidationSucceeded"));
  EXPECT_TRUE(api::IsConditionTrue(pool.conditions, "NodeClassReady"));
  EXPECT_TRUE(api::IsConditionTrue(pool.conditions, "Ready"));
  EXPECT_EQ(pool.nodes, 0);

  for (const char* name : {"a", "b"}) world_.MustCreate(testing::PendingPod(name, "500m"));
  RunFor(seconds(60));
  pool = world_.MustGet<api::NodePool>("", "default");
  EXPECT_EQ(pool.nodes, 1);
  EXPECT_EQ(pool.resources.Get("cpu"), api::Quantity::MustParse("2")) << "one small node";
  EXPECT_EQ(pool.resources.Get("memory"), api::Quantity::MustParse("16Gi"));
  auto claims = world_.cluster.List<api::NodeClaim>();
  ASSERT_THAT(claims, SizeIs(1));
  ASSERT_TRUE(claims[0].status.last_pod_event_time.has_value());
  const core::Time consolidatable_at = *claims[0].status.last_pod_event_time + seconds(30);
  EXPECT_EQ(claims[0].FindCondition(kConditionConsolidatable), nullptr) << "pods just arrived";

  RunFor(consolidatable_at - world_.clock.Now() + seconds(1));
  const api::NodeClaim marked = world_.MustGet<api::NodeClaim>("", claims[0].metadata.name);
  const api::Condition* consolidatable = marked.FindCondition(kConditionConsolidatable);
  ASSERT_NE(consolidatable, nullptr);
  EXPECT_EQ(consolidatable->last_transition_time, consolidatable_at) << "marked when it turned";

  for (const char* name : {"a", "b"}) {
    ASSERT_TRUE(world_.cluster.Delete<api::Pod>("default", name).ok());
  }
  RunFor(seconds(120));
  ASSERT_THAT(world_.cluster.List<api::NodeClaim>(), IsEmpty());
  pool = world_.MustGet<api::NodePool>("", "default");
  EXPECT_EQ(pool.nodes, 0);
  EXPECT_TRUE(pool.resources.Get("cpu").IsZero());
  for (const auto& name : runtime_.Controllers()) {
    EXPECT_EQ(runtime_.ErrorCount(name), 0) << name;
  }
}

// The counter writes the NodePool's status when a node comes or goes; to the provisioner that is
// no NodePool change that restarts the batch window.
TEST_F(ControllerSetTest, ANodePoolStatusWriteDoesNotHoldBackABatch) {
  for (const char* name : {"a", "b"}) world_.MustCreate(testing::PendingPod(name, "500m"));
  loop_.After(std::chrono::milliseconds(500), [this] {
    api::Node tainted;  // counted for the pool, no home for the pods
    tainted.metadata.name = "ip-tainted";
    tainted.metadata.labels = {{s::kLabelNodePool, "default"},
                               {s::kLabelInstanceTypeStable, "small"},
                               {s::kLabelNodeInitialized, "true"}};
    tainted.spec.provider_id = "aws:///zone-a/i-tainted";
    tainted.spec.taints = {{"dedicated", "other", "NoSchedule"}};
    tainted.status.capacity = {{"cpu", api::Quantity::MustParse("2")}};
    world_.MustCreate(std::move(tainted));
  });
  RunFor(std::chrono::milliseconds(900));
  EXPECT_EQ(world_.MustGet<api::NodePool>("", "default").nodes, 1) << "the node was counted";
  RunFor(seconds(5));
  EXPECT_EQ(recorder_.FirstAt("NodeClaimCreated"), 1.0) << "one idle second after the pods";
}

TEST_F(ControllerSetTest, InsufficientCapacityAtLaunchIsRetriedOnceCapacityReturns) {
  // Spot capacity runs out between the plan and the launch of the first NodeClaim, for a minute.
  bool marked = false;
  world_.cluster.Watch(cluster::Kind::kNodeClaim, [&](const cluster::WatchEvent& e) {
    if (e.type != cluster::WatchEventType::kAdded || marked) return;
    marked = true;
    for (const char* type : {"small", "large"}) {
      world_.cloud.MarkUnavailable({type, "zone-a", "spot"},
                                   world_.clock.Now() + std::chrono::minutes(1));
    }
  });
  world_.MustCreate(testing::PendingPod("a"));
  RunFor(seconds(120));

  std::vector<std::string> failed, launched;
  for (const auto& e : recorder_.events) {
    if (e.type == "NodeClaimLaunchFailed") failed.push_back(testing::World::Field(e, "nodeClaim"));
    if (e.type == "NodeClaimLaunched") launched.push_back(testing::World::Field(e, "instanceType"));
  }
  ASSERT_THAT(failed, SizeIs(1));
  EXPECT_THAT(recorder_.FirstAt("PodUnschedulable"), ::testing::Gt(1.0))
      << "re-planned at once, while nothing can launch";
  EXPECT_THAT(launched, ElementsAre("small"));
  EXPECT_GE(recorder_.FirstAt("NodeClaimLaunched"), 61.0);
  EXPECT_LE(recorder_.FirstAt("NodeClaimLaunched"), 72.0) << "within a retry of the window's end";
  auto claims = world_.cluster.List<api::NodeClaim>();
  ASSERT_THAT(claims, SizeIs(1)) << "the failed one is gone, one replacement only";
  EXPECT_NE(claims[0].metadata.name, failed[0]);
  EXPECT_EQ(world_.MustGet<api::Pod>("default", "a").spec.node_name, "ip-" + claims[0].metadata.name);
}

}  // namespace
}  // namespace nodesmith::controllers
