// The EC2NodeClass hash as a specification: which changes to a class replace its nodes
// (NodeClassDrift) and which do not, and how the hash controller stamps the class and moves
// NodeClaims stamped by another scheme onto nodesmith's.
#include "cloud/aws/nodeclass_hash.h"

#include <gtest/gtest.h>

#include "cluster/memory_cluster.h"
#include "core/clock.h"

namespace nodesmith::aws {
namespace {

api::EC2NodeClass Class() {
  api::EC2NodeClass c;
  c.metadata.name = "default";
  c.ami_family = "AL2023";
  api::SelectorTerm alias;
  alias.alias = "al2023@latest";
  c.ami_selector_terms = {alias};
  api::SelectorTerm discovery;
  discovery.tags = {{"karpenter.sh/discovery", "demo"}};
  c.subnet_selector_terms = {discovery};
  c.security_group_selector_terms = {discovery};
  c.role = "KarpenterNodeRole-demo";
  c.tags = {{"team", "platform"}};
  api::BlockDeviceMapping root;
  root.device_name = "/dev/xvda";
  root.ebs.volume_size = "20Gi";
  api::BlockDeviceMapping data;
  data.device_name = "/dev/xvdb";
  data.ebs.volume_size = "100Gi";
  c.block_device_mappings = {root, data};
  return c;
}

std::string Hash(const api::EC2NodeClass& c) { return EC2NodeClassHash(c, "Y2E="); }

TEST(EC2NodeClassHash, SelectorTermsAreNotHashed) {
  // What selectors match is judged by what they resolve to (AMI, subnet, security group drift).
  const std::string before = Hash(Class());
  api::EC2NodeClass c = Class();
  c.subnet_selector_terms[0].tags["tier"] = "private";
  c.security_group_selector_terms[0].id = "sg-0123";
  c.ami_selector_terms[0].alias = "al2023@v20251101";
  api::SelectorTerm reservation;
  reservation.id = "cr-0123";
  c.capacity_reservation_selector_terms = {reservation};
  EXPECT_EQ(Hash(c), before);
}

TEST(EC2NodeClassHash, WhatTheInstanceWasLaunchedWithIsHashed) {
  const std::string before = Hash(Class());
  auto changed = [&](auto mutate) {
    api::EC2NodeClass c = Class();
    mutate(c);
    return Hash(c) != before;
  };
  EXPECT_TRUE(changed([](api::EC2NodeClass& c) { c.user_data = "echo hi"; }));
  EXPECT_TRUE(changed([](api::EC2NodeClass& c) { c.role = "OtherRole"; }));
  EXPECT_TRUE(changed([](api::EC2NodeClass& c) { c.tags["team"] = "web"; }));
  EXPECT_TRUE(changed([](api::EC2NodeClass& c) { c.block_device_mappings[1].ebs.volume_size = "200Gi"; }));
  EXPECT_TRUE(changed([](api::EC2NodeClass& c) { c.kubelet.emplace().max_pods = 58; }));
  EXPECT_TRUE(changed([](api::EC2NodeClass& c) { c.metadata_options.http_tokens = "optional"; }));
  EXPECT_TRUE(changed([](api::EC2NodeClass& c) { c.detailed_monitoring = true; }));
  EXPECT_TRUE(changed([](api::EC2NodeClass& c) { c.ami_family = "Bottlerocket"; }));
  EXPECT_NE(EC2NodeClassHash(Class(), "b3RoZXI="), before) << "another cluster CA";
}

TEST(EC2NodeClassHash, ReorderingBlockDeviceMappingsOrLabelsIsNoChange) {
  api::EC2NodeClass c = Class();
  std::swap(c.block_device_mappings[0], c.block_device_mappings[1]);
  c.metadata.labels["team"] = "web";
  c.metadata.annotations["note"] = "metadata is not the spec";
  EXPECT_EQ(Hash(c), Hash(Class()));
}

class NodeClassHashControllerTest : public ::testing::Test {
 protected:
  api::NodeClaim Claim(const std::string& name, const std::string& node_class,
                       const std::string& version, const std::string& hash) {
    api::NodeClaim c;
    c.metadata.name = name;
    c.spec.node_class_ref = {"karpenter.k8s.aws", "EC2NodeClass", node_class};
    c.metadata.annotations[kEC2NodeClassHashAnnotation] = hash;
    c.metadata.annotations[kEC2NodeClassHashVersionAnnotation] = version;
    return c;
  }
  std::map<std::string, std::string> Annotations(const std::string& claim) {
    auto got = cluster_.Get<api::NodeClaim>("", claim);
    EXPECT_TRUE(got.ok());
    return got.ok() ? got->metadata.annotations : std::map<std::string, std::string>{};
  }
  api::EC2NodeClass Reconciled() {
    auto r = controller_.Reconcile({"", "default"});
    EXPECT_TRUE(r.ok()) << r.status().message();
    auto got = cluster_.Get<api::EC2NodeClass>("", "default");
    EXPECT_TRUE(got.ok());
    return got.ok() ? *got : api::EC2NodeClass{};
  }

