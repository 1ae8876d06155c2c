#include "cloud/kwok/kwok_cloud_provider.h"

#include <gmock/gmock.h>
#include <gtest/gtest.h>

#include "cluster/memory_cluster.h"
#include "core/clock.h"
#include "scheduling/taints.h"

namespace nodesmith::cloud::kwok {
namespace {

using ::testing::Pair;

Catalog KwokCatalog() {
  auto catalog = LoadCatalog(CatalogSource::FromFlag("kwok"));
  EXPECT_TRUE(catalog.ok()) << catalog.status().message();
  return *catalog;
}

api::NodeClaim Claim(const std::string& name) {
  api::NodeClaim claim;
  claim.metadata.name = name;
  claim.metadata.labels = {{"karpenter.sh/nodepool", "default"}};
  claim.metadata.annotations = {{"karpenter.sh/nodepool-hash", "123"}};
  claim.spec.node_class_ref = {"karpenter.kwok.sh", "KWOKNodeClass", "default"};
  claim.spec.requirements = {
      {"kubernetes.io/arch", "In", {"amd64"}, std::nullopt},
      {"kubernetes.io/os", "In", {"linux"}, std::nullopt},
      {"karpenter.sh/capacity-type", "In", {"on-demand"}, std::nullopt},
      {"node.kubernetes.io/instance-type", "In", {"c-4x-amd64-linux", "m-8x-amd64-linux"},
       std::nullopt},
  };
  claim.spec.resource_requests = api::ResourceList{{"cpu", api::Quantity::MustParse("3")}};
  return claim;
}

class KwokCloudProviderTest : public ::testing::Test {
 protected:
  core::FakeClock clock_{core::Time()};
  cluster::MemoryCluster cluster_{clock_};
};

TEST_F(KwokCloudProviderTest, LaunchCreatesTheNodeKwokRuns) {
  KwokCloudProvider cloud(cluster_, KwokCatalog());
  auto launched = cloud.Create(Claim("default-abcde"));
  ASSERT_TRUE(launched.ok()) << launched.status().message();
  EXPECT_EQ(launched->status.provider_id, "kwok://default-abcde");
  // The cheaper of the two types allowed, in the cheapest zone of its on-demand offerings.
  EXPECT_EQ(launched->metadata.labels.at("node.kubernetes.io/instance-type"), "c-4x-amd64-linux");
  EXPECT_EQ(launched->metadata.labels.at("karpenter.sh/capacity-type"), "on-demand");

  auto node = cluster_.Get<api::Node>("", "default-abcde");
  ASSERT_TRUE(node.ok()) << node.status().message();
  EXPECT_EQ(node->spec.provider_id, "kwok://default-abcde");
  const std::string zone = launched->metadata.labels.at("topology.kubernetes.io/zone");
  for (const auto& [key, value] : std::vector<std::pair<std::string, std::string>>{
           {"karpenter.sh/nodepool", "default"},
           {"kubernetes.io/hostname", "default-abcde"},
           {"kwok.x-k8s.io/node", "fake"},
           {"kubernetes.io/arch", "amd64"},
           {"node.kubernetes.io/instance-type", "c-4x-amd64-linux"},
           {"topology.kubernetes.io/zone", zone}}) {
    EXPECT_THAT(node->metadata.labels, ::testing::Contains(Pair(key, value)));
  }
  EXPECT_EQ(node->metadata.labels.at("eks-node-viewer/instance-price").find('.'), 1u);
  EXPECT_EQ(node->metadata.annotations.at("kwok.x-k8s.io/node"), "fake");
  ASSERT_EQ(node->spec.taints.size(), 1u);
  EXPECT_EQ(node->spec.taints[0].key, scheduling::kTaintUnregistered);
  EXPECT_EQ(node->spec.taints[0].effect, "NoExecute");
  EXPECT_EQ(node->status.capacity, launched->status.capacity);
  EXPECT_FALSE(node->status.allocatable.empty());

  auto got = cloud.Get("kwok://default-abcde");
  ASSERT_TRUE(got.ok());
  EXPECT_EQ(got->status.node_name, "default-abcde");
  EXPECT_EQ(cloud.List().size(), 1u);
}

TEST_F(KwokCloudProviderTest, RegistrationDelayWaitsForTheScheduler) {
  std::vector<std::pair<core::Duration, std::function<void()>>> scheduled;
  KwokCloudProviderOptions options;
  options.node_classes = [](const std::string&) -> core::Result<KwokNodeClass> {
    return KwokNodeClass{std::chrono::seconds(20), true, ""};
  };
  options.schedule = [&](core::Duration d, std::function<void()> fn) {
    scheduled.emplace_back(d, std::move(fn));
  };
  KwokCloudProvider cloud(cluster_, KwokCatalog(), options);
  ASSERT_TRUE(cloud.Create(Claim("default-delay")).ok());
  ASSERT_EQ(scheduled.size(), 1u);
  EXPECT_EQ(scheduled[0].first, std::chrono::seconds(20));
  EXPECT_FALSE(cluster_.Get<api::Node>("", "default-delay").ok());
  // Launched but not registered: the instance exists.
  EXPECT_TRUE(cloud.Get("kwok://default-delay").ok());
  EXPECT_EQ(cloud.List().size(), 1u);
  scheduled[0].second();
  EXPECT_TRUE(cluster_.Get<api::Node>("", "default-delay").ok());
  EXPECT_EQ(cloud.List().size(), 1u);
}

TEST_F(KwokCloudProviderTest, DeleteBeforeRegistrationCancelsTheNode) {
  std::function<void()> later;
  KwokCloudProviderOptions options;
  options.node_classes = [](const std::string&) -> core::Result<KwokNodeClass> {
    return KwokNodeClass{std::chrono::seconds(5), true, ""};
  };
  options.schedule = [&](core::Duration, std::function<void()> fn) { later = std::move(fn); };
  KwokCloudProvider cloud(cluster_, KwokCatalog(), options);
  auto launched = cloud.Create(Claim("default-gone"));
  ASSERT_TRUE(launched.ok());
  EXPECT_TRUE(cloud.Delete(*launched).ok());
  later();
  EXPECT_FALSE(cluster_.Get<api::Node>("", "default-gone").ok());
  EXPECT_EQ(cloud.Get("kwok://default-gone").status().code(), core::StatusCode::kNotFound);
}

TEST_F(KwokCloudProviderTest, DeleteRemovesTheNodeAndTheInstanceIsGone) {
  KwokCloudProvider cloud(cluster_, KwokCatalog());
  auto launched = cloud.Create(Claim("default-del"));
  ASSERT_TRUE(launched.ok());
  EXPECT_TRUE(cloud.Delete(*launched).ok());
  EXPECT_FALSE(cluster_.Get<api::Node>("", "default-del").ok());
  EXPECT_EQ(cloud.Get("kwok://default-del").status().code(), core::StatusCode::kNotFound);
  EXPECT_EQ(cloud.Delete(*launched).code(), core::StatusCode::kNotFound);
  EXPECT_TRUE(cloud.List().empty());
}

TEST_F(KwokCloudProviderTest, MissingNodeClassIsInsufficientCapacityAndNotReadyAnError) {
  KwokCloudProviderOptions options;
  options.node_classes = [](const std::string& name) -> core::Result<KwokNodeClass> {
    if (name == "broken") return KwokNodeClass{core::Duration(0), false, "it is broken"};
    return core::Status::NotFound("KWOKNodeClass " + name + " not found");
  };
  KwokCloudProvider cloud(cluster_, KwokCatalog(), options);
  auto missing = cloud.Create(Claim("default-x"));
  EXPECT_EQ(missing.status().code(), core::StatusCode::kUnavailable);
  EXPECT_THAT(missing.status().message(), ::testing::HasSubstr("KWOKNodeClass/default"));
  api::NodeClaim claim = Claim("default-y");
  claim.spec.node_class_ref.name = "broken";
  auto broken = cloud.Create(claim);
  EXPECT_EQ(broken.status().code(), core::StatusCode::kFailedPrecondition);
  EXPECT_THAT(broken.status().message(), ::testing::HasSubstr("it is broken"));
  EXPECT_TRUE(cluster_.List<api::Node>().empty());
}

TEST_F(KwokCloudProviderTest, NodesOfOtherProvidersAreNotInstances) {
  api::Node other;
  other.metadata.name = "real-node";
  other.spec.provider_id = "aws:///us-west-2a/i-0123";
  ASSERT_TRUE(cluster_.Create(other).ok());
  KwokCloudProvider cloud(cluster_, KwokCatalog());
  EXPECT_TRUE(cloud.List().empty());
  EXPECT_EQ(cloud.Get("aws:///us-west-2a/i-0123").status().code(), core::StatusCode::kNotFound);
}

TEST_F(KwokCloudProviderTest, NoCompatibleTypeIsInsufficientCapacity) {
  KwokCloudProvider cloud(cluster_, KwokCatalog());
  api::NodeClaim claim = Claim("default-big");
  claim.spec.resource_requests = api::ResourceList{{"cpu", api::Quantity::MustParse("5000")}};
  auto r = cloud.Create(claim);
  EXPECT_EQ(r.status().code(), core::StatusCode::kUnavailable);
  EXPECT_TRUE(cluster_.List<api::Node>().empty());
}

}  // namespace
}  // namespace nodesmith::cloud::kwok
