// Terminator as a specification: cordon, drain in Karpenter's tiers, PodDisruptionBudgets,
// terminationGracePeriod, and the order of instance, Node and finalizer.
#include "controllers/termination/terminator.h"

#include <set>

#include <gmock/gmock.h>
#include <gtest/gtest.h>

#include "controllers/nodeclaim/lifecycle.h"
#include "controllers/testing/fixtures.h"

namespace nodesmith::controllers {
namespace {

using std::chrono::seconds;
using ::testing::ElementsAre;
using ::testing::IsEmpty;
using ::testing::SizeIs;
using testing::World;
namespace s = scheduling;

constexpr const char* kClaim = "default-abcde";
constexpr const char* kNode = "ip-192-168-0-1";

class TerminatorTest : public ::testing::Test {
 protected:
  TerminatorTest() {
    world_.MustCreate(testing::Pool());
    Launch(kClaim, kNode);
  }

  // A NodeClaim launched in the cloud and registered as `node`.
  void Launch(const std::string& claim, const std::string& node) {
    api::NodeClaim c;
    c.metadata.name = claim;
    c.metadata.labels = {{s::kLabelNodePool, "default"}};
    c.metadata.finalizers = {kTerminationFinalizer};
    c.spec.requirements = {{s::kLabelInstanceTypeStable, "In", {"large"}, std::nullopt}};
    world_.MustCreate(c);
    NodeClaimLifecycle lifecycle(world_.clock, world_.cluster, world_.cloud, world_.recorder);
    EXPECT_TRUE(lifecycle.Reconcile({"", claim}).ok());
    world_.RegisterNode(world_.MustGet<api::NodeClaim>("", claim), node);
    EXPECT_TRUE(lifecycle.Reconcile({"", claim}).ok());
  }

  api::NodeClaim Claim() { return world_.MustGet<api::NodeClaim>("", kClaim); }
  void BoundPod(api::Pod p) {
    p.status.phase = "Running";
    p.status.conditions = {{"Ready", "True", "", "", world_.clock.Now()}};
    world_.MustCreate(p);
    ASSERT_TRUE(world_.cluster.Bind("default", p.metadata.name, kNode).ok());
  }
  core::Result<runtime::ReconcileResult> Reconcile() { return terminator_.Reconcile({"", kClaim}); }
  std::vector<std::string> EvictedPods() {
    std::vector<std::string> out;
    for (const auto& e : world_.recorder.OfType("PodEvicted")) out.push_back(World::Field(e, "pod"));
    return out;
  }

