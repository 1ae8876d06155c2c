// The EC2NodeClass status controller against moto: given a class in the cluster, expect its
// status to list what its selectors match and say Ready — or say which selector matched nothing.
#include "cloud/aws/nodeclass_status_controller.h"

#include <gmock/gmock.h>
#include <gtest/gtest.h>

#include <set>

#include "api/conditions.h"
#include "aws_cloud_provider_fixture.h"
#include "cluster/memory_cluster.h"

namespace nodesmith::aws {
namespace {

using ::testing::HasSubstr;

class NodeClassStatusControllerMotoTest : public nodesmith::testing::AwsCloudProviderFixture {
 protected:
  void SetUp() override {
    AwsCloudProviderFixture::SetUp();
    ASSERT_NE(provider_, nullptr);
    controller_ = std::make_unique<NodeClassStatusController>(cluster_, *provider_);
  }

  api::EC2NodeClass Stored() {
    auto got = cluster_.Get<api::EC2NodeClass>("", "default");
    EXPECT_TRUE(got.ok()) << got.status().message();
    return got.ok() ? *got : api::EC2NodeClass{};
  }

  cluster::MemoryCluster cluster_{clock_};
  std::unique_ptr<NodeClassStatusController> controller_;  // after the fixture's provider
};

TEST_F(NodeClassStatusControllerMotoTest, ListsTheMatchedSubnetsGroupsAndImageAndSaysReady) {
  ASSERT_TRUE(cluster_.Create(node_class_).ok());
  auto r = controller_->Reconcile({"", "default"});
  ASSERT_TRUE(r.ok()) << r.status().message();
  EXPECT_EQ(r->requeue_after, std::chrono::minutes(1)) << "new AMIs appear without an event";

  const api::EC2NodeClass stored = Stored();
  ASSERT_EQ(stored.status_subnets.size(), 2u);
  std::set<std::string> zones;
  for (const auto& s : stored.status_subnets) zones.insert(s.zone);
  EXPECT_EQ(zones, (std::set<std::string>{"us-west-2a", "us-west-2b"}));
  ASSERT_EQ(stored.status_security_groups.size(), 1u);
  EXPECT_EQ(stored.status_security_groups[0].name, "nodes");
  ASSERT_EQ(stored.status_amis.size(), 1u);
  EXPECT_EQ(stored.status_amis[0].id, image_);
  ASSERT_EQ(stored.status_amis[0].requirements.size(), 1u);
  EXPECT_EQ(stored.status_amis[0].requirements[0].key, "kubernetes.io/arch");
  EXPECT_EQ(stored.status_amis[0].requirements[0].values, std::vector<std::string>{"amd64"});
  for (const char* type : {"SubnetsReady", "SecurityGroupsReady", "AMIsReady", "Ready"}) {
    EXPECT_TRUE(api::IsConditionTrue(stored.conditions, type)) << type;
  }

  // Nothing changed: nothing is written.
  const std::string version = stored.metadata.resource_version;
  ASSERT_TRUE(controller_->Reconcile({"", "default"}).ok());
  EXPECT_EQ(Stored().metadata.resource_version, version);
}

TEST_F(NodeClassStatusControllerMotoTest, ASelectorThatMatchesNothingIsAFalseConditionNamingIt) {
  node_class_.security_group_selector_terms[0].tags = {{"karpenter.sh/discovery", "typo"}};
  ASSERT_TRUE(cluster_.Create(node_class_).ok());
  ASSERT_TRUE(controller_->Reconcile({"", "default"}).ok());

  const api::EC2NodeClass stored = Stored();
  const api::Condition* groups = api::FindCondition(stored.conditions, "SecurityGroupsReady");
  ASSERT_NE(groups, nullptr);
  EXPECT_EQ(groups->status, "False");
  EXPECT_THAT(groups->message, HasSubstr("SecurityGroupSelector did not match any SecurityGroups"));
  const api::Condition* ready = api::FindCondition(stored.conditions, "Ready");
  ASSERT_NE(ready, nullptr);
  EXPECT_EQ(ready->status, "False");
  EXPECT_TRUE(stored.status_security_groups.empty());
  EXPECT_EQ(stored.status_subnets.size(), 2u) << "what did match is still listed";
}

TEST_F(NodeClassStatusControllerMotoTest, AClassThatIsGoneIsNoError) {
  auto r = controller_->Reconcile({"", "default"});
  ASSERT_TRUE(r.ok()) << r.status().message();
  EXPECT_FALSE(r->requeue_after.has_value());
}

}  // namespace
}  // namespace nodesmith::aws
