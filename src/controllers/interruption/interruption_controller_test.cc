// InterruptionController as a specification: given the cloud's notices about instances backing
// NodeClaims, which NodeClaims are deleted, which offerings are marked unavailable, what is
// recorded, and that every notice is handled once and then deleted from the queue.
#include "controllers/interruption/interruption_controller.h"

#include <deque>
#include <set>

#include <gmock/gmock.h>
#include <gtest/gtest.h>

#include "controllers/nodeclaim/lifecycle.h"
#include "controllers/termination/terminator.h"
#include "controllers/testing/fixtures.h"

namespace nodesmith::controllers {
namespace {

using cloud::InterruptionMessage;
using cloud::InterruptionMessageKind;
using cloud::sim::InterruptionKind;
using std::chrono::minutes;
using std::chrono::seconds;
using ::testing::Contains;
using ::testing::ElementsAre;
using ::testing::HasSubstr;
using ::testing::IsEmpty;
using ::testing::SizeIs;
using testing::World;
namespace s = scheduling;

// A queue whose messages a test writes directly: for the kinds the simulated cloud never sends
// (rebalance recommendations, unknown events, notices naming several instances) and for a queue
// that cannot be read. Deletes are recorded; a deleted id is never received again.
class ScriptedQueue : public cloud::InterruptionQueue {
 public:
  void Send(InterruptionMessage m) { pending_.push_back(std::move(m)); }
  core::Result<std::vector<InterruptionMessage>> Receive(int max_messages) override {
    if (!receive_error_.ok()) return receive_error_;
    std::vector<InterruptionMessage> out;
    while (!pending_.empty() && static_cast<int>(out.size()) < max_messages) {
      out.push_back(pending_.front());
      pending_.pop_front();
    }
    return out;
  }
  core::Status Delete(const InterruptionMessage& m) override {
    deleted_.push_back(m.id);
    return core::Status::Ok();
  }
  std::string QueueName() const override { return "scripted"; }

  core::Status receive_error_;
  std::deque<InterruptionMessage> pending_;
  std::vector<std::string> deleted_;
};

class InterruptionControllerTest : public ::testing::Test {
 protected:
  InterruptionControllerTest() { world_.MustCreate(testing::Pool()); }

  // A launched, registered spot NodeClaim of type `type` with its Node `node`, holding `pods`
  // one-CPU pods.
  api::NodeClaim Launch(const std::string& claim, const std::string& node, const std::string& type,
                        int pods = 0) {
    api::NodeClaim c;
    c.metadata.name = claim;
    c.metadata.labels = {{s::kLabelNodePool, "default"}};
    c.metadata.finalizers = {kTerminationFinalizer};
    c.spec.requirements = {{s::kLabelInstanceTypeStable, "In", {type}, std::nullopt},
                           {s::kLabelCapacityType, "In", {cloud::kCapacityTypeSpot}, std::nullopt}};
    world_.MustCreate(c);
    EXPECT_TRUE(lifecycle_.Reconcile({"", claim}).ok());
    world_.RegisterNode(Claim(claim), node);
    EXPECT_TRUE(lifecycle_.Reconcile({"", claim}).ok());
    for (int i = 0; i < pods; ++i) {
      api::Pod p = testing::PendingPod(node + "-pod-" + std::to_string(i));
      p.status.phase = "Running";
      world_.MustCreate(p);
      EXPECT_TRUE(world_.cluster.Bind("default", p.metadata.name, node).ok());
    }
    return Claim(claim);
  }
  api::NodeClaim Claim(const std::string& name) { return world_.MustGet<api::NodeClaim>("", name); }
  bool Deleting(const std::string& name) {
    auto c = world_.cluster.Get<api::NodeClaim>("", name);
    return !c.ok() || c->metadata.deletion_timestamp.has_value();
  }
  static std::string InstanceId(const api::NodeClaim& claim) {
    return InstanceIdOf(claim.status.provider_id);
  }
  // Whether the small type's spot offering in zone-a is available to the provisioner now.
  bool SmallSpotAvailable() {
    auto types = world_.cloud.GetInstanceTypes(testing::Pool());
    EXPECT_TRUE(types.ok());
    for (const auto& t : *types) {
      if (t->name != "small") continue;
      for (const auto& o : t->offerings) {
        if (o.zone == "zone-a" && o.capacity_type == cloud::kCapacityTypeSpot) return o.available;
      }
    }
    ADD_FAILURE() << "no small/zone-a/spot offering";
    return false;
  }
  core::Result<runtime::ReconcileResult> Reconcile() { return controller_.Reconcile({}); }

