// Cron schedules as NodePool disruption budgets use them: robfig/cron's standard five-field
// syntax, in UTC. Each case reads "after this instant, the schedule next fires at that one".
#include "core/cron_schedule.h"

#include <gtest/gtest.h>

#include <chrono>
#include <set>
#include <string>
#include <vector>

namespace nodesmith::core {
namespace {

using std::chrono::hours;
using std::chrono::minutes;
using std::chrono::seconds;

Time At(const char* rfc3339) {
  Result<Time> t = ParseRfc3339(rfc3339);
  EXPECT_TRUE(t.ok()) << rfc3339;
  return t.ok() ? *t : Time{};
}

CronSchedule MustParse(const std::string& spec) {
  Result<CronSchedule> s = CronSchedule::Parse(spec);
  EXPECT_TRUE(s.ok()) << spec << ": " << s.status().message();
  return s.ok() ? *s : *CronSchedule::Parse("@yearly");
}

struct NextCase {
  const char* spec;
  const char* after;
  const char* want;  // nullptr: never fires
};

class CronNext : public ::testing::TestWithParam<NextCase> {};

TEST_P(CronNext, FiresFirstStrictlyAfterTheGivenInstant) {
  const NextCase& c = GetParam();
  std::optional<Time> got = MustParse(c.spec).Next(At(c.after));
  if (c.want == nullptr) {
    EXPECT_FALSE(got.has_value()) << c.spec << " after " << c.after << " fired at "
                                  << FormatRfc3339(*got);
    return;
  }
  ASSERT_TRUE(got.has_value()) << c.spec << " after " << c.after;
  EXPECT_EQ(FormatRfc3339(*got), c.want) << c.spec << " after " << c.after;
}

INSTANTIATE_TEST_SUITE_P(
    Calendar, CronNext,
    ::testing::Values(
        // Karpenter's documented business-hours budget; 2025-01-01 is a Wednesday.
        NextCase{"0 9 * * mon-fri", "2025-01-01T00:00:00Z", "2025-01-01T09:00:00Z"},
        NextCase{"0 9 * * mon-fri", "2025-01-03T09:00:00Z", "2025-01-06T09:00:00Z"},
        NextCase{"0 9 * * mon-fri", "2025-01-03T08:59:59.5Z", "2025-01-03T09:00:00Z"},
        NextCase{"0 9 * * MON-FRI", "2025-01-04T12:00:00Z", "2025-01-06T09:00:00Z"},
        // Every quarter hour, and a step from an offset ("5/20" is 5, 25, 45).
        NextCase{"*/15 * * * *", "2025-01-01T10:07:00Z", "2025-01-01T10:15:00Z"},
        NextCase{"*/15 * * * *", "2025-01-01T10:45:00Z", "2025-01-01T11:00:00Z"},
        NextCase{"5/20 * * * *", "2025-01-01T10:46:00Z", "2025-01-01T11:05:00Z"},
        NextCase{"0,30 8-10/2 * * *", "2025-01-01T08:31:00Z", "2025-01-01T10:00:00Z"},
        // Macros.
        NextCase{"@daily", "2025-12-31T23:59:30Z", "2026-01-01T00:00:00Z"},
        NextCase{"@midnight", "2025-03-04T00:00:00Z", "2025-03-05T00:00:00Z"},
        NextCase{"@hourly", "2025-01-01T10:00:00Z", "2025-01-01T11:00:00Z"},
        NextCase{"@weekly", "2025-01-01T00:00:00Z", "2025-01-05T00:00:00Z"},
        NextCase{"@monthly", "2025-01-15T00:00:00Z", "2025-02-01T00:00:00Z"},
        NextCase{"@yearly", "2025-01-01T00:00:00Z", "2026-01-01T00:00:00Z"},
        NextCase{"@annually", "2024-06-01T00:00:00Z", "2025-01-01T00:00:00Z"},
        // Month ends: the 31st skips short months; the last minute of the day rolls over.
        NextCase{"0 0 31 * *", "2025-04-01T00:00:00Z", "2025-05-31T00:00:00Z"},
        NextCase{"0 0 31 * *", "2025-01-31T00:00:00Z", "2025-03-31T00:00:00Z"},
        NextCase{"30 23 * * *", "2025-01-31T23:31:00Z", "2025-02-01T23:30:00Z"},
        NextCase{"0 0 1 1 *", "2025-12-31T23:59:59Z", "2026-01-01T00:00:00Z"},
        NextCase{"0 0 31 12 *", "2024-12-31T00:00:00Z", "2025-12-31T00:00:00Z"},
        // Leap years: February 29th every four years, but not in 2100.
        NextCase{"0 12 * feb *", "2024-02-28T12:00:00Z", "2024-02-29T12:00:00Z"},
        NextCase{"0 12 * feb *", "2025-02-28T12:00:00Z", "2026-02-01T12:00:00Z"},
        NextCase{"0 0 29 2 *", "2025-01-01T00:00:00Z", "2028-02-29T00:00:00Z"},
        NextCase{"0 0 29 2 *", "2096-03-01T00:00:00Z", "2104-02-29T00:00:00Z"},
        NextCase{"0 0 30 2 *", "2025-01-01T00:00:00Z", nullptr},
        NextCase{"0 0 31 apr,jun,sep,nov *", "2025-01-01T00:00:00Z", nullptr},
        // Names, either case, in lists.
        NextCase{"30 2 * jan,JUL Sun", "2025-02-01T00:00:00Z", "2025-07-06T02:30:00Z"},
        NextCase{"0 0 * * sat,SUN", "2025-01-01T00:00:00Z", "2025-01-04T00:00:00Z"},
        // Day-of-month and day-of-week both restricted: either may match (cron's OR).
        NextCase{"0 0 1,15 * mon", "2025-01-01T00:00:00Z", "2025-01-06T00:00:00Z"},
        NextCase{"0 0 1,15 * mon", "2025-01-13T00:00:00Z", "2025-01-15T00:00:00Z"},
        // ... a stepped star is a restriction, so "*/10" still ORs with Monday.
        NextCase{"0 0 */10 * mon", "2025-01-07T00:00:00Z", "2025-01-11T00:00:00Z"},
        // ... a bare star is not: Mondays only.
        NextCase{"0 0 * * mon", "2025-01-07T00:00:00Z", "2025-01-13T00:00:00Z"},
        NextCase{"0 0 ? * mon", "2025-01-07T00:00:00Z", "2025-01-13T00:00:00Z"},
        NextCase{"0 0 13 * ?", "2025-01-07T00:00:00Z", "2025-01-13T00:00:00Z"}));

TEST(CronScheduleTest, WorksBeforeTheEpoch) {
  EXPECT_EQ(MustParse("30 0 * * *").Next(Time{-60 * int64_t{1000000000}}),
            Time{30 * 60 * int64_t{1000000000}});
}

struct InvalidCase {
  const char* spec;
  const char* mentions;
};

class CronInvalid : public ::testing::TestWithParam<InvalidCase> {};

TEST_P(CronInvalid, IsRejectedNamingTheProblem) {
  const InvalidCase& c = GetParam();
  Result<CronSchedule> s = CronSchedule::Parse(c.spec);
  ASSERT_FALSE(s.ok()) << "\"" << c.spec << "\" parsed";
  EXPECT_EQ(s.status().code(), StatusCode::kInvalidArgument);
  EXPECT_NE(s.status().message().find(c.mentions), std::string::npos)
      << "\"" << c.spec << "\": " << s.status().message();
}

INSTANTIATE_TEST_SUITE_P(
    Syntax, CronInvalid,
    ::testing::Values(InvalidCase{"", "empty"}, InvalidCase{"   ", "empty"},
                      InvalidCase{"* * * *", "expected exactly 5 fields, found 4"},
                      InvalidCase{"0 * * * * *", "expected exactly 5 fields, found 6"},
                      InvalidCase{"TZ=UTC 0 9 * * *", "found 6"},
                      InvalidCase{"60 * * * *", "minute field \"60\""},
                      InvalidCase{"* 24 * * *", "hour field"},
                      InvalidCase{"* * 0 * *", "day-of-month field \"0\": 0 is below"},
                      InvalidCase{"* * 32 * *", "day-of-month field"},
                      InvalidCase{"* * * 0 *", "month field"},
                      InvalidCase{"* * * 13 *", "month field"},
                      InvalidCase{"* * * foo *", "month field \"foo\""},
                      InvalidCase{"* * * * 7", "day-of-week field \"7\": 7 is above the maximum 6"},
                      InvalidCase{"* * * * fri-mon", "day-of-week field"},
                      InvalidCase{"* * * * mon-sun", "range start 1 is after its end 0"},
                      InvalidCase{"*/0 * * * *", "step must be positive"},
                      InvalidCase{"a * * * *", "minute field \"a\""},
                      InvalidCase{"-1 * * * *", "minute field"},
                      InvalidCase{"1-2-3 * * * *", "too many hyphens"},
                      InvalidCase{"1/2/3 * * * *", "too many slashes"},
                      InvalidCase{"1,,2 * * * *", "empty list element"},
                      InvalidCase{"*-5 * * * *", "minute field"},
                      InvalidCase{"0 9 * * mon-fri/x", "day-of-week field"},
                      InvalidCase{"@every 1h", "macro"}, InvalidCase{"@Daily", "macro"},
                      InvalidCase{"@fortnightly", "unrecognized macro"}));

TEST(CronScheduleTest, SurroundingWhitespaceAndTabsAreAccepted) {
  EXPECT_EQ(MustParse("  0\t9 * *  mon-fri ").Next(At("2025-01-01T00:00:00Z")),
            At("2025-01-01T09:00:00Z"));
  EXPECT_EQ(MustParse(" @daily ").spec(), " @daily ");
}

// "Is a budget with this schedule and duration active now": a firing f with f <= now < f + d.
struct ActiveCase {
  const char* spec;
  Duration window;
  const char* at;
  bool want;
};

class CronActive : public ::testing::TestWithParam<ActiveCase> {};

TEST_P(CronActive, CoversTheInstantsAfterAFiringForTheWindow) {
  const ActiveCase& c = GetParam();
  EXPECT_EQ(MustParse(c.spec).ActiveAt(At(c.at), c.window), c.want) << c.spec << " at " << c.at;
}

INSTANTIATE_TEST_SUITE_P(
    Windows, CronActive,
    ::testing::Values(
        // Karpenter docs: no disruption on weekdays 09:00-17:00 UTC.
        ActiveCase{"0 9 * * mon-fri", hours(8), "2025-01-01T08:59:59Z", false},
        ActiveCase{"0 9 * * mon-fri", hours(8), "2025-01-01T09:00:00Z", true},
        ActiveCase{"0 9 * * mon-fri", hours(8), "2025-01-01T16:59:59.999Z", true},
        ActiveCase{"0 9 * * mon-fri", hours(8), "2025-01-01T17:00:00Z", false},
        ActiveCase{"0 9 * * mon-fri", hours(8), "2025-01-04T10:00:00Z", false},  // Saturday
        // Karpenter docs: ten minutes after midnight every day.
        ActiveCase{"@daily", minutes(10), "2025-01-02T00:00:00Z", true},
        ActiveCase{"@daily", minutes(10), "2025-01-02T00:09:59Z", true},
        ActiveCase{"@daily", minutes(10), "2025-01-02T00:10:00Z", false},
        ActiveCase{"@daily", minutes(10), "2025-01-01T23:59:00Z", false},
        // Windows as long as the period, or longer, never close.
        ActiveCase{"*/15 * * * *", minutes(15), "2025-01-01T10:14:59Z", true},
        ActiveCase{"*/15 * * * *", minutes(14), "2025-01-01T10:14:59Z", false},
        ActiveCase{"0 * * * *", hours(2), "2025-01-01T10:59:00Z", true},
        // Windows run across midnight and month ends.
        ActiveCase{"0 22 * * fri", hours(4), "2025-01-04T01:59:00Z", true},
        ActiveCase{"0 22 * * fri", hours(4), "2025-01-04T02:00:00Z", false},
        ActiveCase{"0 20 31 * *", hours(6), "2025-02-01T01:00:00Z", true},
        ActiveCase{"0 20 31 * *", hours(6), "2025-03-01T01:00:00Z", false},
        // A zero window is never open; a schedule that never fires is never active.
        ActiveCase{"* * * * *", Duration(0), "2025-01-01T00:00:00Z", false},
        ActiveCase{"0 0 30 2 *", hours(24 * 366), "2025-03-01T00:00:00Z", false}));

// An independent reference: the allowed values of each field written out, matched minute by
// minute with the standard library's calendar.
struct Reference {
  std::set<int> minute_values, hour_values, day_values, month_values, weekday_values;
  bool any_day, any_weekday;

