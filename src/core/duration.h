// Duration: Go's time.Duration text form ("1h30m", "720h", "30s", "1.5h", "300ms") as Karpenter's
// API uses it, plus the literal "Never" where Karpenter allows it.
//
// Durations are held as integral nanoseconds (std::chrono::nanoseconds). Parsing follows Go's
// time.ParseDuration: units ns, us, µs (U+00B5), μs (U+03BC), ms, s, m, h; a sign; fractions;
// "0" alone; errors for "", a missing or unknown unit, and values beyond int64 nanoseconds.
#pragma once

#include <chrono>
#include <optional>
#include <string>
#include <string_view>

#include "core/status.h"

namespace nodesmith::core {

using Duration = std::chrono::nanoseconds;

// Parses Go duration syntax. Errors name the offending text.
Result<Duration> ParseDuration(std::string_view text);

// Formats like Go's Duration.String(): "1h30m0s", "30s", "0s", "1.5s", "300ms".
std::string FormatDuration(Duration d);

// A duration that may be "Never" (std::nullopt).
struct NillableDuration {
  std::optional<Duration> value;  // nullopt means Never
  bool never() const { return !value.has_value(); }
};
Result<NillableDuration> ParseNillableDuration(std::string_view text);
std::string FormatNillableDuration(const NillableDuration& d);

}  // namespace nodesmith::core