  World world_;
  NodeClaimLifecycle lifecycle_{world_.clock, world_.cluster, world_.cloud, world_.recorder};
  InterruptionController controller_{world_.clock, world_.cluster, world_.cloud, world_.cloud,
                                     world_.recorder};
};

TEST_F(InterruptionControllerTest, ASpotWarningMarksTheOfferingUnavailableAndDeletesTheNodeClaim) {
  api::NodeClaim claim = Launch("spot-a", "node-a", "small", /*pods=*/2);
  api::NodeClaim other = Launch("spot-b", "node-b", "large");
  world_.clock.Step(minutes(10));
  ASSERT_TRUE(SmallSpotAvailable());
  ASSERT_TRUE(world_.cloud.Interrupt(claim.status.provider_id, InterruptionKind::kSpotInterruption).ok());

  auto r = Reconcile();
  ASSERT_TRUE(r.ok()) << r.status().message();

  EXPECT_TRUE(Deleting("spot-a"));
  EXPECT_FALSE(Deleting("spot-b")) << "only the interrupted instance's NodeClaim";
  EXPECT_FALSE(SmallSpotAvailable()) << "the reclaimed capacity is not offered for the replacement";
  auto events = world_.recorder.OfType("Interruption");
  ASSERT_THAT(events, SizeIs(1));
  EXPECT_EQ(World::Field(events[0], "node"), "node-a");
  EXPECT_EQ(World::Field(events[0], "nodeClaim"), "spot-a");
  EXPECT_EQ(World::Field(events[0], "kind"), "spot");
  EXPECT_EQ(World::Field(events[0], "instanceId"), InstanceId(claim));
  EXPECT_THAT(events[0].message, HasSubstr("reclaimed in 2m"));
  EXPECT_EQ(world_.cloud.QueuedNotices(), 0u) << "the notice is deleted once handled";

  // The Terminator takes it from there: cordon, drain, terminate ahead of the reclaim.
  Terminator terminator(world_.clock, world_.cluster, world_.cloud, world_.recorder);
  ASSERT_TRUE(terminator.Reconcile({"", "spot-a"}).ok());
  EXPECT_THAT(world_.recorder.OfType("NodeTainted"), SizeIs(1));
  EXPECT_THAT(world_.recorder.OfType("PodEvicted"), SizeIs(2));
}

TEST_F(InterruptionControllerTest, TheOfferingComesBackAfterThreeMinutes) {
  api::NodeClaim claim = Launch("spot-a", "node-a", "small");
  ASSERT_TRUE(world_.cloud.Interrupt(claim.status.provider_id, InterruptionKind::kSpotInterruption).ok());
  ASSERT_TRUE(Reconcile().ok());
  world_.clock.Step(minutes(3) - seconds(1));
  EXPECT_FALSE(SmallSpotAvailable());
  world_.clock.Step(seconds(1));
  EXPECT_TRUE(SmallSpotAvailable());
}

TEST_F(InterruptionControllerTest, AScheduledChangeReplacesTheNodeWithoutMarkingTheOffering) {
  api::NodeClaim claim = Launch("spot-a", "node-a", "small");
  ASSERT_TRUE(world_.cloud.Interrupt(claim.status.provider_id, InterruptionKind::kScheduledChange).ok());
  ASSERT_TRUE(Reconcile().ok());
  EXPECT_TRUE(Deleting("spot-a"));
  EXPECT_TRUE(SmallSpotAvailable());
  auto events = world_.recorder.OfType("Interruption");
  ASSERT_THAT(events, SizeIs(1));
  EXPECT_EQ(World::Field(events[0], "kind"), "scheduledChange");
  EXPECT_EQ(world_.cloud.QueuedNotices(), 0u);
}

TEST_F(InterruptionControllerTest, StoppingAndTerminatedInstancesAreReplaced) {
  api::NodeClaim stopping = Launch("spot-a", "node-a", "small");
  api::NodeClaim terminated = Launch("spot-b", "node-b", "large");
  ASSERT_TRUE(world_.cloud.Interrupt(stopping.status.provider_id, InterruptionKind::kStopping).ok());
  ASSERT_TRUE(world_.cloud.Interrupt(terminated.status.provider_id, InterruptionKind::kTerminated).ok());
  ASSERT_TRUE(Reconcile().ok());
  EXPECT_TRUE(Deleting("spot-a"));
  EXPECT_TRUE(Deleting("spot-b"));
  std::vector<std::string> kinds;
  for (const auto& e : world_.recorder.OfType("Interruption")) kinds.push_back(World::Field(e, "kind"));
  EXPECT_THAT(kinds, ElementsAre("stopping", "terminated"));
  EXPECT_TRUE(SmallSpotAvailable());
}

TEST_F(InterruptionControllerTest, ANoticeIsHandledOnce) {
  api::NodeClaim claim = Launch("spot-a", "node-a", "small");
  ASSERT_TRUE(world_.cloud.Interrupt(claim.status.provider_id, InterruptionKind::kSpotInterruption).ok());
  ASSERT_TRUE(Reconcile().ok());
  for (int i = 0; i < 3; ++i) {
    world_.clock.Step(minutes(1));  // past the queue's visibility timeout
    ASSERT_TRUE(Reconcile().ok());
  }
  EXPECT_THAT(world_.recorder.OfType("Interruption"), SizeIs(1));
  int deletes = 0;
  for (const auto& m : world_.Messages()) deletes += m.rfind("Deleting nodeclaim", 0) == 0;
  EXPECT_EQ(deletes, 1);
}

TEST_F(InterruptionControllerTest, ANoticeForAnInstanceWithoutANodeClaimIsOnlyDeleted) {
  api::NodeClaim claim = Launch("spot-a", "node-a", "small");
  ScriptedQueue queue;
  InterruptionController controller(world_.clock, world_.cluster, queue, world_.cloud,
                                    world_.recorder);
  queue.Send({"m1", InterruptionMessageKind::kSpotInterruption, "i-00000000000000000"});
  auto r = controller.Reconcile({});
  ASSERT_TRUE(r.ok()) << r.status().message();
  EXPECT_THAT(queue.deleted_, ElementsAre("m1"));
  EXPECT_FALSE(Deleting("spot-a"));
  EXPECT_TRUE(SmallSpotAvailable());
  EXPECT_THAT(world_.recorder.OfType("Interruption"), IsEmpty());
  EXPECT_THAT(world_.Messages(), Contains(HasSubstr("no nodeclaim for instance i-00000000000000000")));
}

TEST_F(InterruptionControllerTest, ARebalanceRecommendationIsOnlyRecorded) {
  api::NodeClaim claim = Launch("spot-a", "node-a", "small");
  ScriptedQueue queue;
  InterruptionController controller(world_.clock, world_.cluster, queue, world_.cloud,
                                    world_.recorder);
  queue.Send({"m1", InterruptionMessageKind::kRebalanceRecommendation, InstanceId(claim)});
  ASSERT_TRUE(controller.Reconcile({}).ok());
  EXPECT_FALSE(Deleting("spot-a"));
  EXPECT_TRUE(SmallSpotAvailable());
  auto events = world_.recorder.OfType("Interruption");
  ASSERT_THAT(events, SizeIs(1));
  EXPECT_EQ(World::Field(events[0], "kind"), "rebalanceRecommendation");
  EXPECT_THAT(events[0].message, HasSubstr("(no action)"));
  EXPECT_THAT(queue.deleted_, ElementsAre("m1"));
}

TEST_F(InterruptionControllerTest, AnUnknownMessageIsLoggedAndDeleted) {
  api::NodeClaim claim = Launch("spot-a", "node-a", "small");
  ScriptedQueue queue;
  InterruptionController controller(world_.clock, world_.cluster, queue, world_.cloud,
                                    world_.recorder);
  InterruptionMessage m{"m1", InterruptionMessageKind::kUnknown, InstanceId(claim)};
  m.state = "pending";
  m.detail = "instance state \"pending\" is not acted on";
  queue.Send(m);
  ASSERT_TRUE(controller.Reconcile({}).ok());
  EXPECT_FALSE(Deleting("spot-a"));
  EXPECT_THAT(world_.recorder.OfType("Interruption"), IsEmpty());
  EXPECT_THAT(world_.Messages(), Contains(HasSubstr("is not acted on")));
  EXPECT_THAT(queue.deleted_, ElementsAre("m1"));
}

TEST_F(InterruptionControllerTest, ANoticeNamingSeveralInstancesIsDeletedOnceAfterAllAreHandled) {
  api::NodeClaim a = Launch("spot-a", "node-a", "small");
  api::NodeClaim b = Launch("spot-b", "node-b", "large");
  ScriptedQueue queue;
  InterruptionController controller(world_.clock, world_.cluster, queue, world_.cloud,
                                    world_.recorder);
  queue.Send({"health-1", InterruptionMessageKind::kScheduledChange, InstanceId(a)});
  queue.Send({"health-1", InterruptionMessageKind::kScheduledChange, InstanceId(b)});
  queue.Send({"spot-2", InterruptionMessageKind::kSpotInterruption, InstanceId(a)});
  ASSERT_TRUE(controller.Reconcile({}).ok());
  EXPECT_TRUE(Deleting("spot-a"));
  EXPECT_TRUE(Deleting("spot-b"));
  EXPECT_THAT(queue.deleted_, ElementsAre("health-1", "spot-2"));
  int deletes = 0;
  for (const auto& msg : world_.Messages()) deletes += msg.rfind("Deleting nodeclaim", 0) == 0;
  EXPECT_EQ(deletes, 2) << "a NodeClaim already being deleted is left alone";
  EXPECT_FALSE(SmallSpotAvailable()) << "the spot warning still marks its offering";
}

TEST_F(InterruptionControllerTest, MoreNoticesThanOneReceiveHoldsAreAllHandledInOnePass) {
  std::vector<std::string> names;
  for (int i = 0; i < 12; ++i) {
    std::string name = "claim-" + std::to_string(i);
    api::NodeClaim c = Launch(name, "node-" + std::to_string(i), "small");
    ASSERT_TRUE(world_.cloud.Interrupt(c.status.provider_id, InterruptionKind::kScheduledChange).ok());
    names.push_back(name);
  }
  ASSERT_TRUE(Reconcile().ok());
  for (const auto& name : names) EXPECT_TRUE(Deleting(name)) << name;
  EXPECT_EQ(world_.cloud.QueuedNotices(), 0u);
}

TEST_F(InterruptionControllerTest, PollsTheQueueEveryFewSeconds) {
  auto r = Reconcile();
  ASSERT_TRUE(r.ok());
  ASSERT_TRUE(r->requeue_after.has_value()) << "nothing else wakes the controller";
  EXPECT_EQ(*r->requeue_after, seconds(2));
  EXPECT_EQ(controller_.Name(), "interruption");
  EXPECT_TRUE(controller_.Singleton());
  EXPECT_THAT(controller_.Watches(), IsEmpty());
}

TEST_F(InterruptionControllerTest, AQueueThatCannotBeReadIsAReconcileError) {
  ScriptedQueue queue;
  queue.receive_error_ = core::Status(core::StatusCode::kNotFound, "queue does not exist");
  InterruptionController controller(world_.clock, world_.cluster, queue, world_.cloud,
                                    world_.recorder);
  auto r = controller.Reconcile({});
  ASSERT_FALSE(r.ok());
  EXPECT_THAT(r.status().message(), HasSubstr("interruption queue scripted: queue does not exist"));
}

}  // namespace
}  // namespace nodesmith::controllers
