// NodeClaimLifecycle as a specification: launch, insufficient capacity, registration,
// initialization and the registration deadline.
#include "controllers/nodeclaim/lifecycle.h"

#include <gmock/gmock.h>
#include <gtest/gtest.h>

#include <set>

#include "controllers/testing/fixtures.h"

namespace nodesmith::controllers {
namespace {

using std::chrono::minutes;
using std::chrono::seconds;
using ::testing::Contains;
using ::testing::ElementsAre;
using ::testing::HasSubstr;
using ::testing::SizeIs;
using testing::World;
namespace s = scheduling;

api::NodeClaim Claim(std::vector<std::string> types = {"small", "large"}) {
  api::NodeClaim c;
  c.metadata.name = "default-abcde";
  c.metadata.labels = {{s::kLabelNodePool, "default"}};
  c.metadata.finalizers = {kTerminationFinalizer};
  c.spec.requirements = {{s::kLabelInstanceTypeStable, "In", std::move(types), std::nullopt},
                         {s::kLabelCapacityType, "In", {"spot"}, std::nullopt}};
  c.spec.resource_requests = {{"cpu", api::Quantity::MustParse("1")}};
  c.spec.taints = {{"dedicated", "web", "NoSchedule"}};
  c.spec.startup_taints = {{"cni", "", "NoSchedule"}};
  return c;
}

class LifecycleTest : public ::testing::Test {
 protected:
  LifecycleTest() { world_.MustCreate(testing::Pool()); }

  core::Result<runtime::ReconcileResult> Reconcile(const std::string& name = "default-abcde") {
    return lifecycle_.Reconcile({"", name});
  }
  api::NodeClaim Get() { return world_.MustGet<api::NodeClaim>("", "default-abcde"); }

