#include "core/cron_schedule.h"

#include <array>
#include <bit>
#include <cctype>
#include <chrono>
#include <limits>
#include <vector>

namespace nodesmith::core {
namespace {

constexpr int64_t kNanosPerMinute = int64_t{60} * 1000 * 1000 * 1000;
constexpr int64_t kMinutesPerDay = 24 * 60;
// Longest gap between two firings of a schedule that fires at all: February 29th skips 2100.
constexpr int kSearchYears = 8;

struct Field {
  const char* name;
  int min;
  int max;
  const std::array<const char*, 12>* names;  // names[i] is value min + i; null when none
};

const std::array<const char*, 12> kMonthNames = {"jan", "feb", "mar", "apr", "may", "jun",
                                                 "jul", "aug", "sep", "oct", "nov", "dec"};
const std::array<const char*, 12> kWeekdayNames = {"sun", "mon", "tue", "wed", "thu", "fri",
                                                   "sat", nullptr, nullptr, nullptr, nullptr,
                                                   nullptr};

const Field kMinute{"minute", 0, 59, nullptr};
const Field kHour{"hour", 0, 23, nullptr};
const Field kDayOfMonth{"day-of-month", 1, 31, nullptr};
const Field kMonth{"month", 1, 12, &kMonthNames};
const Field kDayOfWeek{"day-of-week", 0, 6, &kWeekdayNames};

int64_t FloorDiv(int64_t a, int64_t b) { return a / b - ((a % b != 0) && ((a < 0) != (b < 0))); }

// Days since 1970-01-01 of a proleptic Gregorian date (H. Hinnant's days_from_civil).
int64_t DaysFromCivil(int64_t y, int m, int d) {
  y -= m <= 2;
  const int64_t era = FloorDiv(y, 400);
  const int64_t yoe = y - era * 400;
  const int64_t doy = (153 * (m + (m > 2 ? -3 : 9)) + 2) / 5 + d - 1;
  const int64_t doe = yoe * 365 + yoe / 4 - yoe / 100 + doy;
  return era * 146097 + doe - 719468;
}

void CivilFromDays(int64_t z, int64_t& y, int& m, int& d) {
  z += 719468;
  const int64_t era = FloorDiv(z, 146097);
  const int64_t doe = z - era * 146097;
  const int64_t yoe = (doe - doe / 1460 + doe / 36524 - doe / 146096) / 365;
  const int64_t doy = doe - (365 * yoe + yoe / 4 - yoe / 100);
  const int64_t mp = (5 * doy + 2) / 153;
  d = static_cast<int>(doy - (153 * mp + 2) / 5 + 1);
  m = static_cast<int>(mp < 10 ? mp + 3 : mp - 9);
  y = yoe + era * 400 + (m <= 2);
}

bool IsLeap(int64_t y) { return (y % 4 == 0 && y % 100 != 0) || y % 400 == 0; }

int DaysInMonth(int64_t y, int m) {
  static constexpr int kDays[] = {31, 28, 31, 30, 31, 30, 31, 31, 30, 31, 30, 31};
  return m == 2 && IsLeap(y) ? 29 : kDays[m - 1];
}

// 0 = Sunday; 1970-01-01 was a Thursday.
int Weekday(int64_t days_since_epoch) {
  return static_cast<int>(((days_since_epoch % 7) + 7 + 4) % 7);
}

// The smallest set bit of `mask` at or above `from`, or -1.
int NextBit(uint64_t mask, int from) {
  if (from >= 64) return -1;
  const uint64_t rest = mask & (~uint64_t{0} << from);
  return rest == 0 ? -1 : std::countr_zero(rest);
}

std::string ToLower(std::string_view s) {
  std::string out(s);
  for (char& c : out) c = static_cast<char>(std::tolower(static_cast<unsigned char>(c)));
  return out;
}

std::vector<std::string_view> Split(std::string_view s, char sep) {
  std::vector<std::string_view> out;
  size_t start = 0;
  while (true) {
    size_t pos = s.find(sep, start);
    out.push_back(s.substr(start, pos == std::string_view::npos ? s.size() - start : pos - start));
    if (pos == std::string_view::npos) return out;
    start = pos + 1;
  }
}

std::vector<std::string_view> SplitWhitespace(std::string_view s) {
  std::vector<std::string_view> out;
  size_t i = 0;
  while (i < s.size()) {
    while (i < s.size() && std::isspace(static_cast<unsigned char>(s[i]))) ++i;
    size_t start = i;
    while (i < s.size() && !std::isspace(static_cast<unsigned char>(s[i]))) ++i;
    if (i > start) out.push_back(s.substr(start, i - start));
  }
  return out;
}

Status FieldError(const Field& f, std::string_view text, const std::string& why) {
  return Status::Invalid(std::string(f.name) + " field \"" + std::string(text) + "\": " + why);
}

// A number, or (for fields with names) a month or weekday name.
Result<int> ParseValue(const Field& f, std::string_view field_text, std::string_view text) {
  if (f.names != nullptr) {
    const std::string lower = ToLower(text);
    for (size_t i = 0; i < f.names->size(); ++i) {
      if ((*f.names)[i] != nullptr && lower == (*f.names)[i]) return f.min + static_cast<int>(i);
    }
  }
  // Built by appending: g++ 12 at -O3 misreads `"literal" + std::string` as overlapping copies.
  std::string not_a_number = "\"";
  not_a_number.append(text).append("\" is not a number");
  if (text.empty() || text.size() > 9) return FieldError(f, field_text, not_a_number);
  int v = 0;
  for (char c : text) {
    if (c < '0' || c > '9') {
      if (f.names != nullptr) not_a_number.append(" or a name");
      return FieldError(f, field_text, not_a_number);
    }
    v = v * 10 + (c - '0');
  }
  return v;
}

struct ParsedField {
  uint64_t bits = 0;
  bool any = false;  // a bare `*` or `?` (no step beyond 1) appeared
};

// One field: a comma-separated list of `*`, `N`, `A-B`, each with an optional `/S`.
Result<ParsedField> ParseField(const Field& f, std::string_view text) {
  ParsedField out;
  for (std::string_view item : Split(text, ',')) {
    if (item.empty()) return FieldError(f, text, "empty list element");
    std::vector<std::string_view> range_and_step = Split(item, '/');
    if (range_and_step.size() > 2) return FieldError(f, text, "too many slashes");
    std::vector<std::string_view> low_high = Split(range_and_step[0], '-');
    if (low_high.size() > 2) return FieldError(f, text, "too many hyphens");
    int start = 0;
    int end = 0;
    bool star = false;
    if (low_high[0] == "*" || low_high[0] == "?") {
      if (low_high.size() != 1) return FieldError(f, text, "a range cannot start with *");
      start = f.min;
      end = f.max;
      star = true;
    } else {
      Result<int> lo = ParseValue(f, text, low_high[0]);
      if (!lo.ok()) return lo.status();
      start = end = *lo;
      if (low_high.size() == 2) {
        Result<int> hi = ParseValue(f, text, low_high[1]);
        if (!hi.ok()) return hi.status();
        end = *hi;
      }
    }
    int step = 1;
    if (range_and_step.size() == 2) {
      Result<int> s = ParseValue(Field{f.name, f.min, f.max, nullptr}, text, range_and_step[1]);
      if (!s.ok()) return s.status();
      step = *s;
      if (step <= 0) return FieldError(f, text, "step must be positive");
      if (low_high.size() == 1) end = f.max;  // "N/S" means "N-max/S"
      if (step > 1) star = false;
    }
    if (start < f.min) {
      return FieldError(f, text,
                        std::to_string(start) + " is below the minimum " + std::to_string(f.min));
    }
    if (end > f.max) {
      return FieldError(f, text,
                        std::to_string(end) + " is above the maximum " + std::to_string(f.max));
    }
    if (start > end) {
      return FieldError(f, text,
                        "range start " + std::to_string(start) + " is after its end " +
                            std::to_string(end));
    }
    for (int v = start; v <= end; v += step) out.bits |= uint64_t{1} << v;
    out.any = out.any || star;
  }
  return out;
}

}  // namespace

Result<CronSchedule> CronSchedule::Parse(std::string_view spec) {
  CronSchedule s;
  s.spec_ = std::string(spec);
  const std::vector<std::string_view> fields = SplitWhitespace(spec);
  auto invalid = [&](const std::string& why) {
    return Status::Invalid("invalid cron schedule \"" + s.spec_ + "\": " + why);
  };
  if (fields.empty()) return invalid("empty schedule");

  const uint64_t all_minutes = (uint64_t{1} << 60) - 1;
  const uint32_t all_hours = (uint32_t{1} << 24) - 1;
  const uint32_t all_days = ((uint32_t{1} << 31) - 1) << 1;
  const uint16_t all_months = ((uint16_t{1} << 12) - 1) << 1;
  const uint8_t all_weekdays = (1 << 7) - 1;
  if (fields[0][0] == '@') {
    if (fields.size() != 1) return invalid("a macro takes no other fields");
    const std::string_view macro = fields[0];
    s.minutes_ = 1;
    s.hours_ = 1;
    s.days_ = all_days;
    s.months_ = all_months;
    s.weekdays_ = all_weekdays;
    s.any_day_ = true;
    s.any_weekday_ = true;
    if (macro == "@yearly" || macro == "@annually") {
      s.days_ = 1u << 1;
      s.any_day_ = false;
      s.months_ = 1u << 1;
    } else if (macro == "@monthly") {
      s.days_ = 1u << 1;
      s.any_day_ = false;
    } else if (macro == "@weekly") {
      s.weekdays_ = 1;  // Sunday
      s.any_weekday_ = false;
    } else if (macro == "@daily" || macro == "@midnight") {
    } else if (macro == "@hourly") {
      s.hours_ = all_hours;
    } else {
      return invalid("unrecognized macro " + std::string(macro) +
                     " (@yearly, @annually, @monthly, @weekly, @daily, @midnight, @hourly)");
    }
    return s;
  }
  if (fields.size() != 5) {
    return invalid("expected exactly 5 fields, found " + std::to_string(fields.size()));
  }
  const Field* kinds[] = {&kMinute, &kHour, &kDayOfMonth, &kMonth, &kDayOfWeek};
  ParsedField parsed[5];
  for (int i = 0; i < 5; ++i) {
    Result<ParsedField> p = ParseField(*kinds[i], fields[i]);
    if (!p.ok()) return invalid(p.status().message());
    parsed[i] = *p;
  }
  s.minutes_ = parsed[0].bits & all_minutes;
  s.hours_ = static_cast<uint32_t>(parsed[1].bits) & all_hours;
  s.days_ = static_cast<uint32_t>(parsed[2].bits) & all_days;
  s.any_day_ = parsed[2].any;
  s.months_ = static_cast<uint16_t>(parsed[3].bits) & all_months;
  s.weekdays_ = static_cast<uint8_t>(parsed[4].bits) & all_weekdays;
  s.any_weekday_ = parsed[4].any;
  return s;
}

std::optional<Time> CronSchedule::Next(Time after) const {
  // Walk the calendar from the first whole minute after `after`, jumping each field to its
  // next allowed value and restarting from the month whenever a field wraps.
  const int64_t first = FloorDiv(after.unix_nanos, kNanosPerMinute) + 1;
  const int64_t first_day = FloorDiv(first, kMinutesPerDay);
  int minute_of_day = static_cast<int>(first - first_day * kMinutesPerDay);
  int64_t year = 0;
  int month = 0;
  int day = 0;
  CivilFromDays(first_day, year, month, day);
  int hour = minute_of_day / 60;
  int minute = minute_of_day % 60;
  const int64_t last_year = year + kSearchYears;

  auto day_matches = [&](int d, int64_t days_since_epoch) {
    const bool dom = (days_ >> d) & 1u;
    const bool dow = (weekdays_ >> Weekday(days_since_epoch)) & 1u;
    return any_day_ || any_weekday_ ? dom && dow : dom || dow;
  };
  auto start_of_month = [&](int64_t y, int m) {
    year = y;
    month = m;
    day = 1;
    hour = 0;
    minute = 0;
  };
  auto next_month = [&] {
    if (month == 12) {
      start_of_month(year + 1, 1);
    } else {
      start_of_month(year, month + 1);
    }
  };

  while (year <= last_year) {
    if (!((months_ >> month) & 1u)) {
      const int m = NextBit(months_, month + 1);
      if (m < 0) {
        start_of_month(year + 1, NextBit(months_, 1));
      } else {
        start_of_month(year, m);
      }
      continue;
    }
    const int last_day = DaysInMonth(year, month);
    int64_t days = DaysFromCivil(year, month, day);
    if (!day_matches(day, days)) {
      int d = day + 1;
      ++days;
      while (d <= last_day && !day_matches(d, days)) {
        ++d;
        ++days;
      }
      if (d > last_day) {
        next_month();
        continue;
      }
      // A later day: its hours and minutes start from midnight.
      day = d;
      hour = 0;
      minute = 0;
    }
    const int h = NextBit(hours_, hour);
    if (h < 0) {
      // No allowed hour left today: the next day at midnight.
      if (day == last_day) {
        next_month();
      } else {
        ++day;
        hour = 0;
        minute = 0;
      }
      continue;
    }
    if (h != hour) {
      hour = h;
      minute = 0;
    }
    const int m = NextBit(minutes_, minute);
    if (m < 0) {
      minute = 0;
      if (++hour == 24) {
        hour = 0;
        if (day == last_day) {
          next_month();
        } else {
          ++day;
        }
      }
      continue;
    }
    const int64_t total_minutes = days * kMinutesPerDay + hour * 60 + m;
    if (total_minutes > std::numeric_limits<int64_t>::max() / kNanosPerMinute) return std::nullopt;
    return Time{total_minutes * kNanosPerMinute};
  }
  return std::nullopt;
}

bool CronSchedule::ActiveAt(Time t, Duration window) const {
  // The first firing after t - window opens the latest window that could still cover t.
  std::optional<Time> next = Next(t - window);
  return next.has_value() && *next <= t;
}

}  // namespace nodesmith::core
