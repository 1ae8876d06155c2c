// Quantity: Kubernetes' resource.Quantity ("500m", "1Gi", "1e3"), exactly as upstream.
//
// Parsing, canonical formatting (String), comparison and arithmetic follow
// k8s.io/apimachinery/pkg/api/resource. The value is held exactly as a signed count of nano-units
// in 128 bits, which covers every value upstream can represent (up to ~9.2e18 plus the
// exponent forms); values beyond that saturate as upstream does. The format (DecimalSI,
// BinarySI, DecimalExponent) is kept because the canonical string depends on it.
// Quantity is a small value type; copy it freely.
#pragma once

#include <compare>
#include <cstdint>
#include <string>
#include <string_view>

#include "core/status.h"

namespace nodesmith::api {

enum class QuantityFormat { kDecimalSI, kBinarySI, kDecimalExponent };

class Quantity {
 public:
  Quantity() = default;  // zero, DecimalSI

  // Parses a quantity string; errors say why ("quantities must match the regular expression ...").
  static core::Result<Quantity> Parse(std::string_view text);
  // REQUIRES: text is a valid quantity (for constants in code and tests).
  static Quantity MustParse(std::string_view text);

  static Quantity FromMilli(int64_t milli, QuantityFormat format = QuantityFormat::kDecimalSI);
  static Quantity FromInt(int64_t value, QuantityFormat format = QuantityFormat::kDecimalSI);

  // The canonical form upstream prints ("1Gi", "500m", "1e3", "100.035k").
  std::string String() const;
  // Value rounded up to an integer, saturating at INT64_MAX/INT64_MIN.
  int64_t Value() const;
  // Value in milli-units rounded up, saturating at INT64_MAX/INT64_MIN.
  int64_t MilliValue() const;
  // True when Value()/MilliValue() would not fit in int64 (upstream reports "overflow").
  bool ValueOverflows() const;
  bool MilliValueOverflows() const;
  // The value as a double (for utilisation ratios and LP bounds, never for decisions of fit).
  double AsDouble() const;

  QuantityFormat format() const { return format_; }
  bool IsZero() const { return nanos_ == 0; }
  int Sign() const { return nanos_ < 0 ? -1 : (nanos_ > 0 ? 1 : 0); }

  Quantity operator+(const Quantity& o) const;
  Quantity operator-(const Quantity& o) const;
  Quantity& operator+=(const Quantity& o) { return *this = *this + o; }
  Quantity& operator-=(const Quantity& o) { return *this = *this - o; }
  Quantity operator*(int64_t n) const;
  // Compares values only (format ignored), like upstream Cmp.
  int Cmp(const Quantity& o) const;
  bool operator==(const Quantity& o) const { return Cmp(o) == 0; }
  std::strong_ordering operator<=>(const Quantity& o) const { return Cmp(o) <=> 0; }

 private:
  __int128 nanos_ = 0;
  QuantityFormat format_ = QuantityFormat::kDecimalSI;
};

}  // namespace nodesmith::api
