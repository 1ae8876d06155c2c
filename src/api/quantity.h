// Quantity: Kubernetes' resource.Quantity ("500m", "1Gi", "1e3"). Parsing, canonical formatting
// (String), comparison and arithmetic follow k8s.io/apimachinery/pkg/api/resource, except that a
// number without a digit ("e1", ".", "+", "Ki"), which upstream's scanner reads as 0, is refused,
// as the documented grammar and the API server's quantity pattern for Karpenter's fields refuse it.
// The value is held exactly as a signed count of nano-units in 128 bits (|value| up to ~1.7e29),
// which covers every value a resource manifest can sensibly carry; upstream keeps arbitrary
// precision beyond that, where Parse instead returns an error and arithmetic saturates. Like
// upstream, parsing rounds finer-than-nano values away from zero ("0.9n" is 1n) and caps
// binary-suffixed values at 2^63-1 ("9Ei").
// The format (DecimalSI, BinarySI, DecimalExponent) is kept because the canonical string depends
// on it. Like upstream, a parsed string that is already "in canonical form" by upstream's test is
// printed back verbatim ("1." stays "1.", "100.035k" stays "100.035k"); arithmetic results are
// printed canonically. Spellings longer than kMaxKeptText bytes are printed canonically instead.
//
// Quantity is a small, trivially copyable value type; arithmetic never allocates.
#pragma once

#include <compare>
#include <cstddef>
#include <cstdint>
#include <string>
#include <string_view>

#include "core/status.h"

namespace nodesmith::api {

enum class QuantityFormat : uint8_t { kDecimalSI, kBinarySI, kDecimalExponent };

// "DecimalSI", "BinarySI", "DecimalExponent" (upstream's Format names).
const char* QuantityFormatName(QuantityFormat format);

class Quantity {
 public:
  static constexpr size_t kMaxKeptText = 30;

  Quantity() = default;  // zero, DecimalSI

  // Parses a quantity string; errors say why ("quantities must match the regular expression ...").
  // Runs in time linear in the length of `text` whatever its exponent.
  static core::Result<Quantity> Parse(std::string_view text);
  // REQUIRES: text is a valid quantity (for constants in code and tests); aborts otherwise.
  static Quantity MustParse(std::string_view text);

  static Quantity FromMilli(int64_t milli, QuantityFormat format = QuantityFormat::kDecimalSI);
  static Quantity FromInt(int64_t value, QuantityFormat format = QuantityFormat::kDecimalSI);

  // The canonical form upstream prints ("1Gi", "500m", "1e3", "100.035k").
  std::string String() const;
  // The exact value as plain decimal text: "0.5", "102435.84", "-3", "12000000000000000000".
  std::string DecimalString() const;
  // Value rounded to an integer away from zero (upstream's int64 path: 0.1 -> 1, -0.1 -> -1),
  // saturating at INT64_MAX/INT64_MIN.
  int64_t Value() const;
  // Value in milli-units, rounded away from zero, saturating at INT64_MAX/INT64_MIN.
  int64_t MilliValue() const;
  // True when Value()/MilliValue() would not fit in int64 (upstream reports "overflow").
  bool ValueOverflows() const;
  bool MilliValueOverflows() const;
  // The value as a double (for utilisation ratios and LP bounds, never for decisions of fit).
  double AsDouble() const;

  QuantityFormat format() const { return format_; }
  bool IsZero() const { return nanos_ == 0; }
  int Sign() const { return nanos_ < 0 ? -1 : (nanos_ > 0 ? 1 : 0); }

  // Sums and differences take the left operand's format, or the right one's when the left is
  // zero (upstream Add/Sub). Results beyond the 128-bit range saturate.
  Quantity operator+(const Quantity& o) const;
  Quantity operator-(const Quantity& o) const;
  Quantity operator-() const;
  Quantity& operator+=(const Quantity& o);
  Quantity& operator-=(const Quantity& o);
  // Keeps the format; saturates.
  Quantity operator*(int64_t n) const;
  // Compares values only (format ignored), like upstream Cmp.
  int Cmp(const Quantity& o) const;
  bool operator==(const Quantity& o) const { return Cmp(o) == 0; }
  std::strong_ordering operator<=>(const Quantity& o) const { return Cmp(o) <=> 0; }

 private:
  Quantity(__int128 nanos, QuantityFormat format) : nanos_(nanos), format_(format) {}

  __int128 nanos_ = 0;
  QuantityFormat format_ = QuantityFormat::kDecimalSI;
  // When non-zero, String() returns text_[0, text_len_): the parsed spelling upstream would
  // have cached as canonical.
  uint8_t text_len_ = 0;
  char text_[kMaxKeptText] = {};
};

}  // namespace nodesmith::api
