// The NodePool counter as a specification: given the NodeClaims and Nodes in the cluster, each
// NodePool's status.resources and status.nodes are what Karpenter's counter reports.
#include "controllers/nodepool/counter.h"

#include <gtest/gtest.h>

#include "controllers/testing/fixtures.h"

namespace nodesmith::controllers {
namespace {

namespace s = scheduling;
using api::Quantity;

class NodePoolCounterTest : public ::testing::Test {
 protected:
  NodePoolCounterTest() { world_.MustCreate(testing::Pool()); }

  static api::ResourceList Capacity(const std::string& cpu, const std::string& memory = "16Gi") {
    return {{"cpu", Quantity::MustParse(cpu)},
            {"memory", Quantity::MustParse(memory)},
            {"pods", Quantity::MustParse("110")}};
  }
  // A launched NodeClaim default-<id> with `capacity` (provider id aws:///zone-a/i-<id>).
  api::NodeClaim Launched(const std::string& id, api::ResourceList capacity,
                          const std::string& pool = "default") {
    api::NodeClaim c;
    c.metadata.name = pool + "-" + id;
    c.metadata.labels = {{s::kLabelNodePool, pool}, {s::kLabelInstanceTypeStable, "small"}};
    c.metadata.finalizers = {kTerminationFinalizer};
    c.status.provider_id = "aws:///zone-a/i-" + id;
    c.status.capacity = std::move(capacity);
    return world_.MustCreate(std::move(c));
  }
  // Its Node ip-<id> with `capacity`, registered and initialized as the lifecycle controller
  // labels them (or not).
  api::Node NodeOf(const api::NodeClaim& claim, const std::string& id, api::ResourceList capacity,
                   bool registered = true, bool initialized = true) {
    api::Node n;
    n.metadata.name = "ip-" + id;
    n.metadata.labels = claim.metadata.labels;
    if (registered) n.metadata.labels[s::kLabelNodeRegistered] = "true";
    if (initialized) n.metadata.labels[s::kLabelNodeInitialized] = "true";
    n.spec.provider_id = claim.status.provider_id;
    n.status.capacity = std::move(capacity);
    return world_.MustCreate(std::move(n));
  }
  api::NodePool Counted(const std::string& pool = "default") {
    auto r = counter_.Reconcile({});
    EXPECT_TRUE(r.ok()) << r.status().message();
    return world_.MustGet<api::NodePool>("", pool);
  }

