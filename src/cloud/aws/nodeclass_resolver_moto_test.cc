// An EC2NodeClass resolved against moto: given these subnets, groups, images and SSM aliases,
// expect that status and those conditions.
#include "cloud/aws/nodeclass_resolver.h"

#include <gmock/gmock.h>
#include <gtest/gtest.h>

#include "api/conditions.h"
#include "moto_test_env.h"

namespace nodesmith::aws {
namespace {

using ::testing::HasSubstr;
using nodesmith::testing::MakeTestNetwork;
using nodesmith::testing::MotoSession;
using nodesmith::testing::PutMotoParameter;
using nodesmith::testing::ResetMoto;

const char* kAl2023X86 =
    "/aws/service/eks/optimized-ami/1.34/amazon-linux-2023/x86_64/standard/recommended/image_id";
const char* kAl2023Arm =
    "/aws/service/eks/optimized-ami/1.34/amazon-linux-2023/arm64/standard/recommended/image_id";

api::SelectorTerm DiscoveryTerm(const std::string& value) {
  api::SelectorTerm t;
  t.tags = {{"karpenter.sh/discovery", value}};
  return t;
}

api::EC2NodeClass DemoClass() {
  api::EC2NodeClass c;
  c.metadata.name = "default";
  c.metadata.generation = 3;
  c.subnet_selector_terms = {DiscoveryTerm("demo")};
  c.security_group_selector_terms = {DiscoveryTerm("demo")};
  api::SelectorTerm alias;
  alias.alias = "al2023@latest";
  c.ami_selector_terms = {alias};
  return c;
}

class NodeClassResolverMotoTest : public ::testing::Test {
 protected:
  void SetUp() override {
    ResetMoto();
    session_ = MotoSession(&clock_);
    ASSERT_NE(session_, nullptr);
    ssm_ = std::make_unique<SsmClient>(&session_->ssm());
    resolver_ = std::make_unique<NodeClassResolver>(&session_->ec2(), ssm_.get(), "1.34");
  }
  // Two of moto's Amazon images, one per architecture.
  std::pair<std::string, std::string> AmazonImages() {
    auto images = session_->ec2().DescribeImages({}, {}, {"amazon"});
    std::string x86, arm;
    if (images.ok()) {
      for (const Image& im : *images) {
        if (im.architecture == "x86_64" && x86.empty()) x86 = im.id;
        if (im.architecture == "arm64" && arm.empty()) arm = im.id;
      }
    }
    EXPECT_FALSE(x86.empty());
    return {x86, arm};
  }
  core::SystemClock clock_;
  std::unique_ptr<AwsSession> session_;
  std::unique_ptr<SsmClient> ssm_;
  std::unique_ptr<NodeClassResolver> resolver_;
};

TEST_F(NodeClassResolverMotoTest, TaggedSubnetsGroupsAndTheAliasResolveAndTheClassIsReady) {
  auto network = MakeTestNetwork(*session_);
  auto [x86, arm] = AmazonImages();
  PutMotoParameter(kAl2023X86, x86);
  if (!arm.empty()) PutMotoParameter(kAl2023Arm, arm);
  auto resolved = resolver_->Resolve(DemoClass(), clock_.Now());
  ASSERT_TRUE(resolved.ok()) << resolved.status().message();
  ASSERT_EQ(resolved->subnets.size(), 2u);
  EXPECT_EQ(resolved->zones(), (std::vector<std::string>{"us-west-2a", "us-west-2b"}));
  ASSERT_EQ(resolved->security_groups.size(), 1u);
  EXPECT_EQ(resolved->security_groups[0].id, network.group);
  ASSERT_EQ(resolved->images.size(), arm.empty() ? 1u : 2u);
  for (const ResolvedImage& im : resolved->images) {
    EXPECT_EQ(im.variant, "standard");
    EXPECT_EQ(im.id, im.architecture == "arm64" ? arm : x86);
  }
  EXPECT_TRUE(resolved->ready());
  for (const char* type : {"SubnetsReady", "SecurityGroupsReady", "AMIsReady", "Ready"}) {
    const api::Condition* c = api::FindCondition(resolved->conditions, type);
    ASSERT_NE(c, nullptr) << type;
    EXPECT_EQ(c->status, "True") << type;
    EXPECT_EQ(c->observed_generation, 3);
  }
}

TEST_F(NodeClassResolverMotoTest, SelectorsThatMatchNothingAreConditionsAPersonCanActOn) {
  MakeTestNetwork(*session_);
  api::EC2NodeClass c = DemoClass();
  c.subnet_selector_terms = {DiscoveryTerm("typo")};
  // No alias parameter was published for this Kubernetes version.
  auto resolved = resolver_->Resolve(c, clock_.Now());
  ASSERT_TRUE(resolved.ok()) << resolved.status().message();
  EXPECT_FALSE(resolved->ready());
  const api::Condition* subnets = api::FindCondition(resolved->conditions, "SubnetsReady");
  ASSERT_NE(subnets, nullptr);
  EXPECT_EQ(subnets->status, "False");
  EXPECT_EQ(subnets->reason, "SubnetsNotFound");
  EXPECT_EQ(subnets->message, "SubnetSelector did not match any Subnets");
  EXPECT_TRUE(api::IsConditionTrue(resolved->conditions, "SecurityGroupsReady"));
  const api::Condition* amis = api::FindCondition(resolved->conditions, "AMIsReady");
  ASSERT_NE(amis, nullptr);
  EXPECT_EQ(amis->reason, "AMINotFound");
  const api::Condition* ready = api::FindCondition(resolved->conditions, "Ready");
  ASSERT_NE(ready, nullptr);
  EXPECT_EQ(ready->reason, "UnhealthyDependents");
  EXPECT_EQ(ready->message, "SubnetsReady=False, AMIsReady=False");
}

TEST_F(NodeClassResolverMotoTest, AnAliasForAnUnsupportedVersionSaysWhy) {
  MakeTestNetwork(*session_);
  api::EC2NodeClass c = DemoClass();
  c.ami_selector_terms[0].alias = "al2@latest";
  auto resolved = resolver_->Resolve(c, clock_.Now());
  ASSERT_TRUE(resolved.ok()) << resolved.status().message();
  const api::Condition* amis = api::FindCondition(resolved->conditions, "AMIsReady");
  ASSERT_NE(amis, nullptr);
  EXPECT_EQ(amis->status, "False");
  EXPECT_THAT(amis->message, HasSubstr("use al2023@latest"));
}

TEST_F(NodeClassResolverMotoTest, AnImageByIdResolvesAndAnIdNobodyHasIsLeftOut) {
  MakeTestNetwork(*session_);
  auto [x86, arm] = AmazonImages();
  api::EC2NodeClass c = DemoClass();
  api::SelectorTerm by_id;
  by_id.id = x86;
  api::SelectorTerm missing;
  missing.id = "ami-00000000000000000";
  c.ami_selector_terms = {by_id, missing};
  auto resolved = resolver_->Resolve(c, clock_.Now());
  ASSERT_TRUE(resolved.ok()) << resolved.status().message();
  ASSERT_EQ(resolved->images.size(), 1u);
  EXPECT_EQ(resolved->images[0].id, x86);
  EXPECT_EQ(resolved->images[0].variant, "");
  EXPECT_TRUE(api::IsConditionTrue(resolved->conditions, "AMIsReady"));
}

TEST_F(NodeClassResolverMotoTest, TransitionTimesStayWhileTheStatusHolds) {
  MakeTestNetwork(*session_);
  auto [x86, arm] = AmazonImages();
  PutMotoParameter(kAl2023X86, x86);
  auto first = resolver_->Resolve(DemoClass(), core::Time::FromUnixSeconds(1000));
  ASSERT_TRUE(first.ok());
  auto second = resolver_->Resolve(DemoClass(), core::Time::FromUnixSeconds(2000), first->conditions);
  ASSERT_TRUE(second.ok());
  const api::Condition* ready = api::FindCondition(second->conditions, "Ready");
  ASSERT_NE(ready, nullptr);
  EXPECT_EQ(ready->last_transition_time, core::Time::FromUnixSeconds(1000));
}

}  // namespace
}  // namespace nodesmith::aws
