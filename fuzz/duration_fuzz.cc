// ParseDuration / ParseNillableDuration (Go's time.ParseDuration, plus "Never") on arbitrary text:
// the durations of NodePools, EC2NodeClasses and Scenarios. A parsed duration must format as Go
// does and parse back to the same value.
#include <cstddef>
#include <cstdint>
#include <string>
#include <string_view>

#include "core/duration.h"
#include "fuzz_check.h"

extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size) {
  namespace core = nodesmith::core;
  const std::string_view text(reinterpret_cast<const char*>(data), size);
  if (auto d = core::ParseDuration(text); d.ok()) {
    const std::string formatted = core::FormatDuration(*d);
    auto again = core::ParseDuration(formatted);
    if (!again.ok()) nodesmith::fuzz::Fail("formatted duration does not parse", formatted);
    if (*again != *d) nodesmith::fuzz::Fail("formatted duration changes value", formatted);
  }
  if (auto n = core::ParseNillableDuration(text); n.ok()) {
    const std::string formatted = core::FormatNillableDuration(*n);
    auto again = core::ParseNillableDuration(formatted);
    if (!again.ok()) nodesmith::fuzz::Fail("formatted nillable duration does not parse", formatted);
    if (again->value != n->value) nodesmith::fuzz::Fail("formatted nillable duration changes value", formatted);
  }
  return 0;
}
