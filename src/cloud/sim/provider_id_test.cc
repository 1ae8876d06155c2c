// Provider ids, instance ids and interruption kind names of the simulated cloud.
#include "cloud/sim/provider_id.h"

#include <gtest/gtest.h>

#include <regex>
#include <set>

#include "cloud/sim/interruption.h"

namespace nodesmith::cloud::sim {
namespace {

TEST(ProviderId, FormatsAndParsesTheAwsForm) {
  EXPECT_EQ(FormatProviderId("us-west-2a", "i-0123456789abcdef0"),
            "aws:///us-west-2a/i-0123456789abcdef0");
  auto parsed = ParseProviderId("aws:///us-west-2a/i-0123456789abcdef0");
  ASSERT_TRUE(parsed.ok());
  EXPECT_EQ(parsed->zone, "us-west-2a");
  EXPECT_EQ(parsed->instance_id, "i-0123456789abcdef0");
}

TEST(ProviderId, RejectsOtherForms) {
  for (const char* bad : {"", "aws://us-west-2a/i-1", "aws:///i-1", "aws:///us-west-2a/",
                          "kwok://node", "aws:///a/b/c"}) {
    EXPECT_EQ(ParseProviderId(bad).status().code(), core::StatusCode::kInvalidArgument) << bad;
  }
}

TEST(InstanceIdGenerator, GivesDistinctSeventeenHexDigitIdsDeterminedByTheSeed) {
  InstanceIdGenerator a(1), b(1), c(2);
  std::set<std::string> seen;
  const std::regex shape("i-0[0-9a-f]{16}");
  for (int i = 0; i < 1000; ++i) {
    const std::string id = a.Next();
    EXPECT_TRUE(std::regex_match(id, shape)) << id;
    EXPECT_EQ(id, b.Next());
    EXPECT_NE(id, c.Next());
    seen.insert(id);
  }
  EXPECT_EQ(seen.size(), 1000u);
  EXPECT_EQ(a.count(), 1000u);
}

TEST(InterruptionKind, ScenarioNamesRoundTrip) {
  for (const char* name : {"spot", "scheduledChange", "stopping", "terminated"}) {
    auto kind = ParseInterruptionKind(name);
    ASSERT_TRUE(kind.has_value()) << name;
    EXPECT_EQ(InterruptionKindName(*kind), name);
  }
  EXPECT_FALSE(ParseInterruptionKind("Spot").has_value());
  EXPECT_FALSE(ParseInterruptionKind("rebalance").has_value());
}

}  // namespace
}  // namespace nodesmith::cloud::sim
