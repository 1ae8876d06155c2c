// The nodeclaim tagging controller against moto: given a NodeClaim whose Node joined, expect its
// instance tagged with the node's name and the NodeClaim marked, once.
#include "cloud/aws/nodeclaim_tagging_controller.h"

#include <gtest/gtest.h>

#include <map>

#include "aws_cloud_provider_fixture.h"
#include "cluster/memory_cluster.h"

namespace nodesmith::aws {
namespace {

class NodeClaimTaggingControllerMotoTest : public nodesmith::testing::AwsCloudProviderFixture {
 protected:
  void SetUp() override {
    AwsCloudProviderFixture::SetUp();
    ASSERT_NE(session_, nullptr);
    controller_ = std::make_unique<NodeClaimTaggingController>(cluster_, *session_, "demo");
  }

  // A launched NodeClaim in the cluster, with its node's name when `node_name` is not empty.
  api::NodeClaim Launched(const std::string& name, const std::string& node_name) {
    auto launched = provider_->Create(Claim(name));
    EXPECT_TRUE(launched.ok()) << launched.status().message();
    if (!launched.ok()) return {};
    launched->status.node_name = node_name;
    auto stored = cluster_.Create(*launched);
    EXPECT_TRUE(stored.ok()) << stored.status().message();
    return stored.ok() ? *stored : api::NodeClaim{};
  }

  std::map<std::string, std::string> InstanceTags(const api::NodeClaim& c) {
    auto found = session_->ec2().DescribeInstances({}, {AwsCloudProvider::InstanceIdOf(c.status.provider_id)});
    EXPECT_TRUE(found.ok() && found->size() == 1);
    if (!found.ok() || found->empty()) return {};
    return {found->front().tags.begin(), found->front().tags.end()};
  }

  cluster::MemoryCluster cluster_{clock_};
  std::unique_ptr<NodeClaimTaggingController> controller_;  // after the fixture's session
};

TEST_F(NodeClaimTaggingControllerMotoTest, AJoinedNodeNamesItsInstanceAndTheClaimIsMarked) {
  const api::NodeClaim c = Launched("default-tag1", "ip-10-1-0-7.us-west-2.compute.internal");
  EXPECT_EQ(InstanceTags(c).count("Name"), 0u) << "a launch does not know the node's name yet";

  ASSERT_TRUE(controller_->Reconcile({"", "default-tag1"}).ok());
  auto tags = InstanceTags(c);
  EXPECT_EQ(tags["Name"], "ip-10-1-0-7.us-west-2.compute.internal");
  EXPECT_EQ(tags["karpenter.sh/nodeclaim"], "default-tag1");
  EXPECT_EQ(tags["eks:eks-cluster-name"], "demo");
  auto stored = cluster_.Get<api::NodeClaim>("", "default-tag1");
  ASSERT_TRUE(stored.ok());
  EXPECT_EQ(stored->metadata.annotations.at("karpenter.k8s.aws/tagged"), "true");
  EXPECT_EQ(stored->metadata.annotations.at("compatibility.karpenter.k8s.aws/cluster-name-tagged"), "true");

  // Marked: nothing more is sent or written.
  const std::string version = stored->metadata.resource_version;
  ASSERT_TRUE(controller_->Reconcile({"", "default-tag1"}).ok());
  EXPECT_EQ(cluster_.Get<api::NodeClaim>("", "default-tag1")->metadata.resource_version, version);
}

TEST_F(NodeClaimTaggingControllerMotoTest, ANodeClaimWhoseNodeHasNotJoinedIsLeftAlone) {
  const api::NodeClaim c = Launched("default-tag2", "");
  ASSERT_TRUE(controller_->Reconcile({"", "default-tag2"}).ok());
  EXPECT_EQ(InstanceTags(c).count("Name"), 0u);
  const auto annotations = cluster_.Get<api::NodeClaim>("", "default-tag2")->metadata.annotations;
  EXPECT_EQ(annotations.count(kAnnotationInstanceTagged), 0u);
  EXPECT_EQ(annotations.count(kAnnotationClusterNameTagged), 0u);
}

TEST_F(NodeClaimTaggingControllerMotoTest, AnInstanceThatIsGoneIsNoError) {
  const api::NodeClaim c = Launched("default-tag3", "ip-10-1-0-8.us-west-2.compute.internal");
  ASSERT_TRUE(provider_->Delete(c).ok());
  EXPECT_TRUE(controller_->Reconcile({"", "default-tag3"}).ok());
}

}  // namespace
}  // namespace nodesmith::aws
