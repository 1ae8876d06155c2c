// CronSchedule: a standard five-field cron expression, evaluated in UTC, as NodePool disruption
// budgets use it (Karpenter parses `schedule` with robfig/cron's standard parser, in UTC).
//
// Syntax: "minute hour day-of-month month day-of-week", fields separated by whitespace.
// Each field is a comma-separated list of `*` (or `?`), `N`, `A-B`, any of which may carry a
// step `/S`; `N/S` means `N-max/S`. Months take JAN..DEC and weekdays SUN..SAT, case-insensitive,
// also inside ranges. Weekdays are 0..6 with 0 = Sunday (7 is rejected, as robfig/cron does).
// Macros: @yearly (= @annually), @monthly, @weekly, @daily (= @midnight), @hourly.
//
// Day matching follows cron: when both day-of-month and day-of-week are restricted (neither
// is a bare `*`/`?`), a day matches if EITHER does; otherwise both must match. A starred field
// with a step (`*/2`) counts as restricted.
//
// A CronSchedule is an immutable value: cheap to copy, safe to share between threads.
#pragma once

#include <cstdint>
#include <optional>
#include <string>
#include <string_view>

#include "core/status.h"
#include "core/time.h"

namespace nodesmith::core {

class CronSchedule {
 public:
  // Parses `spec`. InvalidArgument naming the offending field ("day-of-week field \"7\": 7 is
  // above the maximum 6") or the shape ("expected exactly 5 fields, found 6").
  static Result<CronSchedule> Parse(std::string_view spec);

  // The first firing strictly after `after` (firings fall on whole minutes). nullopt when the
  // schedule never fires, e.g. "0 0 30 2 *" (the search stops after eight years, which covers
  // the longest gap between two February 29ths).
  std::optional<Time> Next(Time after) const;

  // Whether a window of `window` opened by a firing covers `t`: some firing f with
  // f <= t < f + window. A schedule that never fires is never active.
  bool ActiveAt(Time t, Duration window) const;

  // The text it was parsed from.
  const std::string& spec() const { return spec_; }

 private:
  CronSchedule() = default;

  // Bit i set when value i is allowed.
  uint64_t minutes_ = 0;  // 0..59
  uint32_t hours_ = 0;    // 0..23
  uint32_t days_ = 0;     // 1..31
  uint16_t months_ = 0;   // 1..12
  uint8_t weekdays_ = 0;  // 0..6, 0 = Sunday
  // Whether day-of-month / day-of-week was an unrestricted `*` or `?`.
  bool any_day_ = false;
  bool any_weekday_ = false;
  std::string spec_;
};

}  // namespace nodesmith::core
