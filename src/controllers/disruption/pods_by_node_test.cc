// PodsByNode follows the cluster through the pod watch: binds, deletions and pods already there.
#include <gmock/gmock.h>
#include <gtest/gtest.h>

#include "cluster/memory_cluster.h"
#include "controllers/common/karpenter.h"
#include "controllers/disruption/pods_by_node.h"
#include "controllers/testing/fixtures.h"

namespace nodesmith::controllers {
namespace {

using ::testing::ElementsAre;
using ::testing::IsNull;
using ::testing::NotNull;

api::Pod BoundPod(std::string name, std::string node) {
  api::Pod pod = testing::PendingPod(std::move(name));
  pod.spec.node_name = std::move(node);
  pod.status.phase = "Running";
  return pod;
}

TEST(PodsByNodeTest, ReadsThePodsAlreadyThereAndFollowsBindsAndDeletes) {
  core::FakeClock clock(testing::kStart);
  cluster::MemoryCluster cluster(clock);
  ASSERT_TRUE(cluster.Create(BoundPod("b", "node-1")).ok());
  ASSERT_TRUE(cluster.Create(testing::PendingPod("p")).ok());
  PodsByNode index(cluster);
  ASSERT_TRUE(cluster.Create(BoundPod("a", "node-1")).ok());

  ASSERT_THAT(index.SummaryOf("node-1"), NotNull());
  // In (namespace, name) order whatever the order they came in.
  EXPECT_THAT(index.SummaryOf("node-1")->keys, ElementsAre("default/a", "default/b"));
  EXPECT_DOUBLE_EQ(index.SummaryOf("node-1")->eviction_cost, 2.0);
  EXPECT_EQ(index.Unbound().size(), 1u);

  ASSERT_TRUE(cluster.Bind("default", "p", "node-2").ok());
  EXPECT_TRUE(index.Unbound().empty());
  EXPECT_THAT(index.SummaryOf("node-2")->keys, ElementsAre("default/p"));

  ASSERT_TRUE(cluster.Delete<api::Pod>("default", "a").ok());
  EXPECT_THAT(index.SummaryOf("node-1")->keys, ElementsAre("default/b"));
  ASSERT_TRUE(cluster.Delete<api::Pod>("default", "b").ok());
  EXPECT_THAT(index.SummaryOf("node-1"), IsNull());
  EXPECT_THAT(index.PodsOn("node-1"), IsNull());
}

TEST(PodsByNodeTest, SummaryLeavesOutPodsThatNeedNoNewHomeAndNotesDoNotDisrupt) {
  core::FakeClock clock(testing::kStart);
  cluster::MemoryCluster cluster(clock);
  PodsByNode index(cluster);
  api::Pod daemon = BoundPod("agent", "node-1");
  daemon.metadata.owner_references.push_back({"apps/v1", "DaemonSet", "agent", "uid-1", true});
  ASSERT_TRUE(cluster.Create(daemon).ok());
  api::Pod finished = BoundPod("job", "node-1");
  finished.status.phase = "Succeeded";
  ASSERT_TRUE(cluster.Create(finished).ok());
  ASSERT_THAT(index.SummaryOf("node-1"), NotNull());
  EXPECT_TRUE(index.SummaryOf("node-1")->keys.empty());
  EXPECT_EQ(index.PodsOn("node-1")->size(), 2u);

  api::Pod kept = BoundPod("db", "node-1");
  kept.metadata.annotations[kDoNotDisruptAnnotation] = "true";
  ASSERT_TRUE(cluster.Create(kept).ok());
  EXPECT_THAT(index.SummaryOf("node-1")->keys, ElementsAre("default/db"));
  EXPECT_TRUE(index.SummaryOf("node-1")->any_do_not_disrupt);
}

}  // namespace
}  // namespace nodesmith::controllers
