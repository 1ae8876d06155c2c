#include "operator/shadow_cluster.h"

#include <gmock/gmock.h>
#include <gtest/gtest.h>

#include "cluster/memory_cluster.h"

namespace nodesmith::op {
namespace {

api::Node NodeNamed(const std::string& name) {
  api::Node n;
  n.metadata.name = name;
  return n;
}

class ShadowClusterTest : public ::testing::Test {
 protected:
  ShadowClusterTest()
      : shadow_(live_, clock_, [this](const ShadowWrite& w) { writes_.push_back(w.verb + " " + w.name); }) {}

  core::FakeClock clock_{core::Time::FromUnixSeconds(1'700'000'000)};
  cluster::MemoryCluster live_{clock_};
  std::vector<std::string> writes_;
  ShadowCluster shadow_;
};

TEST_F(ShadowClusterTest, WritesChangeWhatTheControllersSeeButNeverTheCluster) {
  ASSERT_TRUE(live_.Create(NodeNamed("real")).ok());
  api::NodeClaim claim;
  claim.metadata.generate_name = "default-";
  auto created = shadow_.Create(claim);
  ASSERT_TRUE(created.ok());
  EXPECT_FALSE(created->metadata.name.empty());
  EXPECT_FALSE(created->metadata.uid.empty());
  EXPECT_TRUE(shadow_.Get<api::NodeClaim>("", created->metadata.name).ok());
  EXPECT_TRUE(live_.List<api::NodeClaim>().empty());

  // A live object changed through the shadow: the change shows there only.
  auto real = shadow_.Get<api::Node>("", "real");
  ASSERT_TRUE(real.ok());
  real->spec.unschedulable = true;
  ASSERT_TRUE(shadow_.Update(*real).ok());
  EXPECT_TRUE(shadow_.Get<api::Node>("", "real")->spec.unschedulable);
  EXPECT_FALSE(live_.Get<api::Node>("", "real")->spec.unschedulable);

  // Deleted through the shadow: gone from its lists, still in the cluster.
  ASSERT_TRUE(shadow_.Delete<api::Node>("", "real").ok());
  EXPECT_TRUE(shadow_.List<api::Node>().empty());
  EXPECT_EQ(live_.List<api::Node>().size(), 1u);
  EXPECT_EQ(shadow_.Delete<api::Node>("", "real").code(), core::StatusCode::kNotFound);
  EXPECT_THAT(writes_, ::testing::ElementsAre("create " + created->metadata.name,
                                              "update real", "delete real"));
}

TEST_F(ShadowClusterTest, FinalizersHoldADeletionUntilTheLastIsRemoved) {
  api::NodeClaim claim;
  claim.metadata.name = "c";
  claim.metadata.finalizers = {"karpenter.sh/termination"};
  ASSERT_TRUE(shadow_.Create(claim).ok());
  ASSERT_TRUE(shadow_.Delete<api::NodeClaim>("", "c").ok());
  auto marked = shadow_.Get<api::NodeClaim>("", "c");
  ASSERT_TRUE(marked.ok());
  ASSERT_TRUE(marked->metadata.deletion_timestamp.has_value());
  marked->metadata.finalizers.clear();
  ASSERT_TRUE(shadow_.Update(*marked).ok());
  EXPECT_FALSE(shadow_.Get<api::NodeClaim>("", "c").ok());
}

TEST_F(ShadowClusterTest, WatchersHearShadowWritesAndLiveChangesOfUntouchedObjects) {
  std::vector<std::string> seen;
  shadow_.Watch(cluster::Kind::kNode, [&](const cluster::WatchEvent& e) {
    seen.push_back(std::string(cluster::WatchEventTypeName(e.type)) + " " + e.name);
  });
  ASSERT_TRUE(live_.Create(NodeNamed("a")).ok());
  ASSERT_TRUE(shadow_.Create(NodeNamed("b")).ok());
  auto a = shadow_.Get<api::Node>("", "a");
  ASSERT_TRUE(shadow_.Update(*a).ok());
  // A live change to an object the shadow holds is hidden from it.
  auto live_a = live_.Get<api::Node>("", "a");
  live_a->metadata.labels["x"] = "y";
  ASSERT_TRUE(live_.Update(*live_a).ok());
  EXPECT_TRUE(shadow_.Get<api::Node>("", "a")->metadata.labels.empty());
  EXPECT_THAT(seen, ::testing::ElementsAre("Added a", "Added b", "Modified a"));
}

TEST_F(ShadowClusterTest, EvictionAndBindingStayInTheShadow) {
  api::Pod pod;
  pod.metadata.name = "p";
  pod.metadata.namespace_ = "default";
  ASSERT_TRUE(live_.Create(pod).ok());
  ASSERT_TRUE(shadow_.Bind("default", "p", "n").ok());
  EXPECT_EQ(shadow_.Get<api::Pod>("default", "p")->spec.node_name, "n");
  EXPECT_EQ(live_.Get<api::Pod>("default", "p")->spec.node_name, "");
  ASSERT_TRUE(shadow_.Evict("default", "p").ok());
  EXPECT_FALSE(shadow_.Get<api::Pod>("default", "p").ok());
  EXPECT_TRUE(live_.Get<api::Pod>("default", "p").ok());
}

}  // namespace
}  // namespace nodesmith::op
