// PodEvents as a specification: binds, completions and deletions on a NodeClaim's node move
// its lastPodEventTime, at most once per dedupe window.
#include "controllers/nodeclaim/pod_events.h"

#include <gmock/gmock.h>
#include <gtest/gtest.h>

#include "controllers/testing/fixtures.h"

namespace nodesmith::controllers {
namespace {

using std::chrono::seconds;
using testing::World;

class PodEventsTest : public ::testing::Test {
 protected:
  PodEventsTest() {
    api::NodeClaim c;
    c.metadata.name = "default-abcde";
    c.status.provider_id = "aws:///zone-a/i-0123";
    c.status.node_name = "ip-1";
    world_.MustCreate(c);
    api::Node n;
    n.metadata.name = "ip-1";
    n.spec.provider_id = "aws:///zone-a/i-0123";
    world_.MustCreate(n);
  }

  core::Status Reconcile(const std::string& pod) {
    auto r = controller_.Reconcile({"default", pod});
    return r.ok() ? core::Status::Ok() : r.status();
  }
  std::optional<core::Time> LastPodEvent() {
    return world_.MustGet<api::NodeClaim>("", "default-abcde").status.last_pod_event_time;
  }

  World world_;
  PodEvents controller_{world_.clock, world_.cluster};
};

// The NodeClaim behind a pod's node is found through the store's provider-ID index
// (ClusterApi::ForEachWithProviderId), not by reading every NodeClaim on every pod event.
TEST_F(PodEventsTest, TheNodeClaimIsFoundByItsProviderIdNotByReadingEveryNodeClaim) {
  testing::WalkCountingCluster counting(world_.cluster);
  PodEvents controller(world_.clock, counting);
  world_.MustCreate(testing::PendingPod("a"));
  ASSERT_TRUE(world_.cluster.Bind("default", "a", "ip-1").ok());
  ASSERT_TRUE(controller.Reconcile({"default", "a"}).ok());
  EXPECT_EQ(LastPodEvent(), world_.clock.Now());
  EXPECT_EQ(counting.walks[cluster::Kind::kNodeClaim], 0);
}

TEST_F(PodEventsTest, ABindIsAPodEvent) {
  world_.MustCreate(testing::PendingPod("a"));
  ASSERT_TRUE(Reconcile("a").ok());
  EXPECT_FALSE(LastPodEvent().has_value()) << "a pending pod is no event";

  world_.clock.Step(seconds(5));
  ASSERT_TRUE(world_.cluster.Bind("default", "a", "ip-1").ok());
  ASSERT_TRUE(Reconcile("a").ok());
  EXPECT_EQ(LastPodEvent(), world_.clock.Now());
}

TEST_F(PodEventsTest, ADeletionIsAPodEventButNotWithinTheDedupeWindow) {
  world_.MustCreate(testing::PendingPod("a"));
  ASSERT_TRUE(world_.cluster.Bind("default", "a", "ip-1").ok());
  ASSERT_TRUE(Reconcile("a").ok());
  const core::Time bound = world_.clock.Now();

  world_.clock.Step(seconds(3));
  ASSERT_TRUE(world_.cluster.Delete<api::Pod>("default", "a").ok());
  ASSERT_TRUE(Reconcile("a").ok());
  EXPECT_EQ(LastPodEvent(), bound) << "within 10 s of the last write";

  world_.MustCreate(testing::PendingPod("b"));
  ASSERT_TRUE(world_.cluster.Bind("default", "b", "ip-1").ok());
  ASSERT_TRUE(Reconcile("b").ok());
  world_.clock.Step(seconds(20));
  ASSERT_TRUE(world_.cluster.Delete<api::Pod>("default", "b").ok());
  ASSERT_TRUE(Reconcile("b").ok());
  EXPECT_EQ(LastPodEvent(), world_.clock.Now());
}

TEST_F(PodEventsTest, APodFinishingIsAPodEvent) {
  world_.MustCreate(testing::PendingPod("job"));
  ASSERT_TRUE(world_.cluster.Bind("default", "job", "ip-1").ok());
  ASSERT_TRUE(Reconcile("job").ok());
  world_.clock.Step(seconds(60));
  api::Pod p = world_.MustGet<api::Pod>("default", "job");
  p.status.phase = "Succeeded";
  ASSERT_TRUE(world_.cluster.Update(p).ok());
  ASSERT_TRUE(Reconcile("job").ok());
  EXPECT_EQ(LastPodEvent(), world_.clock.Now());
}

}  // namespace
}  // namespace nodesmith::controllers