  World world_;
  Terminator terminator_{world_.clock, world_.cluster, world_.cloud, world_.recorder};
};

TEST_F(TerminatorTest, ANodeClaimNotBeingDeletedIsLeftAlone) {
  BoundPod(testing::PendingPod("a"));
  ASSERT_TRUE(Reconcile().ok());
  EXPECT_TRUE(world_.recorder.OfType("NodeTainted").empty());
  EXPECT_TRUE(world_.cluster.Get<api::Pod>("default", "a").ok());
}

TEST_F(TerminatorTest, CordonsDrainsTerminatesAndReleasesTheNodeClaim) {
  BoundPod(testing::PendingPod("a"));
  BoundPod(testing::PendingPod("b"));
  const std::string provider_id = Claim().status.provider_id;
  ASSERT_TRUE(world_.cluster.Delete<api::NodeClaim>("", kClaim).ok());

  auto r = Reconcile();
  ASSERT_TRUE(r.ok()) << r.status().message();
  EXPECT_THAT(world_.Messages(), ::testing::Contains("Cordoned node " + std::string(kNode)));
  auto tainted = world_.recorder.OfType("NodeTainted");
  ASSERT_THAT(tainted, SizeIs(1));
  EXPECT_EQ(World::Field(tainted[0], "node"), kNode);
  EXPECT_THAT(EvictedPods(), ElementsAre("default/a", "default/b"));
  EXPECT_THAT(world_.cluster.List<api::Pod>(), IsEmpty());
  EXPECT_FALSE(world_.cluster.Get<api::Node>("", kNode).ok()) << "the Node object is deleted";
  EXPECT_THAT(world_.Messages(), ::testing::Contains("Deleted node " + std::string(kNode)));
  EXPECT_FALSE(world_.cloud.Get(provider_id).ok()) << "the instance is terminated";
  EXPECT_FALSE(world_.cluster.Get<api::NodeClaim>("", kClaim).ok()) << "the finalizer is gone";
  auto deleted = world_.recorder.OfType("NodeClaimDeleted");
  ASSERT_THAT(deleted, SizeIs(1));
  EXPECT_EQ(World::Field(deleted[0], "node"), kNode);
}

TEST_F(TerminatorTest, DrainsNonCriticalPodsBeforeCriticalOnesAndSkipsTolerantOnes) {
  api::Pod critical = testing::PendingPod("critical");
  critical.spec.priority_class_name = "system-cluster-critical";
  BoundPod(critical);
  api::Pod daemon = testing::PendingPod("daemon");
  daemon.metadata.owner_references = {{"apps/v1", "DaemonSet", "agent", "u1", true}};
  BoundPod(daemon);
  api::Pod tolerant = testing::PendingPod("tolerant");
  tolerant.metadata.owner_references = {{"apps/v1", "DaemonSet", "proxy", "u2", true}};
  tolerant.spec.tolerations = {{"", "Exists", "", "", std::nullopt}};
  BoundPod(tolerant);
  BoundPod(testing::PendingPod("web"));
  ASSERT_TRUE(world_.cluster.Delete<api::NodeClaim>("", kClaim).ok());

  ASSERT_TRUE(Reconcile().ok());
  EXPECT_THAT(EvictedPods(), ElementsAre("default/web", "default/daemon", "default/critical"));
  EXPECT_THAT(world_.cluster.List<api::Pod>(), IsEmpty())
      << "the tolerant pod goes with the node, as the pod garbage collector would";
}

// A cloud that merges terminations, as EC2's TerminateInstances does: it records each
// DeleteAll's NodeClaims and fails the terminations named in `refuse`.
class BatchingCloud : public testing::ForwardingCloud {
 public:
  using ForwardingCloud::ForwardingCloud;
  size_t MaxDeleteBatch() const override { return 10; }
  core::Status Delete(const api::NodeClaim& c) override {
    singles.push_back(c.metadata.name);
    return ForwardingCloud::Delete(c);
  }
  std::vector<core::Status> DeleteAll(const std::vector<api::NodeClaim>& claims) override {
    std::vector<std::string> names;
    std::vector<core::Status> out;
    for (const api::NodeClaim& c : claims) {
      names.push_back(c.metadata.name);
      if (refuse.count(c.metadata.name)) {
        out.push_back(core::Status::Internal("instance is protected"));
      } else if (slow.count(c.metadata.name)) {
        out.push_back(core::Status::Ok());  // accepted, still shutting down
      } else {
        out.push_back(ForwardingCloud::Delete(c));
      }
    }
    batches.push_back(std::move(names));
    return out;
  }
  std::set<std::string> refuse;
  std::set<std::string> slow;  // instances that stay live after their termination
  std::vector<std::vector<std::string>> batches;
  std::vector<std::string> singles;
};

class TerminationBatchTest : public TerminatorTest {
 protected:
  TerminationBatchTest() {
    Launch("default-b", "ip-192-168-0-2");
    Launch("default-c", "ip-192-168-0-3");
  }
  core::Result<runtime::ReconcileResult> Reconcile(const std::string& claim) {
    return terminator_.Reconcile({"", claim});
  }
  BatchingCloud cloud_{world_.cloud};
  Terminator terminator_{world_.clock, world_.cluster, cloud_, world_.recorder};
};

TEST_F(TerminationBatchTest, DrainedNodeClaimsTerminateTogetherInOneCall) {
  const std::vector<std::string> claims = {kClaim, "default-b", "default-c"};
  std::vector<std::string> instances;
  for (const std::string& c : claims) {
    instances.push_back(world_.MustGet<api::NodeClaim>("", c).status.provider_id);
    ASSERT_TRUE(world_.cluster.Delete<api::NodeClaim>("", c).ok());
  }
  // Each is cordoned and drained, then waits for the batch's window.
  for (const std::string& c : claims) {
    auto r = Reconcile(c);
    ASSERT_TRUE(r.ok()) << r.status().message();
    EXPECT_EQ(r->requeue_after, std::chrono::milliseconds(100)) << c;
    world_.clock.Step(std::chrono::milliseconds(10));
  }
  EXPECT_THAT(cloud_.batches, IsEmpty());
  EXPECT_THAT(world_.cloud.List(), SizeIs(3)) << "nothing is terminated before the window ends";

  // The first whose window ends terminates all three in one call; the others send nothing.
  world_.clock.Step(std::chrono::milliseconds(70));
  for (const std::string& c : claims) {
    auto r = Reconcile(c);
    ASSERT_TRUE(r.ok()) << r.status().message();
  }
  EXPECT_THAT(cloud_.batches, ElementsAre(ElementsAre(kClaim, "default-b", "default-c")));
  EXPECT_THAT(cloud_.singles, IsEmpty());
  for (const std::string& id : instances) EXPECT_FALSE(world_.cloud.Get(id).ok()) << id;
  for (const std::string& c : claims)
    EXPECT_FALSE(world_.cluster.Get<api::NodeClaim>("", c).ok()) << c << "'s finalizer is gone";
}

TEST_F(TerminationBatchTest, ATerminationThatFailedInAnothersBatchIsSentAgainByItsOwnReconcile) {
  cloud_.refuse = {"default-b"};
  for (const std::string c : {kClaim, "default-b"}) {
    ASSERT_TRUE(world_.cluster.Delete<api::NodeClaim>("", c).ok());
    ASSERT_TRUE(Reconcile(c).ok());
  }
  world_.clock.Step(std::chrono::milliseconds(100));
  ASSERT_TRUE(Reconcile(kClaim).ok()) << "its own termination went through";
  EXPECT_FALSE(world_.cluster.Get<api::NodeClaim>("", kClaim).ok());

  // b's own reconcile waits a window of its own, then sends and reports the failure.
  auto waits = Reconcile("default-b");
  ASSERT_TRUE(waits.ok());
  EXPECT_EQ(waits->requeue_after, std::chrono::milliseconds(100));
  world_.clock.Step(std::chrono::milliseconds(100));
  auto failed = Reconcile("default-b");
  ASSERT_FALSE(failed.ok());
  EXPECT_THAT(failed.status().message(),
              ::testing::HasSubstr("terminating instance of nodeclaim default-b: instance is protected"));
  EXPECT_THAT(cloud_.batches, ElementsAre(ElementsAre(kClaim, "default-b"), ElementsAre("default-b")));
  EXPECT_TRUE(world_.cluster.Get<api::NodeClaim>("", "default-b").ok()) << "b keeps its finalizer";
}

TEST_F(TerminationBatchTest, AnInstanceAlreadyGoneOrJustTerminatedIsNotSentAgain) {
  // c's instance went by itself (a spot reclaim): its NodeClaim is released without a call.
  ASSERT_TRUE(world_.cloud.Delete(world_.MustGet<api::NodeClaim>("", "default-c")).ok());
  ASSERT_TRUE(world_.cluster.Delete<api::NodeClaim>("", "default-c").ok());
  ASSERT_TRUE(Reconcile("default-c").ok());
  EXPECT_FALSE(world_.cluster.Get<api::NodeClaim>("", "default-c").ok());
  EXPECT_THAT(cloud_.batches, IsEmpty());
  EXPECT_THAT(cloud_.singles, IsEmpty());

  // b's instance takes its time to go: a reconcile within the poll interval (a pod event) does
  // not send the termination again; one after it does, as Karpenter's Delete does.
  cloud_.slow = {"default-b"};
  ASSERT_TRUE(world_.cluster.Delete<api::NodeClaim>("", "default-b").ok());
  ASSERT_TRUE(Reconcile("default-b").ok());
  world_.clock.Step(std::chrono::milliseconds(100));
  auto polled = Reconcile("default-b");
  ASSERT_TRUE(polled.ok());
  EXPECT_EQ(polled->requeue_after, seconds(5)) << "the instance is polled until it is gone";
  world_.clock.Step(seconds(1));
  ASSERT_TRUE(Reconcile("default-b").ok());
  EXPECT_THAT(cloud_.batches, ElementsAre(ElementsAre("default-b")));
  world_.clock.Step(seconds(4));
  ASSERT_TRUE(Reconcile("default-b").ok());
  world_.clock.Step(std::chrono::milliseconds(100));
  ASSERT_TRUE(Reconcile("default-b").ok());
  EXPECT_THAT(cloud_.batches, ElementsAre(ElementsAre("default-b"), ElementsAre("default-b")));
}

TEST(DrainTierTest, FollowsKarpentersOrder) {
  api::Pod p = testing::PendingPod("p");
  EXPECT_EQ(DrainTier(p), 0);
  p.metadata.owner_references = {{"apps/v1", "DaemonSet", "ds", "u", true}};
  EXPECT_EQ(DrainTier(p), 1);
  p.spec.priority_class_name = "system-node-critical";
  EXPECT_EQ(DrainTier(p), 3);
  p.metadata.owner_references.clear();
  EXPECT_EQ(DrainTier(p), 2);
  p.status.phase = "Succeeded";
  EXPECT_EQ(DrainTier(p), -1);
}

TEST_F(TerminatorTest, ADisruptionBudgetHoldsTheDrainAndItIsRetried) {
  api::Pod guarded = testing::PendingPod("guarded");
  guarded.metadata.labels = {{"app", "db"}};
  BoundPod(guarded);
  api::PodDisruptionBudget pdb;
  pdb.metadata.name = "db";
  pdb.metadata.namespace_ = "default";
  pdb.min_available = api::IntOrString{false, 1, ""};
  pdb.selector = api::LabelSelector{{{"app", "db"}}, {}};
  world_.MustCreate(pdb);
  ASSERT_TRUE(world_.cluster.Delete<api::NodeClaim>("", kClaim).ok());

  auto r = Reconcile();
  ASSERT_TRUE(r.ok());
  ASSERT_TRUE(r->requeue_after.has_value());
  EXPECT_EQ(*r->requeue_after, seconds(5));
  EXPECT_TRUE(world_.cluster.Get<api::Pod>("default", "guarded").ok());
  EXPECT_TRUE(world_.cluster.Get<api::Node>("", kNode).ok());
  EXPECT_TRUE(world_.cluster.Get<api::NodeClaim>("", kClaim).ok());

  // The budget is lifted: the next pass evicts and finishes.
  ASSERT_TRUE(world_.cluster.Delete<api::PodDisruptionBudget>("default", "db").ok());
  world_.clock.Step(seconds(5));
  ASSERT_TRUE(Reconcile().ok());
  EXPECT_THAT(EvictedPods(), ElementsAre("default/guarded"));
  EXPECT_FALSE(world_.cluster.Get<api::NodeClaim>("", kClaim).ok());
}

TEST_F(TerminatorTest, TheTerminationGracePeriodForcesTheDrain) {
  api::NodeClaim c = Claim();
  c.spec.termination_grace_period = seconds(12);
  ASSERT_TRUE(world_.cluster.Update(c).ok());
  api::Pod guarded = testing::PendingPod("guarded");
  guarded.metadata.labels = {{"app", "db"}};
  BoundPod(guarded);
  api::PodDisruptionBudget pdb;
  pdb.metadata.name = "db";
  pdb.metadata.namespace_ = "default";
  pdb.min_available = api::IntOrString{false, 1, ""};
  pdb.selector = api::LabelSelector{{{"app", "db"}}, {}};
  world_.MustCreate(pdb);
  ASSERT_TRUE(world_.cluster.Delete<api::NodeClaim>("", kClaim).ok());

  ASSERT_TRUE(Reconcile().ok());
  world_.clock.Step(seconds(10));
  auto r = Reconcile();
  ASSERT_TRUE(r.ok());
  EXPECT_EQ(r->requeue_after, seconds(2)) << "woken at the deadline";
  EXPECT_TRUE(world_.cluster.Get<api::Pod>("default", "guarded").ok());

  world_.clock.Step(seconds(2));
  ASSERT_TRUE(Reconcile().ok());
  EXPECT_FALSE(world_.cluster.Get<api::Pod>("default", "guarded").ok());
  auto evicted = world_.recorder.OfType("PodEvicted");
  ASSERT_THAT(evicted, SizeIs(1));
  EXPECT_EQ(World::Field(evicted[0], "forced"), "true");
  EXPECT_FALSE(world_.cluster.Get<api::NodeClaim>("", kClaim).ok());
}

TEST_F(TerminatorTest, ANodeClaimWithoutANodeOnlyTerminatesItsInstance) {
  ASSERT_TRUE(world_.cluster.Delete<api::Node>("", kNode).ok());
  const std::string provider_id = Claim().status.provider_id;
  ASSERT_TRUE(world_.cluster.Delete<api::NodeClaim>("", kClaim).ok());
  ASSERT_TRUE(Reconcile().ok());
  EXPECT_TRUE(world_.recorder.OfType("NodeTainted").empty());
  EXPECT_FALSE(world_.cloud.Get(provider_id).ok());
  EXPECT_FALSE(world_.cluster.Get<api::NodeClaim>("", kClaim).ok());
}

TEST_F(TerminatorTest, ANodeWhoseInstanceIsGoneIsNotDrained) {
  BoundPod(testing::PendingPod("a"));
  ASSERT_TRUE(world_.cloud.Fail(Claim().status.provider_id).ok());
  ASSERT_TRUE(world_.cluster.Delete<api::NodeClaim>("", kClaim).ok());
  ASSERT_TRUE(Reconcile().ok());
  EXPECT_TRUE(world_.recorder.OfType("NodeTainted").empty());
  EXPECT_TRUE(world_.recorder.OfType("PodEvicted").empty());
  EXPECT_FALSE(world_.cluster.Get<api::Pod>("default", "a").ok()) << "gone with its node";
  EXPECT_FALSE(world_.cluster.Get<api::Node>("", kNode).ok());
  EXPECT_FALSE(world_.cluster.Get<api::NodeClaim>("", kClaim).ok());
}

TEST_F(TerminatorTest, WaitsForTheInstanceToTerminateBeforeReleasingTheFinalizer) {
  cloud::sim::CloudTimings timings;
  timings.termination_latency = seconds(30);
  World slow;  // a cloud whose instances take 30 s to terminate
  cloud::sim::SimulatedCloud cloud(slow.clock, testing::TestCatalog(), timings);
  api::NodeClaim c;
  c.metadata.name = kClaim;
  c.metadata.finalizers = {kTerminationFinalizer};
  c.spec.requirements = {{s::kLabelInstanceTypeStable, "In", {"small"}, std::nullopt}};
  slow.MustCreate(c);
  NodeClaimLifecycle lifecycle(slow.clock, slow.cluster, cloud, slow.recorder);
  ASSERT_TRUE(lifecycle.Reconcile({"", kClaim}).ok());
  ASSERT_TRUE(slow.cluster.Delete<api::NodeClaim>("", kClaim).ok());

  Terminator terminator(slow.clock, slow.cluster, cloud, slow.recorder);
  auto r = terminator.Reconcile({"", kClaim});
  ASSERT_TRUE(r.ok());
  EXPECT_EQ(r->requeue_after, seconds(5));
  EXPECT_TRUE(slow.cluster.Get<api::NodeClaim>("", kClaim).ok());
  slow.clock.Step(seconds(30));
  ASSERT_TRUE(terminator.Reconcile({"", kClaim}).ok());
  EXPECT_FALSE(slow.cluster.Get<api::NodeClaim>("", kClaim).ok());
}

}  // namespace
}  // namespace nodesmith::controllers
