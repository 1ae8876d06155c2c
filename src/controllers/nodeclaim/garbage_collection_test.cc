// GarbageCollector as a specification: orphaned instances are terminated once old enough, and
// NodeClaims whose instance vanished are deleted.
#include "controllers/nodeclaim/garbage_collection.h"

#include <gmock/gmock.h>
#include <gtest/gtest.h>

#include "controllers/nodeclaim/lifecycle.h"
#include "controllers/testing/fixtures.h"

namespace nodesmith::controllers {
namespace {

using std::chrono::minutes;
using std::chrono::seconds;
using ::testing::SizeIs;
using testing::World;
namespace s = scheduling;

api::NodeClaim Claim(std::string name) {
  api::NodeClaim c;
  c.metadata.name = std::move(name);
  c.metadata.labels = {{s::kLabelNodePool, "default"}};
  c.metadata.finalizers = {kTerminationFinalizer};
  c.spec.requirements = {{s::kLabelInstanceTypeStable, "In", {"small"}, std::nullopt}};
  return c;
}

class GarbageCollectionTest : public ::testing::Test {
 protected:
  GarbageCollectionTest() { world_.MustCreate(testing::Pool()); }

  World world_;
  GarbageCollector gc_{world_.clock, world_.cluster, world_.cloud, world_.recorder};
};

TEST_F(GarbageCollectionTest, RunsEveryTwoMinutes) {
  auto r = gc_.Reconcile({});
  ASSERT_TRUE(r.ok());
  EXPECT_EQ(r->requeue_after, minutes(2));
}

TEST_F(GarbageCollectionTest, AnInstanceWithoutANodeClaimIsTerminatedOnceOlderThanThirtySeconds) {
  api::NodeClaim orphan = Claim("lost");
  orphan.metadata.creation_timestamp = world_.clock.Now();
  auto launched = world_.cloud.Create(orphan);
  ASSERT_TRUE(launched.ok());

  world_.clock.Step(seconds(10));
  ASSERT_TRUE(gc_.Reconcile({}).ok());
  EXPECT_THAT(world_.cloud.List(), SizeIs(1)) << "too young: its NodeClaim may be on its way";

  world_.clock.Step(seconds(30));
  ASSERT_TRUE(gc_.Reconcile({}).ok());
  EXPECT_TRUE(world_.cloud.List().empty());
  EXPECT_THAT(world_.recorder.OfType("InstanceGarbageCollected"), SizeIs(1));
}

TEST_F(GarbageCollectionTest, InstancesOfNodeClaimsAreKept) {
  world_.MustCreate(Claim("default-abcde"));
  NodeClaimLifecycle lifecycle(world_.clock, world_.cluster, world_.cloud, world_.recorder);
  ASSERT_TRUE(lifecycle.Reconcile({"", "default-abcde"}).ok());
  world_.clock.Step(minutes(5));
  ASSERT_TRUE(gc_.Reconcile({}).ok());
  EXPECT_THAT(world_.cloud.List(), SizeIs(1));
  EXPECT_FALSE(world_.MustGet<api::NodeClaim>("", "default-abcde").metadata.deletion_timestamp);
}

// A Registered NodeClaim "default-abcde" (launched, its Node "ip-abcde" joined, Ready or not).
api::NodeClaim LaunchAndRegister(World& world, bool ready) {
  world.MustCreate(Claim("default-abcde"));
  NodeClaimLifecycle lifecycle(world.clock, world.cluster, world.cloud, world.recorder);
  EXPECT_TRUE(lifecycle.Reconcile({"", "default-abcde"}).ok());
  world.RegisterNode(world.MustGet<api::NodeClaim>("", "default-abcde"), "ip-abcde", ready);
  EXPECT_TRUE(lifecycle.Reconcile({"", "default-abcde"}).ok());
  api::NodeClaim c = world.MustGet<api::NodeClaim>("", "default-abcde");
  EXPECT_TRUE(c.IsTrue(kConditionRegistered));
  return c;
}

TEST_F(GarbageCollectionTest, ARegisteredNodeClaimWhoseInstanceIsGoneIsDeleted) {
  const api::NodeClaim c = LaunchAndRegister(world_, /*ready=*/false);
  ASSERT_TRUE(world_.cloud.Fail(c.status.provider_id).ok());
  world_.clock.Step(seconds(10));

  ASSERT_TRUE(gc_.Reconcile({}).ok());
  EXPECT_TRUE(world_.MustGet<api::NodeClaim>("", "default-abcde").metadata.deletion_timestamp);
  EXPECT_THAT(world_.recorder.OfType("NodeClaimGarbageCollected"), SizeIs(1));
}

TEST_F(GarbageCollectionTest, ANodeClaimWhoseNodeIsStillReadyIsKeptWhateverTheCloudSays) {
  const api::NodeClaim c = LaunchAndRegister(world_, /*ready=*/true);
  ASSERT_TRUE(world_.cloud.Fail(c.status.provider_id).ok());
  world_.clock.Step(minutes(5));

  ASSERT_TRUE(gc_.Reconcile({}).ok());
  EXPECT_FALSE(world_.MustGet<api::NodeClaim>("", "default-abcde").metadata.deletion_timestamp);
  EXPECT_THAT(world_.recorder.OfType("NodeClaimGarbageCollected"), SizeIs(0));
}

// EC2 is eventually consistent: an instance launched seconds ago may be missing from
// DescribeInstances. A claim is judged by the cloud's List only 10 s after its launch.
TEST_F(GarbageCollectionTest, ALaunchOfSecondsAgoThatTheCloudDoesNotListYetIsKept) {
  world_.MustCreate(Claim("default-abcde"));
  NodeClaimLifecycle lifecycle(world_.clock, world_.cluster, world_.cloud, world_.recorder);
  ASSERT_TRUE(lifecycle.Reconcile({"", "default-abcde"}).ok());
  const api::NodeClaim c = world_.MustGet<api::NodeClaim>("", "default-abcde");
  ASSERT_TRUE(c.IsTrue(kConditionLaunched));
  ASSERT_TRUE(world_.cloud.Fail(c.status.provider_id).ok());

  world_.clock.Step(seconds(5));
  ASSERT_TRUE(gc_.Reconcile({}).ok());
  EXPECT_FALSE(world_.MustGet<api::NodeClaim>("", "default-abcde").metadata.deletion_timestamp);

  // Still missing 10 s after the launch: it is gone, and so is the claim, registered or not.
  world_.clock.Step(seconds(6));
  ASSERT_TRUE(gc_.Reconcile({}).ok());
  EXPECT_TRUE(world_.MustGet<api::NodeClaim>("", "default-abcde").metadata.deletion_timestamp);
  EXPECT_THAT(world_.recorder.OfType("NodeClaimGarbageCollected"), SizeIs(1));
}

}  // namespace
}  // namespace nodesmith::controllers
