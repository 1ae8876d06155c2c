// Selector::Parse (labels.Parse, the string syntax of `-l` and of selectors in text form) on
// arbitrary text. A parsed selector prints as upstream's String(), which must parse back to a
// selector that prints the same.
#include <cstddef>
#include <cstdint>
#include <string>
#include <string_view>

#include "fuzz_check.h"
#include "scheduling/label_selector.h"

extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size) {
  using nodesmith::scheduling::Selector;
  const std::string_view text(reinterpret_cast<const char*>(data), size);
  auto selector = Selector::Parse(text);
  if (!selector.ok()) return 0;
  const std::string printed = selector->String();
  auto again = Selector::Parse(printed);
  if (!again.ok()) nodesmith::fuzz::Fail("printed selector does not parse", printed + ": " + again.status().message());
  if (again->String() != printed) nodesmith::fuzz::Fail("printed selector is not stable", printed);
  return 0;
}