  World world_;
  NodeClaimLifecycle lifecycle_{world_.clock, world_.cluster, world_.cloud, world_.recorder};
};

TEST_F(LifecycleTest, LaunchRecordsTheInstanceOnTheNodeClaim) {
  world_.MustCreate(Claim());
  auto r = Reconcile();
  ASSERT_TRUE(r.ok()) << r.status().message();
  api::NodeClaim c = Get();
  EXPECT_TRUE(c.IsTrue(kConditionLaunched));
  EXPECT_THAT(c.status.provider_id, HasSubstr("aws:///zone-a/i-"));
  EXPECT_EQ(c.metadata.labels.at(s::kLabelInstanceTypeStable), "small") << "the cheapest option";
  EXPECT_EQ(c.metadata.labels.at(s::kLabelCapacityType), "spot");
  EXPECT_EQ(c.status.capacity.Get("cpu"), api::Quantity::MustParse("2"));
  EXPECT_EQ(c.status.allocatable.Get("cpu"), api::Quantity::MustParse("1900m"));

  const std::string id = InstanceIdOf(c.status.provider_id);
  EXPECT_THAT(world_.Messages(),
              Contains("Launched instance: " + id + ", type: small, zone: zone-a, capacityType: spot"));
  auto launched = world_.recorder.OfType("NodeClaimLaunched");
  ASSERT_THAT(launched, SizeIs(1));
  EXPECT_EQ(World::Field(launched[0], "nodeClaim"), "default-abcde");
  EXPECT_EQ(World::Field(launched[0], "instanceType"), "small");
  EXPECT_EQ(World::Field(launched[0], "providerID"), c.status.provider_id);
  EXPECT_EQ(World::Field(launched[0], "pricePerHour"), "0.03");

  // A second reconcile launches nothing more.
  ASSERT_TRUE(Reconcile().ok());
  EXPECT_THAT(world_.cloud.List(), SizeIs(1));
}

// A cloud that stamps what it launched from on the NodeClaim it returns, as the AWS provider
// stamps the EC2NodeClass hash.
class StampingCloud : public testing::ForwardingCloud {
 public:
  using ForwardingCloud::ForwardingCloud;
  core::Result<api::NodeClaim> Create(const api::NodeClaim& c) override {
    auto out = ForwardingCloud::Create(c);
    if (out.ok()) out->metadata.annotations["example.com/launched-from"] = "hash-1";
    return out;
  }
};

TEST_F(LifecycleTest, LaunchKeepsTheAnnotationsTheCloudStamps) {
  api::NodeClaim claim = Claim();
  claim.metadata.annotations["team"] = "web";
  world_.MustCreate(claim);
  StampingCloud cloud(world_.cloud);
  NodeClaimLifecycle lifecycle{world_.clock, world_.cluster, cloud, world_.recorder};
  ASSERT_TRUE(lifecycle.Reconcile({"", "default-abcde"}).ok());
  EXPECT_EQ(Get().metadata.annotations.at("example.com/launched-from"), "hash-1");
  EXPECT_EQ(Get().metadata.annotations.at("team"), "web") << "the NodeClaim's own stay";
}

// A cloud that merges launches, as EC2's CreateFleet does: it records each CreateAll's
// NodeClaims and fails the launches named in `refuse`.
class BatchingCloud : public StampingCloud {
 public:
  using StampingCloud::StampingCloud;
  size_t MaxLaunchBatch() const override { return 10; }
  std::vector<core::Result<api::NodeClaim>> CreateAll(const std::vector<api::NodeClaim>& claims) override {
    std::vector<std::string> names;
    std::vector<core::Result<api::NodeClaim>> out;
    for (const api::NodeClaim& c : claims) {
      names.push_back(c.metadata.name);
      if (refuse.count(c.metadata.name)) {
        out.push_back(core::Status::Internal("launch template refused"));
      } else {
        out.push_back(Create(c));
      }
    }
    batches.push_back(std::move(names));
    return out;
  }
  std::set<std::string> refuse;
  std::vector<std::vector<std::string>> batches;
};

api::NodeClaim ClaimNamed(const std::string& name) {
  api::NodeClaim c = Claim();
  c.metadata.name = name;
  return c;
}

TEST_F(LifecycleTest, NodeClaimsWaitingForALaunchGoTogetherWhenTheCloudMergesLaunches) {
  BatchingCloud cloud(world_.cloud);
  NodeClaimLifecycle lifecycle{world_.clock, world_.cluster, cloud, world_.recorder};
  // One already launched and one being deleted are not launched again.
  world_.MustCreate(ClaimNamed("default-d"));
  ASSERT_TRUE(lifecycle.Reconcile({"", "default-d"}).ok());
  world_.MustCreate(ClaimNamed("default-e"));
  ASSERT_TRUE(world_.cluster.Delete<api::NodeClaim>("", "default-e").ok());
  cloud.batches.clear();
  for (const char* name : {"default-a", "default-b", "default-c"}) world_.MustCreate(ClaimNamed(name));

  ASSERT_TRUE(lifecycle.Reconcile({"", "default-b"}).ok());
  ASSERT_THAT(cloud.batches, SizeIs(1));
  EXPECT_THAT(cloud.batches[0], ElementsAre("default-b", "default-a", "default-c"))
      << "the reconciled NodeClaim first, then the others waiting";
  for (const char* name : {"default-a", "default-b", "default-c"}) {
    api::NodeClaim c = world_.MustGet<api::NodeClaim>("", name);
    EXPECT_TRUE(c.IsTrue(kConditionLaunched)) << name;
    EXPECT_EQ(c.metadata.annotations.at("example.com/launched-from"), "hash-1") << name;
  }
  EXPECT_THAT(world_.recorder.OfType("NodeClaimLaunched"), SizeIs(4));
  EXPECT_THAT(world_.cloud.List(), SizeIs(4));

  // Their own requests find them launched: no call more.
  ASSERT_TRUE(lifecycle.Reconcile({"", "default-a"}).ok());
  ASSERT_TRUE(lifecycle.Reconcile({"", "default-c"}).ok());
  EXPECT_THAT(cloud.batches, SizeIs(1));
}

TEST_F(LifecycleTest, ALaunchThatFailedInAnothersBatchIsLeftToItsOwnReconcile) {
  BatchingCloud cloud(world_.cloud);
  cloud.refuse = {"default-b"};
  NodeClaimLifecycle lifecycle{world_.clock, world_.cluster, cloud, world_.recorder};
  for (const char* name : {"default-a", "default-b"}) world_.MustCreate(ClaimNamed(name));
  ASSERT_TRUE(lifecycle.Reconcile({"", "default-a"}).ok()) << "a's launch succeeded";
  EXPECT_FALSE(world_.MustGet<api::NodeClaim>("", "default-b").IsTrue(kConditionLaunched));

  // A later NodeClaim's batch does not try b again ...
  world_.MustCreate(ClaimNamed("default-c"));
  ASSERT_TRUE(lifecycle.Reconcile({"", "default-c"}).ok());
  // ... b's own reconcile does, and reports the error (the runtime retries it with backoff).
  auto own = lifecycle.Reconcile({"", "default-b"});
  ASSERT_FALSE(own.ok());
  EXPECT_THAT(own.status().message(), HasSubstr("launching nodeclaim default-b: launch template refused"));
  EXPECT_THAT(cloud.batches, ElementsAre(ElementsAre("default-a", "default-b"), ElementsAre("default-c"),
                                         ElementsAre("default-b")));
}

TEST_F(LifecycleTest, ANodeClaimDeletedAfterFailingInABatchIsForgottenWithItsRequest) {
  BatchingCloud cloud(world_.cloud);
  cloud.refuse = {"default-b"};
  NodeClaimLifecycle lifecycle{world_.clock, world_.cluster, cloud, world_.recorder};
  for (const char* name : {"default-a", "default-b"}) world_.MustCreate(ClaimNamed(name));
  ASSERT_TRUE(lifecycle.Reconcile({"", "default-a"}).ok());
  // b goes before its own reconcile ran; that reconcile finds nothing.
  api::NodeClaim b = world_.MustGet<api::NodeClaim>("", "default-b");
  b.metadata.finalizers.clear();
  ASSERT_TRUE(world_.cluster.Update(b).ok());
  ASSERT_TRUE(world_.cluster.Delete<api::NodeClaim>("", "default-b").ok());
  ASSERT_TRUE(lifecycle.Reconcile({"", "default-b"}).ok());
  // A new NodeClaim of that name joins the next batch.
  cloud.refuse.clear();
  world_.MustCreate(ClaimNamed("default-b"));
  world_.MustCreate(ClaimNamed("default-c"));
  ASSERT_TRUE(lifecycle.Reconcile({"", "default-c"}).ok());
  EXPECT_THAT(cloud.batches.back(), ElementsAre("default-c", "default-b"));
}

TEST_F(LifecycleTest, InsufficientCapacityDeletesTheNodeClaim) {
  world_.cloud.MarkUnavailable({"small", "zone-a", "spot"}, world_.clock.Now() + minutes(3));
  world_.MustCreate(Claim({"small"}));
  ASSERT_TRUE(Reconcile().ok());
  api::NodeClaim c = Get();
  EXPECT_TRUE(c.metadata.deletion_timestamp.has_value()) << "its pods go back to the provisioner";
  EXPECT_FALSE(c.IsTrue(kConditionLaunched));
  EXPECT_TRUE(world_.cloud.List().empty());
  auto failed = world_.recorder.OfType("NodeClaimLaunchFailed");
  ASSERT_THAT(failed, SizeIs(1));
  EXPECT_THAT(failed[0].message, HasSubstr("insufficient capacity"));
}

TEST_F(LifecycleTest, RegistrationSyncsTheNodeAndRemovesTheUnregisteredTaint) {
  world_.MustCreate(Claim());
  ASSERT_TRUE(Reconcile().ok());
  world_.clock.Step(seconds(20));
  world_.RegisterNode(Get(), "ip-192-168-0-1", /*ready=*/false);
  // The Node's change arrives keyed by the node's name.
  ASSERT_TRUE(Reconcile("ip-192-168-0-1").ok());

  api::NodeClaim c = Get();
  EXPECT_TRUE(c.IsTrue(kConditionRegistered));
  EXPECT_FALSE(c.IsTrue(kConditionInitialized)) << "the node is not Ready yet";
  EXPECT_EQ(c.status.node_name, "ip-192-168-0-1");
  api::Node n = world_.MustGet<api::Node>("", "ip-192-168-0-1");
  EXPECT_EQ(n.metadata.labels.at(s::kLabelNodePool), "default");
  EXPECT_EQ(n.metadata.labels.at(s::kLabelInstanceTypeStable), "small");
  EXPECT_EQ(n.metadata.labels.at(s::kLabelNodeRegistered), "true");
  EXPECT_THAT(n.spec.taints, ElementsAre(api::Taint{"dedicated", "web", "NoSchedule"},
                                         api::Taint{"cni", "", "NoSchedule"}));
  auto registered = world_.recorder.OfType("NodeRegistered");
  ASSERT_THAT(registered, SizeIs(1));
  EXPECT_EQ(World::Field(registered[0], "node"), "ip-192-168-0-1");
}

// A cluster in which something else writes a Node (as the kubelet's heartbeat does) between the
// controller's read of it and the controller's own write, `races` times.
class NodeWrittenMeanwhile : public testing::ForwardingCluster {
 public:
  using ForwardingCluster::ForwardingCluster;
  core::Result<cluster::Object> UpdateObject(cluster::Object o) override {
    if (races > 0 && cluster::KindOfObject(o) == cluster::Kind::kNode) {
      --races;
      auto live = inner_.Get<api::Node>("", cluster::MetaOf(o).name);
      EXPECT_TRUE(live.ok());
      live->metadata.annotations["example.com/heartbeat"] = std::to_string(++heartbeats);
      EXPECT_TRUE(inner_.Update(*live).ok());
    }
    return inner_.UpdateObject(std::move(o));
  }
  int races = 0;
  int heartbeats = 0;
};

TEST_F(LifecycleTest, ANodeChangedSinceItWasReadIsReadAgainWithinASecondNotAnError) {
  NodeWrittenMeanwhile cluster(world_.cluster);
  NodeClaimLifecycle lifecycle{world_.clock, cluster, world_.cloud, world_.recorder};
  world_.MustCreate(Claim());
  ASSERT_TRUE(lifecycle.Reconcile({"", "default-abcde"}).ok());
  world_.RegisterNode(Get(), "ip-192-168-0-1", /*ready=*/true);

  cluster.races = 1;
  auto raced = lifecycle.Reconcile({"", "ip-192-168-0-1"});
  ASSERT_TRUE(raced.ok()) << "a stale read is no error: " << raced.status().message();
  ASSERT_TRUE(raced->requeue_after.has_value());
  EXPECT_LE(*raced->requeue_after, seconds(1));
  EXPECT_FALSE(Get().IsTrue(kConditionRegistered)) << "nothing was written over the change";

  // Looked at again, with the Node as it is now.
  ASSERT_TRUE(lifecycle.Reconcile({"", "ip-192-168-0-1"}).ok());
  EXPECT_TRUE(Get().IsTrue(kConditionRegistered));
  api::Node n = world_.MustGet<api::Node>("", "ip-192-168-0-1");
  EXPECT_EQ(n.metadata.annotations["example.com/heartbeat"], "1") << "the other write stays";
  EXPECT_EQ(n.metadata.labels[s::kLabelNodeRegistered], "true");
}

TEST_F(LifecycleTest, InitializedOnceReadyWithoutStartupTaints) {
  world_.MustCreate(Claim());
  ASSERT_TRUE(Reconcile().ok());
  world_.RegisterNode(Get(), "ip-192-168-0-1", /*ready=*/true);
  ASSERT_TRUE(Reconcile().ok());
  EXPECT_TRUE(Get().IsTrue(kConditionRegistered));
  EXPECT_FALSE(Get().IsTrue(kConditionInitialized)) << "the cni startup taint is still there";

  // The CNI removes its startup taint.
  api::Node n = world_.MustGet<api::Node>("", "ip-192-168-0-1");
  std::erase_if(n.spec.taints, [](const api::Taint& t) { return t.key == "cni"; });
  ASSERT_TRUE(world_.cluster.Update(n).ok());
  ASSERT_TRUE(Reconcile("ip-192-168-0-1").ok());
  EXPECT_TRUE(Get().IsTrue(kConditionInitialized));
  EXPECT_EQ(world_.MustGet<api::Node>("", "ip-192-168-0-1").metadata.labels.at(s::kLabelNodeInitialized),
            "true");
  EXPECT_THAT(world_.recorder.OfType("NodeInitialized"), SizeIs(1));
}

TEST_F(LifecycleTest, InitializationWaitsForRequestedExtendedResources) {
  cloud::Catalog catalog = testing::TestCatalog();
  catalog.instance_types.push_back(cloud::NewInstanceType(
      "gpu", s::Requirements::FromLabels({{s::kLabelArchStable, "amd64"}}),
      {{"cpu", api::Quantity::MustParse("8")},
       {"memory", api::Quantity::MustParse("32Gi")},
       {"pods", api::Quantity::MustParse("110")},
       {"nvidia.com/gpu", api::Quantity::MustParse("1")}},
      {}, {{"zone-a", cloud::kCapacityTypeSpot, 0.9, true, {}}}));
  world_.cloud.SetCatalog(catalog);
  api::NodeClaim claim = Claim({"gpu"});
  claim.spec.startup_taints.clear();
  claim.spec.resource_requests.Set("nvidia.com/gpu", api::Quantity::MustParse("1"));
  world_.MustCreate(claim);
  ASSERT_TRUE(Reconcile().ok());
  ASSERT_TRUE(Get().IsTrue(kConditionLaunched));
  // The device plugin has not advertised the GPU yet.
  api::NodeClaim launched = Get();
  launched.status.allocatable.Erase("nvidia.com/gpu");
  world_.RegisterNode(launched, "ip-192-168-0-1", /*ready=*/true);
  ASSERT_TRUE(Reconcile().ok());
  EXPECT_TRUE(Get().IsTrue(kConditionRegistered));
  EXPECT_FALSE(Get().IsTrue(kConditionInitialized));

  api::Node n = world_.MustGet<api::Node>("", "ip-192-168-0-1");
  n.status.allocatable.Set("nvidia.com/gpu", api::Quantity::MustParse("1"));
  ASSERT_TRUE(world_.cluster.Update(n).ok());
  ASSERT_TRUE(Reconcile().ok());
  EXPECT_TRUE(Get().IsTrue(kConditionInitialized));
}

TEST_F(LifecycleTest, ANodeClaimNotRegisteredWithinFifteenMinutesIsDeleted) {
  world_.MustCreate(Claim());
  auto r = Reconcile();
  ASSERT_TRUE(r.ok());
  world_.clock.Step(minutes(14));
  r = Reconcile();
  ASSERT_TRUE(r.ok());
  ASSERT_TRUE(r->requeue_after.has_value());
  EXPECT_EQ(*r->requeue_after, minutes(1));
  EXPECT_FALSE(Get().metadata.deletion_timestamp.has_value());

  world_.clock.Step(minutes(1));
  ASSERT_TRUE(Reconcile().ok());
  EXPECT_TRUE(Get().metadata.deletion_timestamp.has_value());
  EXPECT_THAT(world_.recorder.OfType("NodeClaimNotRegistered"), SizeIs(1));
}

TEST_F(LifecycleTest, ANodeClaimBeingDeletedIsLeftToTheTerminator) {
  world_.MustCreate(Claim());
  ASSERT_TRUE(world_.cluster.Delete<api::NodeClaim>("", "default-abcde").ok());
  ASSERT_TRUE(Reconcile().ok());
  EXPECT_TRUE(world_.cloud.List().empty());
}

}  // namespace
}  // namespace nodesmith::controllers
