#include "core/time.h"

#include <cstdint>
#include <cstdio>
#include <string>

namespace nodesmith::core {
namespace {

constexpr int64_t kNanosPerSecond = 1000 * 1000 * 1000;
constexpr int64_t kSecondsPerDay = 86400;

// Days since 1970-01-01 of a proleptic Gregorian date (Howard Hinnant's days_from_civil).
int64_t DaysFromCivil(int64_t y, int64_t m, int64_t d) {
  y -= m <= 2 ? 1 : 0;
  const int64_t era = (y >= 0 ? y : y - 399) / 400;
  const int64_t yoe = y - era * 400;                                   // [0, 399]
  const int64_t doy = (153 * (m + (m > 2 ? -3 : 9)) + 2) / 5 + d - 1;  // [0, 365]
  const int64_t doe = yoe * 365 + yoe / 4 - yoe / 100 + doy;           // [0, 146096]
  return era * 146097 + doe - 719468;
}

// The inverse of DaysFromCivil.
void CivilFromDays(int64_t z, int64_t& y, int64_t& m, int64_t& d) {
  z += 719468;
  const int64_t era = (z >= 0 ? z : z - 146096) / 146097;
  const int64_t doe = z - era * 146097;                                        // [0, 146096]
  const int64_t yoe = (doe - doe / 1460 + doe / 36524 - doe / 146096) / 365;  // [0, 399]
  const int64_t doy = doe - (365 * yoe + yoe / 4 - yoe / 100);                 // [0, 365]
  const int64_t mp = (5 * doy + 2) / 153;                                      // [0, 11]
  d = doy - (153 * mp + 2) / 5 + 1;
  m = mp < 10 ? mp + 3 : mp - 9;
  y = yoe + era * 400 + (m <= 2 ? 1 : 0);
}

bool IsLeap(int64_t y) { return (y % 4 == 0 && y % 100 != 0) || y % 400 == 0; }

int DaysInMonth(int64_t y, int64_t m) {
  static constexpr int kDays[] = {31, 28, 31, 30, 31, 30, 31, 31, 30, 31, 30, 31};
  return m == 2 && IsLeap(y) ? 29 : kDays[m - 1];
}

// Reads exactly `n` digits at text[pos...]; false if any is not a digit.
bool ReadDigits(std::string_view text, size_t& pos, int n, int64_t& out) {
  if (pos + n > text.size()) return false;
  out = 0;
  for (int i = 0; i < n; ++i) {
    const char c = text[pos + i];
    if (c < '0' || c > '9') return false;
    out = out * 10 + (c - '0');
  }
  pos += n;
  return true;
}

bool Expect(std::string_view text, size_t& pos, char c) {
  if (pos >= text.size() || text[pos] != c) return false;
  ++pos;
  return true;
}

Status Bad(std::string_view text, const char* why) {
  return Status::Invalid("invalid RFC 3339 time \"" + std::string(text) + "\": " + why);
}

}  // namespace

Result<Time> ParseRfc3339(std::string_view text) {
  size_t pos = 0;
  int64_t year, month, day, hour, minute, second;
  if (!ReadDigits(text, pos, 4, year) || !Expect(text, pos, '-') ||
      !ReadDigits(text, pos, 2, month) || !Expect(text, pos, '-') ||
      !ReadDigits(text, pos, 2, day) || !Expect(text, pos, 'T') ||
      !ReadDigits(text, pos, 2, hour) || !Expect(text, pos, ':') ||
      !ReadDigits(text, pos, 2, minute) || !Expect(text, pos, ':') ||
      !ReadDigits(text, pos, 2, second)) {
    return Bad(text, "expected YYYY-MM-DDTHH:MM:SS");
  }
  if (month < 1 || month > 12) return Bad(text, "month out of range");
  if (day < 1 || day > DaysInMonth(year, month)) return Bad(text, "day out of range");
  if (hour > 23) return Bad(text, "hour out of range");
  if (minute > 59) return Bad(text, "minute out of range");
  if (second > 59) return Bad(text, "second out of range");

  // Fractional seconds: any number of digits, kept to the nanosecond (further digits dropped).
  int64_t nanos = 0;
  if (pos < text.size() && text[pos] == '.') {
    ++pos;
    int digits = 0;
    while (pos < text.size() && text[pos] >= '0' && text[pos] <= '9') {
      if (digits < 9) {
        nanos = nanos * 10 + (text[pos] - '0');
      }
      ++digits;
      ++pos;
    }
    if (digits == 0) return Bad(text, "expected digits after '.'");
    for (int i = digits; i < 9; ++i) nanos *= 10;
  }

  int64_t offset_seconds = 0;
  if (pos < text.size() && text[pos] == 'Z') {
    ++pos;
  } else if (pos < text.size() && (text[pos] == '+' || text[pos] == '-')) {
    const int64_t sign = text[pos] == '-' ? -1 : 1;
    ++pos;
    int64_t oh, om;
    if (!ReadDigits(text, pos, 2, oh) || !Expect(text, pos, ':') || !ReadDigits(text, pos, 2, om)) {
      return Bad(text, "expected a zone offset of the form +hh:mm");
    }
    if (oh > 23 || om > 59) return Bad(text, "zone offset out of range");
    offset_seconds = sign * (oh * 3600 + om * 60);
  } else {
    return Bad(text, "expected 'Z' or a zone offset");
  }
  if (pos != text.size()) return Bad(text, "unexpected text after the time");

  // Local wall time minus the offset is UTC. Years are 4 digits, so this cannot overflow int64
  // seconds; the nanosecond total can, outside 1677..2262.
  const int64_t seconds = DaysFromCivil(year, month, day) * kSecondsPerDay + hour * 3600 +
                          minute * 60 + second - offset_seconds;
  int64_t total;
  if (__builtin_mul_overflow(seconds, kNanosPerSecond, &total) ||
      __builtin_add_overflow(total, nanos, &total)) {
    return Bad(text, "outside the representable range (years 1678 to 2261)");
  }
  return Time{total};
}

std::string FormatRfc3339(Time t) {
  // Floor division so instants before 1970 keep a non-negative sub-second part.
  int64_t seconds = t.unix_nanos / kNanosPerSecond;
  int64_t nanos = t.unix_nanos % kNanosPerSecond;
  if (nanos < 0) {
    nanos += kNanosPerSecond;
    seconds -= 1;
  }
  int64_t days = seconds / kSecondsPerDay;
  int64_t secs_of_day = seconds % kSecondsPerDay;
  if (secs_of_day < 0) {
    secs_of_day += kSecondsPerDay;
    days -= 1;
  }
  int64_t y, m, d;
  CivilFromDays(days, y, m, d);

  char buf[48];
  int n = std::snprintf(buf, sizeof(buf), "%04lld-%02lld-%02lldT%02lld:%02lld:%02lld",
                        static_cast<long long>(y), static_cast<long long>(m),
                        static_cast<long long>(d), static_cast<long long>(secs_of_day / 3600),
                        static_cast<long long>(secs_of_day / 60 % 60),
                        static_cast<long long>(secs_of_day % 60));
  std::string out(buf, n);
  if (nanos != 0) {
    char frac[16];
    std::snprintf(frac, sizeof(frac), ".%09lld", static_cast<long long>(nanos));
    std::string f(frac);
    while (f.back() == '0') f.pop_back();  // like Go's RFC3339Nano
    out += f;
  }
  out += 'Z';
  return out;
}

}  // namespace nodesmith::core
