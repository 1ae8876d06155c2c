#include "operator/shadow_cluster.h"

#include <gmock/gmock.h>
#include <gtest/gtest.h>

#include "cluster/memory_cluster.h"
#include "controllers/testing/fixtures.h"

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

api::Pod PodOn(const std::string& name, const std::string& node) {
  api::Pod pod;
  pod.metadata.name = name;
  pod.metadata.namespace_ = "default";
  pod.spec.node_name = node;
  return pod;
}

std::vector<std::string> PodsOn(const cluster::ClusterApi& c, const std::string& node) {
  std::vector<std::string> names;
  c.ForEachPodOn(node, [&](const api::Pod& p) { names.push_back(p.metadata.name); });
  return names;
}

TEST_F(ShadowClusterTest, PodsOnANodeAreWhereTheShadowPutThemAndComeFromTheLiveIndex) {
  controllers::testing::WalkCountingCluster indexed(live_);  // says it indexes pods by node
  ShadowCluster shadow(indexed, clock_);
  for (const auto& [name, node] : std::vector<std::pair<std::string, std::string>>{
           {"a", "n1"}, {"b", ""}, {"c", "n1"}, {"d", "n2"}, {"e", "n1"}}) {
    ASSERT_TRUE(live_.Create(PodOn(name, node)).ok());
  }
  EXPECT_TRUE(shadow.IndexesPodsByNode());
  // Untouched by the shadow: the live index's answer as it is.
  EXPECT_THAT(PodsOn(shadow, "n1"), ::testing::ElementsAre("a", "c", "e"));
  // The shadow binds b to n1, evicts c, creates f on n1 and a2 on n2: each shows where the
  // shadow put it, in name order, and not where the live cluster has it.
  ASSERT_TRUE(shadow.Bind("default", "b", "n1").ok());
  ASSERT_TRUE(shadow.Evict("default", "c").ok());
  ASSERT_TRUE(shadow.Create(PodOn("f", "n1")).ok());
  ASSERT_TRUE(shadow.Create(PodOn("a2", "n2")).ok());
  EXPECT_THAT(PodsOn(shadow, "n1"), ::testing::ElementsAre("a", "b", "e", "f"));
  EXPECT_THAT(PodsOn(shadow, "n2"), ::testing::ElementsAre("a2", "d"));
  EXPECT_THAT(PodsOn(shadow, ""), ::testing::IsEmpty());
  EXPECT_EQ(indexed.walks[cluster::Kind::kPod], 0)
      << "asked for one node's pods, the shadow walked every pod";
  // The same overlay over the full list.
  std::vector<std::string> all;
  shadow.ForEachObject(cluster::Kind::kPod, [&](const cluster::Object& o) {
    const auto& p = std::get<api::Pod>(o);
    all.push_back(p.metadata.name + "@" + p.spec.node_name);
  });
  EXPECT_THAT(all, ::testing::ElementsAre("a@n1", "a2@n2", "b@n1", "d@n2", "e@n1", "f@n1"));
  EXPECT_EQ(shadow.ListObjects(cluster::Kind::kPod).size(), all.size());
}

TEST_F(ShadowClusterTest, NodesAndNodeClaimsAreFoundByProviderIdWhereTheShadowLeftThem) {
  auto node = [](const std::string& name, const std::string& id) {
    api::Node n = NodeNamed(name);
    n.spec.provider_id = id;
    return n;
  };
  ASSERT_TRUE(live_.Create(node("a", "kwok://a")).ok());
  ASSERT_TRUE(live_.Create(node("b", "kwok://b")).ok());
  auto named = [&](cluster::Kind kind, const std::string& id) {
    std::vector<std::string> out;
    shadow_.ForEachWithProviderId(kind, id, [&](const cluster::Object& o) {
      out.push_back(cluster::MetaOf(o).name);
    });
    return out;
  };
  EXPECT_THAT(named(cluster::Kind::kNode, "kwok://a"), ::testing::ElementsAre("a"));
  // The shadow gives b a's provider ID and deletes a; a claim it creates is found by its ID.
  auto b = shadow_.Get<api::Node>("", "b");
  b->spec.provider_id = "kwok://a";
  ASSERT_TRUE(shadow_.Update(*b).ok());
  EXPECT_THAT(named(cluster::Kind::kNode, "kwok://a"), ::testing::ElementsAre("a", "b"));
  EXPECT_THAT(named(cluster::Kind::kNode, "kwok://b"), ::testing::IsEmpty());
  ASSERT_TRUE(shadow_.Delete<api::Node>("", "a").ok());
  EXPECT_THAT(named(cluster::Kind::kNode, "kwok://a"), ::testing::ElementsAre("b"));
  api::NodeClaim claim;
  claim.metadata.name = "c";
  claim.status.provider_id = "kwok://a";
  ASSERT_TRUE(shadow_.Create(claim).ok());
  EXPECT_THAT(named(cluster::Kind::kNodeClaim, "kwok://a"), ::testing::ElementsAre("c"));
  EXPECT_THAT(named(cluster::Kind::kNodeClaim, ""), ::testing::IsEmpty());
  EXPECT_THAT(named(cluster::Kind::kPod, "kwok://a"), ::testing::IsEmpty());
}

}  // namespace
}  // namespace nodesmith::op
