// Quantity::Parse on arbitrary text (the resource amounts of every manifest). A parsed quantity
// must print a canonical form that parses back to the same value and prints the same again.
#include <cstddef>
#include <cstdint>
#include <string>
#include <string_view>

#include "api/quantity.h"
#include "fuzz_check.h"

extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size) {
  using nodesmith::api::Quantity;
  const std::string_view text(reinterpret_cast<const char*>(data), size);
  auto q = Quantity::Parse(text);
  if (!q.ok()) return 0;
  const std::string canonical = q->String();
  auto again = Quantity::Parse(canonical);
  if (!again.ok()) nodesmith::fuzz::Fail("canonical quantity does not parse", canonical);
  if (*again != *q) nodesmith::fuzz::Fail("canonical quantity changes value", canonical);
  if (again->String() != canonical) nodesmith::fuzz::Fail("canonical form is not stable", canonical);
  // The accessors saturate rather than overflow; UBSan checks the arithmetic.
  (void)q->Value();
  (void)q->MilliValue();
  (void)q->DecimalString();
  (void)q->AsDouble();
  return 0;
}
