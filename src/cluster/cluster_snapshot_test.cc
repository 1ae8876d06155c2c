#include "cluster/cluster_snapshot.h"

#include <gtest/gtest.h>

#include "cluster/memory_cluster.h"

namespace nodesmith::cluster {
namespace {

constexpr core::Time kStart{1'700'000'000'000'000'000};

TEST(SnapshotTest, HoldsEveryObjectInListOrderWithAClusterSource) {
  core::FakeClock clock(kStart);
  MemoryCluster cluster(clock);
  api::Pod pod;
  pod.metadata.name = "web-2";
  ASSERT_TRUE(cluster.Create(pod).ok());
  pod.metadata.name = "web-1";
  ASSERT_TRUE(cluster.Create(pod).ok());
  api::Node node;
  node.metadata.name = "n1";
  ASSERT_TRUE(cluster.Create(node).ok());
  api::ReplicatedWorkload deployment;
  deployment.kind = "Deployment";
  deployment.metadata.name = "web";
  ASSERT_TRUE(cluster.Create(deployment).ok());
  api::NodePool pool;
  pool.metadata.name = "default";
  ASSERT_TRUE(cluster.Create(pool).ok());

  api::ObjectSet set = Snapshot(cluster);
  ASSERT_EQ(set.pods.size(), 2u);
  EXPECT_EQ(set.pods[0].object.metadata.name, "web-1");
  EXPECT_EQ(set.pods[1].object.metadata.name, "web-2");
  EXPECT_EQ(set.pods[0].source.Describe(), "cluster (Pod default/web-1)");
  ASSERT_EQ(set.nodes.size(), 1u);
  EXPECT_EQ(set.nodes[0].source.Describe(), "cluster (Node n1)");
  ASSERT_EQ(set.replicated_workloads.size(), 1u);
  EXPECT_EQ(set.replicated_workloads[0].source.Describe(), "cluster (Deployment default/web)");
  ASSERT_EQ(set.node_pools.size(), 1u);
  EXPECT_FALSE(set.node_pools[0].object.metadata.uid.empty());
  EXPECT_TRUE(set.node_claims.empty());
  EXPECT_TRUE(set.instance_type_catalogs.empty());
}

TEST(SnapshotTest, IsACopyUnaffectedByLaterChanges) {
  core::FakeClock clock(kStart);
  MemoryCluster cluster(clock);
  api::Node node;
  node.metadata.name = "n1";
  ASSERT_TRUE(cluster.Create(node).ok());
  api::ObjectSet set = Snapshot(cluster);
  ASSERT_TRUE(cluster.Delete<api::Node>("", "n1").ok());
  EXPECT_EQ(set.nodes.size(), 1u);
  EXPECT_TRUE(Snapshot(cluster).nodes.empty());
}

}  // namespace
}  // namespace nodesmith::cluster
