// Duration text follows Go's time.ParseDuration / Duration.String, which Karpenter's API uses
// for expireAfter, consolidateAfter, terminationGracePeriod and the batch windows.
#include "core/duration.h"

#include <gtest/gtest.h>

#include <chrono>
#include <cstdint>
#include <limits>
#include <string>

namespace nodesmith::core {
namespace {

using std::chrono::hours;
using std::chrono::microseconds;
using std::chrono::milliseconds;
using std::chrono::minutes;
using std::chrono::nanoseconds;
using std::chrono::seconds;

struct ParseCase {
  const char* text;
  Duration want;
};

class ParseDurationValid : public ::testing::TestWithParam<ParseCase> {};

TEST_P(ParseDurationValid, ParsesToExactNanoseconds) {
  const ParseCase& c = GetParam();
  Result<Duration> got = ParseDuration(c.text);
  ASSERT_TRUE(got.ok()) << c.text << ": " << got.status().message();
  EXPECT_EQ(got->count(), c.want.count()) << c.text;
}

// The cases Go's own time package pins, plus the forms Karpenter manifests use.
INSTANTIATE_TEST_SUITE_P(
    GoSyntax, ParseDurationValid,
    ::testing::Values(
        ParseCase{"0", Duration(0)}, ParseCase{"5s", seconds(5)}, ParseCase{"30s", seconds(30)},
        ParseCase{"1478s", seconds(1478)}, ParseCase{"-5s", seconds(-5)},
        ParseCase{"+5s", seconds(5)}, ParseCase{"-0", Duration(0)}, ParseCase{"+0", Duration(0)},
        ParseCase{"5.0s", seconds(5)}, ParseCase{"5.6s", milliseconds(5600)},
        ParseCase{"5.s", seconds(5)}, ParseCase{".5s", milliseconds(500)},
        ParseCase{"1.0s", seconds(1)}, ParseCase{"1.00s", seconds(1)},
        ParseCase{"1.004s", milliseconds(1004)}, ParseCase{"1.0040s", milliseconds(1004)},
        ParseCase{"100.00100s", milliseconds(100001)}, ParseCase{"10ns", nanoseconds(10)},
        ParseCase{"11us", microseconds(11)}, ParseCase{"12\xC2\xB5s", microseconds(12)},
        ParseCase{"12\xCE\xBCs", microseconds(12)}, ParseCase{"13ms", milliseconds(13)},
        ParseCase{"14s", seconds(14)}, ParseCase{"15m", minutes(15)}, ParseCase{"16h", hours(16)},
        ParseCase{"3h30m", hours(3) + minutes(30)},
        ParseCase{"10.5s4m", minutes(4) + milliseconds(10500)},
        ParseCase{"-2m3.4s", -(minutes(2) + milliseconds(3400))},
        ParseCase{"1h2m3s4ms5us6ns",
                  hours(1) + minutes(2) + seconds(3) + milliseconds(4) + microseconds(5) +
                      nanoseconds(6)},
        ParseCase{"39h9m14.425s", hours(39) + minutes(9) + milliseconds(14425)},
        ParseCase{"52763797000ns", nanoseconds(52763797000)},
        ParseCase{"0.3333333333333333333h", minutes(20)},
        ParseCase{"9007199254740993ns", nanoseconds(9007199254740993)},
        ParseCase{"9223372036854775807ns", nanoseconds(std::numeric_limits<int64_t>::max())},
        ParseCase{"9223372036854775.807us", nanoseconds(std::numeric_limits<int64_t>::max())},
        ParseCase{"-9223372036854775808ns", nanoseconds(std::numeric_limits<int64_t>::min())},
        ParseCase{"0.100000000000000000000h", minutes(6)},
        ParseCase{"720h", hours(720)}, ParseCase{"1.5h", minutes(90)},
        ParseCase{"300ms", milliseconds(300)}));

class ParseDurationInvalid : public ::testing::TestWithParam<const char*> {};

TEST_P(ParseDurationInvalid, IsRejectedWithTheTextInTheMessage) {
  Result<Duration> got = ParseDuration(GetParam());
  ASSERT_FALSE(got.ok()) << GetParam();
  EXPECT_EQ(got.status().code(), StatusCode::kInvalidArgument);
  EXPECT_NE(got.status().message().find(std::string("\"") + GetParam() + "\""), std::string::npos)
      << got.status().message();
}

INSTANTIATE_TEST_SUITE_P(GoSyntax, ParseDurationInvalid,
                         ::testing::Values("", "3", "-", "s", ".", "-.", ".s", "+.s", "1x",
                                           "1d", "1.5", "1 s", "1s ", " 1s", "Never",
                                           "9223372036854775808ns",
                                           "9223372036854775810ns", "-9223372036854775809ns",
                                           "3000000h", "100000000000000000000s"));

TEST(ParseDuration, NamesTheProblem) {
  EXPECT_EQ(ParseDuration("1").status().message(), "time: missing unit in duration \"1\"");
  EXPECT_EQ(ParseDuration("1x").status().message(),
            "time: unknown unit \"x\" in duration \"1x\"");
  EXPECT_EQ(ParseDuration("").status().message(), "time: invalid duration \"\"");
}

struct FormatCase {
  Duration d;
  const char* want;
};

class FormatDurationTest : public ::testing::TestWithParam<FormatCase> {};

TEST_P(FormatDurationTest, PrintsLikeGo) {
  EXPECT_EQ(FormatDuration(GetParam().d), GetParam().want);
}

INSTANTIATE_TEST_SUITE_P(
    GoString, FormatDurationTest,
    ::testing::Values(
        FormatCase{Duration(0), "0s"}, FormatCase{nanoseconds(1), "1ns"},
        FormatCase{nanoseconds(1100), "1.1\xC2\xB5s"}, FormatCase{microseconds(2200), "2.2ms"},
        FormatCase{milliseconds(3300), "3.3s"}, FormatCase{milliseconds(300), "300ms"},
        FormatCase{seconds(30), "30s"}, FormatCase{milliseconds(1500), "1.5s"},
        FormatCase{minutes(4) + seconds(5), "4m5s"},
        FormatCase{minutes(4) + milliseconds(5001), "4m5.001s"},
        FormatCase{hours(5) + minutes(6) + milliseconds(7001), "5h6m7.001s"},
        FormatCase{minutes(8) + nanoseconds(1), "8m0.000000001s"},
        FormatCase{hours(1) + minutes(30), "1h30m0s"}, FormatCase{hours(720), "720h0m0s"},
        FormatCase{-seconds(30), "-30s"}, FormatCase{-nanoseconds(1), "-1ns"},
        FormatCase{nanoseconds(std::numeric_limits<int64_t>::max()), "2562047h47m16.854775807s"},
        FormatCase{nanoseconds(std::numeric_limits<int64_t>::min()),
                   "-2562047h47m16.854775808s"}));

TEST(FormatDuration, RoundTripsThroughParse) {
  for (const char* text : {"1h30m0s", "720h0m0s", "1.5s", "300ms", "0s", "-4m5.001s", "12\xC2\xB5s"}) {
    Result<Duration> d = ParseDuration(text);
    ASSERT_TRUE(d.ok()) << text;
    EXPECT_EQ(FormatDuration(*d), text);
  }
}

TEST(NillableDuration, NeverMeansNoValue) {
  Result<NillableDuration> never = ParseNillableDuration("Never");
  ASSERT_TRUE(never.ok());
  EXPECT_TRUE(never->never());
  EXPECT_EQ(FormatNillableDuration(*never), "Never");
}

TEST(NillableDuration, OtherTextIsAGoDuration) {
  Result<NillableDuration> d = ParseNillableDuration("720h");
  ASSERT_TRUE(d.ok());
  EXPECT_FALSE(d->never());
  EXPECT_EQ(*d->value, hours(720));
  EXPECT_EQ(FormatNillableDuration(*d), "720h0m0s");
}

TEST(NillableDuration, RejectsOtherSpellingsOfNever) {
  EXPECT_FALSE(ParseNillableDuration("never").ok());
  EXPECT_FALSE(ParseNillableDuration("").ok());
  EXPECT_FALSE(ParseNillableDuration("NEVER").ok());
}

}  // namespace
}  // namespace nodesmith::core
