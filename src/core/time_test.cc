// RFC 3339 instants as Kubernetes writes them (metadata.creationTimestamp, lastTransitionTime).
#include "core/time.h"

#include <gtest/gtest.h>

#include <chrono>
#include <string>

namespace nodesmith::core {
namespace {

constexpr int64_t kSecond = 1000000000;

struct ParseCase {
  const char* text;
  int64_t unix_nanos;
};

class ParseRfc3339Valid : public ::testing::TestWithParam<ParseCase> {};

TEST_P(ParseRfc3339Valid, GivesNanosecondsSinceTheEpoch) {
  Result<Time> t = ParseRfc3339(GetParam().text);
  ASSERT_TRUE(t.ok()) << GetParam().text << ": " << t.status().message();
  EXPECT_EQ(t->unix_nanos, GetParam().unix_nanos) << GetParam().text;
}

INSTANTIATE_TEST_SUITE_P(
    Instants, ParseRfc3339Valid,
    ::testing::Values(
        ParseCase{"1970-01-01T00:00:00Z", 0},
        ParseCase{"2025-01-01T00:00:00Z", 1735689600 * kSecond},
        ParseCase{"2025-01-01T01:02:03.5+02:00", (1735689600 - 7200 + 3723) * kSecond + kSecond / 2},
        ParseCase{"2024-12-31T19:00:00-05:00", 1735689600 * kSecond},
        ParseCase{"2024-02-29T12:00:00Z", 1709208000 * kSecond},
        ParseCase{"2000-03-01T00:00:00Z", 951868800 * kSecond},
        ParseCase{"1969-12-31T23:59:59Z", -kSecond},
        ParseCase{"1969-12-31T23:59:59.75Z", -kSecond / 4},
        ParseCase{"2025-06-30T23:59:59.123456789Z", 1751327999 * kSecond + 123456789},
        ParseCase{"2025-06-30T23:59:59.1234567891Z", 1751327999 * kSecond + 123456789},
        ParseCase{"2025-01-01T00:00:00.000Z", 1735689600 * kSecond}));

class ParseRfc3339Invalid : public ::testing::TestWithParam<const char*> {};

TEST_P(ParseRfc3339Invalid, IsRejected) {
  Result<Time> t = ParseRfc3339(GetParam());
  ASSERT_FALSE(t.ok()) << GetParam();
  EXPECT_EQ(t.status().code(), StatusCode::kInvalidArgument);
}

INSTANTIATE_TEST_SUITE_P(
    Malformed, ParseRfc3339Invalid,
    ::testing::Values("", "2025-01-01", "2025-01-01T00:00:00", "2025-01-01 00:00:00Z",
                      "2025-13-01T00:00:00Z", "2025-00-01T00:00:00Z", "2025-02-29T00:00:00Z",
                      "1900-02-29T00:00:00Z", "2025-04-31T00:00:00Z", "2025-01-01T24:00:00Z",
                      "2025-01-01T00:60:00Z", "2025-01-01T00:00:60Z", "2025-01-01T00:00:00.Z",
                      "2025-01-01T00:00:00+0200", "2025-01-01T00:00:00+24:00",
                      "2025-01-01T00:00:00Zjunk", "25-01-01T00:00:00Z", "9999-01-01T00:00:00Z",
                      "1600-01-01T00:00:00Z"));

struct FormatCase {
  int64_t unix_nanos;
  const char* want;
};

class FormatRfc3339Test : public ::testing::TestWithParam<FormatCase> {};

TEST_P(FormatRfc3339Test, PrintsUtcWithZ) {
  EXPECT_EQ(FormatRfc3339(Time{GetParam().unix_nanos}), GetParam().want);
}

INSTANTIATE_TEST_SUITE_P(
    Instants, FormatRfc3339Test,
    ::testing::Values(FormatCase{0, "1970-01-01T00:00:00Z"},
                      FormatCase{1735689600 * kSecond, "2025-01-01T00:00:00Z"},
                      FormatCase{1735689600 * kSecond + kSecond / 2, "2025-01-01T00:00:00.5Z"},
                      FormatCase{1735689600 * kSecond + 1, "2025-01-01T00:00:00.000000001Z"},
                      FormatCase{1709208000 * kSecond, "2024-02-29T12:00:00Z"},
                      FormatCase{-kSecond / 4, "1969-12-31T23:59:59.75Z"},
                      FormatCase{-86400 * kSecond, "1969-12-31T00:00:00Z"}));

TEST(Rfc3339, FormatThenParseIsIdentityAcrossYears) {
  // Every 37 days and 13 hours or so from 1970 to 2100, including leap days.
  for (int64_t s = 0; s < 4102444800; s += 3245677) {
    const Time t{s * kSecond + (s % 1000) * 1000};
    Result<Time> back = ParseRfc3339(FormatRfc3339(t));
    ASSERT_TRUE(back.ok()) << FormatRfc3339(t);
    EXPECT_EQ(back->unix_nanos, t.unix_nanos) << FormatRfc3339(t);
  }
}

TEST(Rfc3339, OffsetsNameTheSameInstant) {
  Result<Time> a = ParseRfc3339("2025-03-10T10:00:00+05:30");
  Result<Time> b = ParseRfc3339("2025-03-10T04:30:00Z");
  ASSERT_TRUE(a.ok());
  ASSERT_TRUE(b.ok());
  EXPECT_EQ(*a, *b);
  EXPECT_EQ(FormatRfc3339(*a), "2025-03-10T04:30:00Z");
}

TEST(Time, ArithmeticWithDurations) {
  const Time t = *ParseRfc3339("2025-01-01T00:00:00Z");
  const Time later = t + std::chrono::hours(720);
  EXPECT_EQ(FormatRfc3339(later), "2025-01-31T00:00:00Z");
  EXPECT_EQ(later - t, std::chrono::hours(720));
  EXPECT_LT(t, later);
}

}  // namespace
}  // namespace nodesmith::core