  testing::World world_;
  NodePoolCounter counter_{world_.cluster};
};

TEST_F(NodePoolCounterTest, ANodePoolWithoutNodesCountsZeroOfTheBaseResources) {
  api::NodePool p = Counted();
  EXPECT_EQ(p.nodes, 0);
  EXPECT_EQ(p.resources.items().size(), 5u);
  for (const char* name : {"cpu", "memory", "pods", "ephemeral-storage", "nodes"}) {
    ASSERT_TRUE(p.resources.Has(name)) << name;
    EXPECT_TRUE(p.resources.Get(name).IsZero()) << name;
  }
}

TEST_F(NodePoolCounterTest, InitializedNodesCountTheirNodesCapacity) {
  NodeOf(Launched("1", Capacity("2")), "1", Capacity("2", "15Gi"));
  api::ResourceList gpu = Capacity("8");
  gpu.Set("nvidia.com/gpu", Quantity::MustParse("1"));
  NodeOf(Launched("2", Capacity("8")), "2", gpu);
  api::NodePool p = Counted();
  EXPECT_EQ(p.nodes, 2);
  EXPECT_EQ(p.resources.Get("cpu"), Quantity::MustParse("10"));
  EXPECT_EQ(p.resources.Get("memory"), Quantity::MustParse("31Gi"))
      << "the Node's, not the NodeClaim's";
  EXPECT_EQ(p.resources.Get("pods"), Quantity::MustParse("220"));
  EXPECT_EQ(p.resources.Get("nvidia.com/gpu"), Quantity::MustParse("1"));
  EXPECT_EQ(p.resources.Get("nodes"), Quantity::MustParse("2"));
}

TEST_F(NodePoolCounterTest, ALaunchNotYetRegisteredCountsTheNodeClaimsCapacity) {
  Launched("1", Capacity("2"));
  api::NodePool p = Counted();
  EXPECT_EQ(p.nodes, 1);
  EXPECT_EQ(p.resources.Get("cpu"), Quantity::MustParse("2"));
}

TEST_F(NodePoolCounterTest, AnUninitializedNodeFillsWhatItLacksFromItsNodeClaim) {
  api::NodeClaim c = Launched("1", Capacity("2", "16Gi"));
  NodeOf(c, "1", {{"cpu", Quantity::MustParse("0")}, {"memory", Quantity::MustParse("15Gi")}},
         /*registered=*/true, /*initialized=*/false);
  api::NodePool p = Counted();
  EXPECT_EQ(p.resources.Get("cpu"), Quantity::MustParse("2")) << "zero on the Node";
  EXPECT_EQ(p.resources.Get("memory"), Quantity::MustParse("15Gi")) << "the Node's";
  EXPECT_EQ(p.resources.Get("pods"), Quantity::MustParse("110")) << "missing on the Node";
}

TEST_F(NodePoolCounterTest, NodesBeingDeletedOrDisruptedAreNotCounted) {
  NodeOf(Launched("1", Capacity("2")), "1", Capacity("2"));
  NodeOf(Launched("2", Capacity("2")), "2", Capacity("2"));
  api::NodeClaim disrupted = Launched("3", Capacity("2"));
  NodeOf(disrupted, "3", Capacity("2"));
  ASSERT_EQ(Counted().nodes, 3);

  ASSERT_TRUE(world_.cluster.Delete<api::NodeClaim>("", "default-1").ok());
  disrupted.status.conditions.push_back(
      {kConditionDisruptionReason, "True", "Underutilized", "Underutilized", world_.clock.Now()});
  ASSERT_TRUE(world_.cluster.Update(disrupted).ok());
  api::NodePool p = Counted();
  EXPECT_EQ(p.nodes, 1);
  EXPECT_EQ(p.resources.Get("cpu"), Quantity::MustParse("2"));
}

TEST_F(NodePoolCounterTest, ANodeClaimWithoutProviderIdIsNotANodeYet) {
  api::NodeClaim c;
  c.metadata.name = "default-pending";
  c.metadata.labels = {{s::kLabelNodePool, "default"}};
  c.status.capacity = Capacity("2");
  world_.MustCreate(c);
  EXPECT_EQ(Counted().nodes, 0);
}

TEST_F(NodePoolCounterTest, ANodeCountsForTheNodePoolItsLabelsName) {
  world_.MustCreate(testing::Pool("other"));
  // Registered: the Node's label wins over the NodeClaim's.
  api::NodeClaim c = Launched("1", Capacity("2"));
  api::Node n = NodeOf(c, "1", Capacity("2"));
  n.metadata.labels[s::kLabelNodePool] = "other";
  ASSERT_TRUE(world_.cluster.Update(n).ok());
  // A Node without a NodeClaim counts by its own labels.
  api::Node orphan;
  orphan.metadata.name = "ip-orphan";
  orphan.metadata.labels = {{s::kLabelNodePool, "other"},
                            {s::kLabelInstanceTypeStable, "large"},
                            {s::kLabelNodeInitialized, "true"}};
  orphan.spec.provider_id = "aws:///zone-a/i-orphan";
  orphan.status.capacity = Capacity("8");
  world_.MustCreate(orphan);
  EXPECT_EQ(Counted("default").nodes, 0);
  api::NodePool other = Counted("other");
  EXPECT_EQ(other.nodes, 2);
  EXPECT_EQ(other.resources.Get("cpu"), Quantity::MustParse("10"));
}

TEST_F(NodePoolCounterTest, CountsAreWrittenOnlyWhenTheyChange) {
  NodeOf(Launched("1", Capacity("2")), "1", Capacity("2"));
  const std::string version = Counted().metadata.resource_version;
  EXPECT_EQ(Counted().metadata.resource_version, version);
  NodeOf(Launched("2", Capacity("2")), "2", Capacity("2"));
  api::NodePool p = Counted();
  EXPECT_NE(p.metadata.resource_version, version);
  EXPECT_EQ(p.nodes, 2);
}

}  // namespace
}  // namespace nodesmith::controllers
