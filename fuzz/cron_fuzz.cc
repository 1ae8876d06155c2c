// CronSchedule::Parse on arbitrary text (disruption budgets' `schedule`), and for what parses,
// the firing search and window test the budget controller runs: they must terminate and never
// overflow, whatever the schedule (including ones that never fire).
#include <chrono>
#include <cstddef>
#include <cstdint>
#include <string_view>

#include "core/cron_schedule.h"
#include "core/time.h"
#include "fuzz_check.h"

extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size) {
  namespace core = nodesmith::core;
  const std::string_view text(reinterpret_cast<const char*>(data), size);
  auto schedule = core::CronSchedule::Parse(text);
  if (!schedule.ok()) return 0;
  auto start = core::ParseRfc3339("2024-02-28T23:59:00Z");
  if (!start.ok()) nodesmith::fuzz::Fail("fixed start time", start.status().message());
  if (auto next = schedule->Next(*start); next && !(*next > *start)) {
    nodesmith::fuzz::Fail("Next is not after its argument", text);
  }
  (void)schedule->ActiveAt(*start, std::chrono::hours(1));
  return 0;
}
