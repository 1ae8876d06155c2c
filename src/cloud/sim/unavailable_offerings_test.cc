// Insufficient-capacity windows open, merge and expire with the time they are asked about.
#include "cloud/sim/unavailable_offerings.h"

#include <gtest/gtest.h>

namespace nodesmith::cloud::sim {
namespace {

using std::chrono::minutes;

const core::Time kT0 = core::Time::FromUnixSeconds(1735689600);
const OfferingRef kSpotA{"c5.large", "us-west-2a", "spot"};

TEST(UnavailableOfferings, AWindowCoversItsOfferingUntilItsEnd) {
  UnavailableOfferings u;
  u.Mark(kSpotA, kT0 + minutes(10));
  EXPECT_TRUE(u.IsUnavailable(kSpotA, kT0));
  EXPECT_TRUE(u.IsUnavailable(kSpotA, kT0 + minutes(10) - std::chrono::nanoseconds(1)));
  EXPECT_FALSE(u.IsUnavailable(kSpotA, kT0 + minutes(10)));
  EXPECT_FALSE(u.IsUnavailable({"c5.large", "us-west-2a", "on-demand"}, kT0));
  EXPECT_FALSE(u.IsUnavailable({"c5.large", "us-west-2b", "spot"}, kT0));
}

TEST(UnavailableOfferings, OverlappingWindowsKeepTheLaterEnd) {
  UnavailableOfferings u;
  u.Mark(kSpotA, kT0 + minutes(10));
  u.Mark(kSpotA, kT0 + minutes(5));
  EXPECT_TRUE(u.IsUnavailable(kSpotA, kT0 + minutes(7)));
  EXPECT_EQ(u.NextExpiry(kT0), kT0 + minutes(10));
  EXPECT_EQ(u.NextExpiry(kT0 + minutes(10)), std::nullopt);
}

TEST(UnavailableOfferings, AnyUnavailableLooksOnlyAtTheNamedType) {
  UnavailableOfferings u;
  u.Mark({"c5.large", "us-west-2b", "on-demand"}, kT0 + minutes(1));
  u.Mark({"c5.xlarge", "us-west-2a", "spot"}, kT0 + minutes(3));
  EXPECT_TRUE(u.AnyUnavailable("c5.large", kT0));
  EXPECT_FALSE(u.AnyUnavailable("c5.large", kT0 + minutes(1)));
  EXPECT_FALSE(u.AnyUnavailable("c5", kT0));
  EXPECT_TRUE(u.AnyUnavailable("c5.xlarge", kT0 + minutes(2)));
  EXPECT_EQ(u.NextExpiry(kT0), kT0 + minutes(1));
  EXPECT_EQ(OfferingRef({"c5.large", "us-west-2b", "on-demand"}).String(),
            "c5.large/us-west-2b/on-demand");
}

}  // namespace
}  // namespace nodesmith::cloud::sim
