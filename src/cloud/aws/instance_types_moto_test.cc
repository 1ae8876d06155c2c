// The live instance types against moto, whose DescribeInstanceTypes data is EC2's own: every type
// decodes, offerings land in the region's zones, and spot quotes become per-zone prices.
#include <gmock/gmock.h>
#include <gtest/gtest.h>

#include <set>

#include "cloud/aws/instance_type_decoder.h"
#include "cloud/aws/pricing.h"
#include "moto_test_env.h"
#include "scheduling/well_known_labels.h"

namespace nodesmith::aws {
namespace {

using ::testing::ElementsAre;
using nodesmith::testing::MotoSession;
using nodesmith::testing::ResetMoto;

class InstanceTypesMotoTest : public ::testing::Test {
 protected:
  void SetUp() override {
    ResetMoto();
    session_ = MotoSession(&clock_);
    ASSERT_NE(session_, nullptr);
  }
  Ec2Client& ec2() { return session_->ec2(); }

  core::SystemClock clock_;
  std::unique_ptr<AwsSession> session_;
};

TEST_F(InstanceTypesMotoTest, EveryTypeMotoDescribesBecomesAnInstanceType) {
  auto pages = ec2().DescribeInstanceTypesPages(InstanceTypeFilters());
  ASSERT_TRUE(pages.ok()) << pages.status().message();
  auto offerings = ec2().DescribeInstanceTypeOfferings();
  ASSERT_TRUE(offerings.ok()) << offerings.status().message();
  auto zones = ec2().DescribeAvailabilityZones();
  ASSERT_TRUE(zones.ok()) << zones.status().message();
  std::set<std::string> region_zones;
  for (const AvailabilityZone& z : *zones) region_zones.insert(z.name);

  size_t items = 0;
  for (const XmlAnswer& page : *pages) {
    for (pugi::xml_node item : page.root.child("instanceTypeSet").children("item")) {
      ++items;
      auto spec = DecodeInstanceTypeItem(item);
      ASSERT_TRUE(spec.ok()) << spec.status().message();
      EXPECT_FALSE(spec->arch.empty()) << spec->name << ": the architecture filter should keep it out";
    }
  }
  ASSERT_GT(items, 100u);

  auto types = LiveInstanceTypes(*pages, *offerings, PriceBook(), session_->region(), {});
  ASSERT_TRUE(types.ok()) << types.status().message();
  EXPECT_EQ(types->size(), items);

  const cloud::InstanceType* m5 = nullptr;
  for (const auto& t : *types) {
    if (t->name == "m5.large") m5 = t.get();
    for (const cloud::Offering& o : t->offerings) EXPECT_EQ(region_zones.count(o.zone), 1u) << t->name << " " << o.zone;
  }
  ASSERT_NE(m5, nullptr);
  EXPECT_EQ(m5->capacity.Get(api::kResourceCpu), api::Quantity::FromInt(2));
  EXPECT_THAT(m5->requirements.Get(scheduling::kLabelInstanceCpu).Values(), ElementsAre("2"));
  EXPECT_THAT(m5->requirements.Get(scheduling::kLabelInstanceMemory).Values(), ElementsAre("8192"));
  EXPECT_EQ(m5->capacity.Get(api::kResourcePods), api::Quantity::FromInt(29));
  std::set<std::string> m5_zones;
  for (const cloud::Offering& o : m5->offerings) {
    m5_zones.insert(o.zone);
    EXPECT_TRUE(o.available);
    // No PriceBook: the built-in on-demand price, spot at it until quotes arrive.
    EXPECT_DOUBLE_EQ(o.price, 0.096) << o.zone << " " << o.capacity_type;
  }
  EXPECT_GE(m5_zones.size(), 3u);
  for (const std::string& z : m5_zones) EXPECT_EQ(z.rfind("us-west-2", 0), 0u) << z;
}

TEST_F(InstanceTypesMotoTest, SpotQuotesBecomeZonalPrices) {
  auto spot = FetchSpotPrices(ec2(), {"m5.large"}, clock_.Now());
  ASSERT_TRUE(spot.ok()) << spot.status().message();
  auto pages = ec2().DescribeInstanceTypesPages({{"instance-type", {"m5.large"}}});
  ASSERT_TRUE(pages.ok()) << pages.status().message();
  auto offerings = ec2().DescribeInstanceTypeOfferings();
  ASSERT_TRUE(offerings.ok()) << offerings.status().message();
  auto types = LiveInstanceTypes(*pages, *offerings, *spot, session_->region(), {});
  ASSERT_TRUE(types.ok()) << types.status().message();
  ASSERT_EQ(types->size(), 1u);
  for (const cloud::Offering& o : types->front()->offerings) {
    if (o.capacity_type != cloud::kCapacityTypeSpot || !o.available) continue;
    EXPECT_EQ(spot->SpotPrice("m5.large", o.zone), o.price) << o.zone;
  }
  const cloud::Offering* cheapest = types->front()->CheapestOffering(scheduling::Requirements());
  ASSERT_NE(cheapest, nullptr);
  EXPECT_EQ(cheapest->capacity_type, cloud::kCapacityTypeSpot);
}

}  // namespace
}  // namespace nodesmith::aws
