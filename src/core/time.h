// Time: instants as nanoseconds since the Unix epoch (UTC), with RFC 3339 parse and format.
//
// Controllers never read the wall clock; they get instants from a Clock (core/clock.h). This type
// is the value that passes between them.
#pragma once

#include <chrono>
#include <cstdint>
#include <string>
#include <string_view>

#include "core/duration.h"
#include "core/status.h"

namespace nodesmith::core {

struct Time {
  int64_t unix_nanos = 0;

  static Time FromUnixSeconds(double s) { return Time{static_cast<int64_t>(s * 1e9)}; }
  double UnixSeconds() const { return static_cast<double>(unix_nanos) / 1e9; }
  bool IsZero() const { return unix_nanos == 0; }

  friend Time operator+(Time t, Duration d) { return Time{t.unix_nanos + d.count()}; }
  friend Time operator-(Time t, Duration d) { return Time{t.unix_nanos - d.count()}; }
  friend Duration operator-(Time a, Time b) { return Duration(a.unix_nanos - b.unix_nanos); }
  friend auto operator<=>(const Time&, const Time&) = default;
};

// Parses RFC 3339 ("2025-01-01T00:00:00Z", "2025-01-01T01:02:03.5+02:00").
Result<Time> ParseRfc3339(std::string_view text);
// Formats as RFC 3339 in UTC with a "Z" suffix; fractional seconds only when non-zero.
std::string FormatRfc3339(Time t);

}  // namespace nodesmith::core