  core::FakeClock clock_{core::Time{}};
  cluster::MemoryCluster cluster_{clock_};
  NodeClassHashController controller_{cluster_, "Y2E="};
};

TEST_F(NodeClassHashControllerTest, TheClassCarriesItsHashAndNodesmithsVersion) {
  ASSERT_TRUE(cluster_.Create(Class()).ok());
  api::EC2NodeClass c = Reconciled();
  EXPECT_EQ(c.metadata.annotations.at(kEC2NodeClassHashAnnotation), Hash(Class()));
  EXPECT_EQ(c.metadata.annotations.at(kEC2NodeClassHashVersionAnnotation), kEC2NodeClassHashVersion);
  const std::string version = c.metadata.resource_version;
  EXPECT_EQ(Reconciled().metadata.resource_version, version) << "nothing changed, nothing written";
  EXPECT_TRUE(controller_.Reconcile({"", "gone"}).ok());
}

TEST_F(NodeClassHashControllerTest, AClassKarpenterStampedMovesItsNodeClaimsWithoutDrift) {
  api::EC2NodeClass karpenters = Class();
  karpenters.metadata.annotations[kEC2NodeClassHashAnnotation] = "2841839421939542512";
  karpenters.metadata.annotations[kEC2NodeClassHashVersionAnnotation] = "v6";
  ASSERT_TRUE(cluster_.Create(karpenters).ok());
  ASSERT_TRUE(cluster_.Create(Claim("a", "default", "v6", "2841839421939542512")).ok());
  api::NodeClaim drifted = Claim("b", "default", "v6", "2841839421939542512");
  drifted.status.conditions.push_back({"Drifted", "True", "NodeClassDrift", "", clock_.Now()});
  ASSERT_TRUE(cluster_.Create(drifted).ok());
  ASSERT_TRUE(cluster_.Create(Claim("c", "other", "v6", "1")).ok());

  const std::string hash = Reconciled().metadata.annotations.at(kEC2NodeClassHashAnnotation);
  EXPECT_EQ(Annotations("a").at(kEC2NodeClassHashAnnotation), hash);
  EXPECT_EQ(Annotations("a").at(kEC2NodeClassHashVersionAnnotation), kEC2NodeClassHashVersion);
  EXPECT_EQ(Annotations("b").at(kEC2NodeClassHashAnnotation), "2841839421939542512")
      << "a drifted NodeClaim stays drifted";
  EXPECT_EQ(Annotations("b").at(kEC2NodeClassHashVersionAnnotation), kEC2NodeClassHashVersion);
  EXPECT_EQ(Annotations("c").at(kEC2NodeClassHashVersionAnnotation), "v6") << "another class's";
}

}  // namespace
}  // namespace nodesmith::aws
