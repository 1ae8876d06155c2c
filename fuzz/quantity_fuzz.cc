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
  // The canonical form depends on the format, as upstream's does. A BinarySI amount that is no
  // whole number of Ki prints without a suffix ("1062.5Ki" -> "1088000"), which reads back as
  // DecimalSI and prints as such ("1088k"): the form is stable once the format it is read back
  // with is the one it was printed in.
  if (again->format() == q->format()) {
    if (again->String() != canonical) nodesmith::fuzz::Fail("canonical form is not stable", canonical);
  } else {
    const std::string second = again->String();
    auto third = Quantity::Parse(second);
    if (!third.ok() || *third != *q || third->format() != again->format() || third->String() != second) {
      nodesmith::fuzz::Fail("canonical form is not stable", canonical + " -> " + second);
    }
  }
  // The accessors saturate rather than overflow; UBSan checks the arithmetic.
  (void)q->Value();
  (void)q->MilliValue();
  (void)q->DecimalString();
  (void)q->AsDouble();
  return 0;
}