  bool Matches(std::chrono::sys_seconds t) const {
    namespace c = std::chrono;
    const c::sys_days day = c::floor<c::days>(t);
    const c::year_month_day ymd(day);
    const c::hh_mm_ss hms(t - day);
    const bool dom = day_values.count(static_cast<int>(unsigned(ymd.day())));
    const bool dow = weekday_values.count(static_cast<int>(c::weekday(day).c_encoding()));
    const bool day_ok = any_day || any_weekday ? dom && dow : dom || dow;
    return day_ok && minute_values.count(static_cast<int>(hms.minutes().count())) &&
           hour_values.count(static_cast<int>(hms.hours().count())) &&
           month_values.count(static_cast<int>(unsigned(ymd.month())));
  }
};

std::set<int> Range(int lo, int hi, int step = 1) {
  std::set<int> out;
  for (int v = lo; v <= hi; v += step) out.insert(v);
  return out;
}

TEST(CronScheduleTest, AgreesWithAMinuteByMinuteScan) {
  struct Spec {
    const char* text;
    Reference ref;
  };
  const std::vector<Spec> specs = {
      {"0 9 * * mon-fri", {{0}, {9}, Range(1, 31), Range(1, 12), Range(1, 5), true, false}},
      {"*/7 */5 * * *", {Range(0, 59, 7), Range(0, 23, 5), Range(1, 31), Range(1, 12), Range(0, 6),
                         true, true}},
      {"15 3 1,31 * wed", {{15}, {3}, {1, 31}, Range(1, 12), {3}, false, false}},
      {"0 0 */3 feb-apr *",
       {{0}, {0}, Range(1, 31, 3), Range(2, 4), Range(0, 6), false, true}},
      {"45 23 29 2 *", {{45}, {23}, {29}, {2}, Range(0, 6), false, true}},
  };
  const std::vector<const char*> starts = {"2023-12-31T23:59:00Z", "2024-02-28T23:50:00Z",
                                           "2025-06-15T12:34:56Z", "2027-03-31T00:00:00Z"};
  for (const Spec& spec : specs) {
    const CronSchedule schedule = MustParse(spec.text);
    for (const char* start : starts) {
      namespace c = std::chrono;
      c::sys_seconds t =
          c::floor<minutes>(c::sys_seconds(seconds(At(start).unix_nanos / 1000000000))) +
          minutes(1);
      const c::sys_seconds limit = t + hours(24 * 366 * 5);
      while (t < limit && !spec.ref.Matches(t)) t += minutes(1);
      ASSERT_LT(t, limit) << spec.text;
      std::optional<Time> got = schedule.Next(At(start));
      ASSERT_TRUE(got.has_value()) << spec.text << " after " << start;
      EXPECT_EQ(got->unix_nanos / 1000000000, t.time_since_epoch().count())
          << spec.text << " after " << start << ": got " << FormatRfc3339(*got);
    }
  }
}

}  // namespace
}  // namespace nodesmith::core
