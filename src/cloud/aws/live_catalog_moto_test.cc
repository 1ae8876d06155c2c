// The account's catalog (`nodesmith catalog --catalog aws-live`) against moto, which has EC2's
// own instance type data and spot quotes but no Pricing API: every type arrives, on-demand prices
// fall back to the built-in table with a warning, spot prices are moto's quotes.
#include "cloud/aws/live_catalog.h"

#include <gmock/gmock.h>
#include <gtest/gtest.h>

#include "moto_test_env.h"

namespace nodesmith::aws {
namespace {

using ::testing::Contains;
using ::testing::HasSubstr;
using nodesmith::testing::MotoSession;
using nodesmith::testing::ResetMoto;

class LiveCatalogMotoTest : public ::testing::Test {
 protected:
  void SetUp() override {
    ResetMoto();
    session_ = MotoSession(&clock_);
    ASSERT_NE(session_, nullptr);
  }
  const cloud::InstanceType* Find(const cloud::Catalog& c, const std::string& name) {
    for (const auto& t : c.instance_types) {
      if (t->name == name) return t.get();
    }
    return nullptr;
  }

  core::SystemClock clock_;
  std::unique_ptr<AwsSession> session_;
};

TEST_F(LiveCatalogMotoTest, TheRegionsTypesWithBuiltInOnDemandAndLiveSpotPrices) {
  std::vector<std::string> warnings;
  auto catalog = LoadLiveCatalog(*session_, clock_, {}, &warnings);
  ASSERT_TRUE(catalog.ok()) << catalog.status().message();
  EXPECT_EQ(catalog->source, "aws-live");
  EXPECT_EQ(catalog->region, session_->region());
  EXPECT_GT(catalog->instance_types.size(), 100u);
  ASSERT_EQ(warnings.size(), 1u) << "moto has no Pricing API";
  EXPECT_THAT(warnings[0], HasSubstr("on-demand prices from the built-in table"));

  const cloud::InstanceType* m5 = Find(*catalog, "m5.large");
  ASSERT_NE(m5, nullptr);
  bool spot_quoted = false;
  for (const cloud::Offering& o : m5->offerings) {
    if (o.capacity_type == cloud::kCapacityTypeOnDemand) {
      EXPECT_DOUBLE_EQ(o.price, 0.096) << o.zone;
    }
    if (o.capacity_type == cloud::kCapacityTypeSpot && o.available) {
      spot_quoted = true;
      EXPECT_LT(o.price, 0.096) << o.zone << ": moto's spot quote, below on-demand";
    }
  }
  EXPECT_TRUE(spot_quoted);
}

TEST_F(LiveCatalogMotoTest, AnIsolatedVpcDoesNotAskThePricingApi) {
  std::vector<std::string> warnings;
  LiveCatalogOptions options;
  options.isolated_vpc = true;
  auto catalog = LoadLiveCatalog(*session_, clock_, options, &warnings);
  ASSERT_TRUE(catalog.ok()) << catalog.status().message();
  EXPECT_THAT(warnings, Contains(HasSubstr("isolated VPC")));
  EXPECT_THAT(warnings, ::testing::Not(Contains(HasSubstr("on-demand prices from the built-in table:"))));
}

}  // namespace
}  // namespace nodesmith::aws
