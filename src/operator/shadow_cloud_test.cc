// ShadowCloud as a specification: given a real cloud, expect shadow mode's launches and
// terminations decided as the real provider would, and none of them reaching it.
#include "operator/shadow_cloud.h"

#include <gtest/gtest.h>

#include "controllers/testing/fixtures.h"

namespace nodesmith::op {
namespace {

using controllers::testing::World;
namespace s = scheduling;

api::NodeClaim Claim(const std::string& name, const std::string& cpu) {
  api::NodeClaim c;
  c.metadata.name = name;
  c.metadata.labels = {{s::kLabelNodePool, "default"}};
  c.spec.resource_requests = api::ResourceList{{"cpu", api::Quantity::MustParse(cpu)}};
  return c;
}

class ShadowCloudTest : public ::testing::Test {
 protected:
  ShadowCloudTest() {
    world_.MustCreate(controllers::testing::Pool());
    options_.region = "test-region";
    options_.on_write = [this](const std::string& verb, const api::NodeClaim& c) {
      writes_.push_back(verb + " " + c.metadata.name);
    };
  }

  World world_;
  ShadowCloudOptions options_;
  std::vector<std::string> writes_;
};

TEST_F(ShadowCloudTest, ALaunchIsDecidedAsTheRealCloudWouldAndNothingIsLaunched) {
  ShadowCloud shadow(world_.cloud, world_.cluster, options_);
  auto launched = shadow.Create(Claim("default-a", "4"));
  ASSERT_TRUE(launched.ok()) << launched.status().message();
  EXPECT_EQ(launched->metadata.labels.at(s::kLabelInstanceTypeStable), "large");  // 4 CPUs: not small
  EXPECT_EQ(launched->status.provider_id.rfind("aws:///", 0), 0u);
  EXPECT_NE(launched->status.provider_id.find("/shadow-default-a"), std::string::npos);
  EXPECT_TRUE(world_.cloud.List().empty()) << "the real cloud launched nothing";
  ASSERT_EQ(shadow.List().size(), 1u);
  EXPECT_TRUE(shadow.Get(launched->status.provider_id).ok());

  ASSERT_TRUE(shadow.Delete(*launched).ok());
  EXPECT_EQ(shadow.Get(launched->status.provider_id).status().code(), core::StatusCode::kNotFound);
  EXPECT_TRUE(shadow.List().empty());
  EXPECT_EQ(writes_, (std::vector<std::string>{"launch default-a", "terminate default-a"}));
}

TEST_F(ShadowCloudTest, ARealInstanceIsTerminatedOnlyInShadowModesView) {
  auto real = world_.cloud.Create(Claim("default-b", "1"));
  ASSERT_TRUE(real.ok()) << real.status().message();
  ShadowCloud shadow(world_.cloud, world_.cluster, options_);
  ASSERT_EQ(shadow.List().size(), 1u);

  ASSERT_TRUE(shadow.Delete(*real).ok());
  EXPECT_EQ(shadow.Get(real->status.provider_id).status().code(), core::StatusCode::kNotFound);
  EXPECT_TRUE(shadow.List().empty());
  EXPECT_TRUE(world_.cloud.Get(real->status.provider_id).ok()) << "the real instance still runs";
  EXPECT_EQ(world_.cloud.List().size(), 1u);
  EXPECT_EQ(shadow.Delete(*real).code(), core::StatusCode::kNotFound);
}

TEST_F(ShadowCloudTest, AClaimWithoutItsNodePoolIsAnErrorNotALaunch) {
  ShadowCloud shadow(world_.cloud, world_.cluster, options_);
  api::NodeClaim c = Claim("other-a", "1");
  c.metadata.labels[s::kLabelNodePool] = "other";
  EXPECT_EQ(shadow.Create(c).status().code(), core::StatusCode::kNotFound);
  EXPECT_TRUE(writes_.empty());
}

}  // namespace
}  // namespace nodesmith::op
