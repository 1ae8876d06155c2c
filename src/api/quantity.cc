#include "api/quantity.h"

#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <limits>
#include <type_traits>

namespace nodesmith::api {
namespace {

using i128 = __int128;
using u128 = unsigned __int128;

static_assert(std::is_trivially_copyable_v<Quantity>);

constexpr i128 kMaxNanos = static_cast<i128>(~u128{0} >> 1);  // 2^127 - 1; |nanos_| <= this
constexpr i128 kNanosPerUnit = 1000000000;
// Upstream caps a parsed binarySI quantity at 2^63-1.
constexpr i128 kBinaryCapNanos = static_cast<i128>(std::numeric_limits<int64_t>::max()) * kNanosPerUnit;

constexpr const char* kSplitRegex = "^([+-]?[0-9.]+)([eEinumkKMGTP]*[-+]?[0-9]*)$";

bool IsDigit(char c) { return c >= '0' && c <= '9'; }

// The grammar's <signedNumber> needs a digit: "e1", ".", "+" and "Ki" are not quantities.
// Upstream's scanner reads such a missing number as 0, but the API server refuses them in every
// Karpenter field through the CRDs' quantity pattern, and no one writes them meaning zero.
bool NumberHasDigit(std::string_view text) {
  size_t i = !text.empty() && (text[0] == '+' || text[0] == '-') ? 1 : 0;
  for (; i < text.size() && (IsDigit(text[i]) || text[i] == '.'); ++i) {
    if (IsDigit(text[i])) return true;
  }
  return false;
}

// The input for an error message, shortened when huge.
std::string Excerpt(std::string_view text) {
  constexpr size_t kMax = 64;
  // Built by appending: g++ 12 -O3 raises a false -Wrestrict on `"literal" + std::string&&`.
  std::string out = "\"";
  if (text.size() <= kMax) {
    out.append(text);
    out += '"';
    return out;
  }
  out.append(text.substr(0, kMax));
  out += "...\" (";
  out += std::to_string(text.size());
  out += " bytes)";
  return out;
}

core::Status FormatWrong(std::string_view text) {
  return core::Status::Invalid("quantity " + Excerpt(text) +
                               ": quantities must match the regular expression '" + kSplitRegex +
                               "'");
}
core::Status NumericWrong(std::string_view text) {
  return core::Status::Invalid("quantity " + Excerpt(text) +
                               ": unable to parse numeric part of quantity");
}
core::Status SuffixWrong(std::string_view text) {
  return core::Status::Invalid("quantity " + Excerpt(text) + ": unable to parse quantity's suffix");
}
core::Status TooLarge(std::string_view text) {
  return core::Status::Invalid("quantity " + Excerpt(text) +
                               ": magnitude too large (the limit is about 1.7e29)");
}

// The pieces of a quantity string, as upstream's parseQuantityString splits them.
struct Scanned {
  bool positive = true;
  std::string_view value;  // sign and number as written (or "0")
  std::string_view num;    // integer digits without leading zeros; "0" when there are none
  std::string_view denom;  // fraction digits as written
  std::string_view suffix;
};

// Splits `s` like upstream's scanner. False means ErrFormatWrong.
bool Scan(std::string_view s, Scanned& out) {
  static constexpr std::string_view kZero = "0";
  const size_t end = s.size();
  size_t pos = 0;
  if (pos < end) {
    if (s[0] == '-') {
      out.positive = false;
      ++pos;
    } else if (s[0] == '+') {
      ++pos;
    }
  }
  // Leading zeros; a string of nothing but zeros is zero.
  while (pos < end && s[pos] == '0') ++pos;
  if (pos >= end) {
    out.num = kZero;
    out.value = kZero;
    return true;
  }
  // Integer part.
  size_t i = pos;
  while (i < end && IsDigit(s[i])) ++i;
  if (i >= end) {
    out.num = s.substr(pos);
    out.value = s;
    return true;
  }
  out.num = s.substr(pos, i - pos);
  pos = i;
  if (out.num.empty()) out.num = kZero;
  // Fraction ("1." and "1.G" are accepted, as upstream does).
  if (pos < end && s[pos] == '.') {
    ++pos;
    i = pos;
    while (i < end && IsDigit(s[i])) ++i;
    if (i >= end) {
      out.denom = s.substr(pos);
      out.value = s;
      return true;
    }
    out.denom = s.substr(pos, i - pos);
    pos = i;
  }
  out.value = s.substr(0, pos);
  // Suffix: letters from the suffix alphabet, then an optional sign and digits.
  const size_t suffix_start = pos;
  for (i = pos;; ++i) {
    if (i >= end) {
      out.suffix = s.substr(suffix_start);
      return true;
    }
    if (std::string_view("eEinumkKMGTP").find(s[i]) == std::string_view::npos) {
      pos = i;
      break;
    }
  }
  if (s[pos] == '-' || s[pos] == '+') ++pos;
  for (i = pos; i < end; ++i) {
    if (!IsDigit(s[i])) return false;  // a character that belongs nowhere
  }
  out.suffix = s.substr(suffix_start);
  return true;
}

struct Suffix {
  int base = 10;
  int64_t exponent = 0;
  QuantityFormat format = QuantityFormat::kDecimalSI;
};

// Go's strconv.ParseInt(s, 10, 64): optional sign, at least one digit, no overflow.
bool ParseInt64(std::string_view s, int64_t& out) {
  bool negative = false;
  if (!s.empty() && (s[0] == '+' || s[0] == '-')) {
    negative = s[0] == '-';
    s.remove_prefix(1);
  }
  if (s.empty()) return false;
  uint64_t magnitude = 0;
  const uint64_t limit = negative ? uint64_t{1} << 63 : (uint64_t{1} << 63) - 1;
  for (char c : s) {
    if (!IsDigit(c)) return false;
    const uint64_t d = static_cast<uint64_t>(c - '0');
    if (magnitude > (limit - d) / 10) return false;
    magnitude = magnitude * 10 + d;
  }
  out = negative ? static_cast<int64_t>(0 - magnitude) : static_cast<int64_t>(magnitude);
  return true;
}

bool InterpretSuffix(std::string_view s, Suffix& out) {
  struct Entry {
    std::string_view text;
    int base;
    int exponent;
  };
  static constexpr Entry kTable[] = {
      {"", 10, 0},   {"n", 10, -9}, {"u", 10, -6}, {"m", 10, -3}, {"k", 10, 3},
      {"M", 10, 6},  {"G", 10, 9},  {"T", 10, 12}, {"P", 10, 15}, {"E", 10, 18},
      {"Ki", 2, 10}, {"Mi", 2, 20}, {"Gi", 2, 30}, {"Ti", 2, 40}, {"Pi", 2, 50}, {"Ei", 2, 60},
  };
  for (const Entry& e : kTable) {
    if (s == e.text) {
      out.base = e.base;
      out.exponent = e.exponent;
      out.format = e.base == 2 ? QuantityFormat::kBinarySI : QuantityFormat::kDecimalSI;
      return true;
    }
  }
  if (s.size() > 1 && (s[0] == 'e' || s[0] == 'E')) {
    int64_t exponent;
    if (!ParseInt64(s.substr(1), exponent)) return false;
    out.base = 10;
    // Upstream keeps the low 32 bits (int32(parsed)): 1e4294967296 is 1e0 to the API server.
    out.exponent = static_cast<int32_t>(static_cast<uint32_t>(exponent));
    out.format = QuantityFormat::kDecimalExponent;
    return true;
  }
  return false;
}

// The magnitude in nano-units of the digits num++denom (point after num) times
// 10^exp10 * 2^bin, rounded away from zero. False when it exceeds kMaxNanos. Linear in the
// number of digits, and independent of the size of exp10.
bool ScaledNanos(std::string_view num, std::string_view denom, int64_t exp10, int bin,
                 u128& out) {
  const int64_t len = static_cast<int64_t>(num.size() + denom.size());
  auto digit = [&](int64_t i) -> unsigned {
    return static_cast<unsigned>(i < static_cast<int64_t>(num.size()) ? num[i] - '0'
                                                                      : denom[i - num.size()] - '0');
  };
  // Beyond +-2^50 every exponent behaves alike: all digits end up whole or all fractional.
  constexpr int64_t kClamp = int64_t{1} << 50;
  exp10 = exp10 > kClamp ? kClamp : (exp10 < -kClamp ? -kClamp : exp10);
  const int64_t point = static_cast<int64_t>(num.size()) + exp10 + 9;  // digits before the point
  const u128 max = static_cast<u128>(kMaxNanos);

  // Whole part, digits[0, point) padded with zeros past the end.
  u128 whole = 0;
  bool overflow = false;
  const int64_t whole_digits = point < 0 ? 0 : (point > len ? len : point);
  for (int64_t i = 0; i < whole_digits && !overflow; ++i) {
    overflow = __builtin_mul_overflow(whole, u128{10}, &whole) ||
               __builtin_add_overflow(whole, u128{digit(i)}, &whole) || whole > max;
  }
  if (whole != 0) {
    for (int64_t i = len; i < point && !overflow; ++i) {
      overflow = __builtin_mul_overflow(whole, u128{10}, &whole) || whole > max;
    }
  }
  if (!overflow && bin > 0) {
    overflow = whole > (max >> bin);
    whole <<= bin;
  }
  if (overflow) return false;

  // Fraction digits[max(point,0), len), after -point implicit zeros when point < 0. Multiply
  // by 2^bin from the least significant digit: the final carry is the whole part of
  // fraction * 2^bin, and any non-zero digit left behind means the value needs rounding up.
  const uint64_t multiplier = uint64_t{1} << bin;  // <= 2^60, so digit*m + carry < 2^64
  uint64_t carry = 0;
  bool inexact = false;
  for (int64_t i = len - 1; i >= (point > 0 ? point : 0); --i) {
    const uint64_t t = digit(i) * multiplier + carry;
    inexact = inexact || t % 10 != 0;
    carry = t / 10;
  }
  for (int64_t zeros = point < 0 ? -point : 0; zeros > 0 && carry != 0; --zeros) {
    inexact = inexact || carry % 10 != 0;
    carry /= 10;
  }
  const u128 total = whole + carry + (inexact ? 1 : 0);
  if (total > max) return false;
  out = total;
  return true;
}

// Writes the decimal digits of v so that they end just before `end`; returns the first one.
char* WriteDigits(u128 v, char* end) {
  char* p = end;
  do {
    *--p = static_cast<char>('0' + static_cast<int>(v % 10));
    v /= 10;
  } while (v != 0);
  return p;
}

u128 Magnitude(i128 v) { return v < 0 ? static_cast<u128>(-v) : static_cast<u128>(v); }

i128 Saturate(i128 v) { return v > kMaxNanos ? kMaxNanos : (v < -kMaxNanos ? -kMaxNanos : v); }

// a/d rounded away from zero, saturated to int64; `overflow` says whether it saturated.
int64_t DivideAwayFromZero(i128 a, i128 d, bool& overflow) {
  const bool negative = a < 0;
  const u128 m = Magnitude(a);
  u128 q = m / static_cast<u128>(d);
  if (m % static_cast<u128>(d) != 0) ++q;
  const u128 limit = negative ? u128{1} << 63 : (u128{1} << 63) - 1;
  overflow = q > limit;
  if (overflow) q = limit;
  return negative ? static_cast<int64_t>(0 - static_cast<uint64_t>(q)) : static_cast<int64_t>(q);
}

}  // namespace

const char* QuantityFormatName(QuantityFormat format) {
  switch (format) {
    case QuantityFormat::kDecimalSI:
      return "DecimalSI";
    case QuantityFormat::kBinarySI:
      return "BinarySI";
    case QuantityFormat::kDecimalExponent:
      return "DecimalExponent";
  }
  return "DecimalSI";
}

core::Result<Quantity> Quantity::Parse(std::string_view text) {
  if (text.empty()) return FormatWrong(text);
  Scanned s;
  if (!Scan(text, s)) return FormatWrong(text);
  if (!NumberHasDigit(text)) return NumericWrong(text);
  Suffix suffix;
  if (!InterpretSuffix(s.suffix, suffix)) return SuffixWrong(text);
  QuantityFormat format = suffix.format;

  // Upstream has an int64 fast path; a string it parses there that is already in canonical
  // form (by the test below) is kept and printed back verbatim.
  bool keep_text = false;
  if (format == QuantityFormat::kBinarySI) {
    const int64_t precision = 15 - static_cast<int64_t>(s.num.size()) - suffix.exponent * 3 / 10 - 1;
    if (s.denom.empty() && precision >= 0) {
      int64_t value = 0;
      for (char c : s.num) value = value * 10 + (c - '0');  // at most 14 digits
      if (value <= (std::numeric_limits<int64_t>::max() >> suffix.exponent)) {
        keep_text = suffix.exponent % 10 == 0 && (value & 0x07) != 0;
      }
    }
  } else {
    const int64_t precision = 18 - static_cast<int64_t>(s.num.size() + s.denom.size());
    const int64_t scale = suffix.exponent - static_cast<int64_t>(s.denom.size());
    if (precision >= 0 && scale >= -9) {
      // shifted = num + denom: it must not end in "000" nor start with '0'.
      char last3[3] = {0, 0, 0};
      size_t filled = 0;
      for (size_t i = s.denom.size(); i > 0 && filled < 3; --i) last3[filled++] = s.denom[i - 1];
      for (size_t i = s.num.size(); i > 0 && filled < 3; --i) last3[filled++] = s.num[i - 1];
      const bool ends_000 = filled == 3 && last3[0] == '0' && last3[1] == '0' && last3[2] == '0';
      keep_text = scale % 3 == 0 && !ends_000 && s.num[0] != '0';
    }
  }
  u128 magnitude = 0;
  const bool fits = ScaledNanos(s.num, s.denom, suffix.base == 10 ? suffix.exponent : 0,
                                suffix.base == 2 ? static_cast<int>(suffix.exponent) : 0, magnitude);
  if (format == QuantityFormat::kBinarySI) {
    if (!fits || magnitude > static_cast<u128>(kBinaryCapNanos)) {
      magnitude = static_cast<u128>(kBinaryCapNanos);
    }
    // A binary quantity strictly between 0 and 1 becomes decimal, so it never rounds.
    if (magnitude != 0 && magnitude < static_cast<u128>(kNanosPerUnit)) {
      format = QuantityFormat::kDecimalSI;
    }
  } else if (!fits) {
    return TooLarge(text);
  }

  Quantity q(s.positive ? static_cast<i128>(magnitude) : -static_cast<i128>(magnitude), format);
  if (keep_text && text.size() <= kMaxKeptText) {
    std::memcpy(q.text_, text.data(), text.size());
    q.text_len_ = static_cast<uint8_t>(text.size());
  }
  return q;
}

Quantity Quantity::MustParse(std::string_view text) {
  core::Result<Quantity> q = Parse(text);
  if (!q.ok()) {
    std::fprintf(stderr, "Quantity::MustParse: %s\n", q.status().message().c_str());
    std::abort();
  }
  return *q;
}

Quantity Quantity::FromMilli(int64_t milli, QuantityFormat format) {
  return Quantity(static_cast<i128>(milli) * 1000000, format);
}

Quantity Quantity::FromInt(int64_t value, QuantityFormat format) {
  return Quantity(static_cast<i128>(value) * kNanosPerUnit, format);
}

// Upstream's CanonicalizeBytes: the largest suffix (a multiple of 3 for decimal, of 1024 for
// binary) that leaves an integer mantissa. A binary quantity below 1024 in magnitude, or with
// a fractional part, prints as decimal so that nothing is rounded.
std::string Quantity::String() const {
  if (text_len_ > 0) return std::string(text_, text_len_);
  if (nanos_ == 0) return "0";
  const bool negative = nanos_ < 0;
  const u128 magnitude = Magnitude(nanos_);
  QuantityFormat format = format_;
  if (format == QuantityFormat::kBinarySI &&
      (magnitude < static_cast<u128>(1024 * kNanosPerUnit) ||
       magnitude % static_cast<u128>(kNanosPerUnit) != 0)) {
    format = QuantityFormat::kDecimalSI;
  }

  char buf[64];
  char* const end = buf + sizeof(buf);
  std::string suffix;
  u128 mantissa;
  if (format == QuantityFormat::kBinarySI) {
    static constexpr const char* kBinary[] = {"", "Ki", "Mi", "Gi", "Ti", "Pi", "Ei"};
    mantissa = magnitude / static_cast<u128>(kNanosPerUnit);
    int k = 0;
    // Upstream has no suffix past Ei; stopping there keeps the value ("1024Ei").
    while (k < 6 && mantissa % 1024 == 0) {
      mantissa /= 1024;
      ++k;
    }
    suffix = kBinary[k];
  } else {
    mantissa = magnitude;
    int exponent = -9;
    while (mantissa % 10 == 0) {
      mantissa /= 10;
      ++exponent;
    }
    // Round the exponent down to a multiple of 3 (never below -9, as exponent >= -9).
    const int excess = ((exponent % 3) + 3) % 3;
    for (int i = 0; i < excess; ++i) mantissa *= 10;
    exponent -= excess;
    static constexpr const char* kDecimal[] = {"n", "u", "m", "", "k", "M", "G", "T", "P", "E"};
    if (format == QuantityFormat::kDecimalSI && exponent <= 18) {
      suffix = kDecimal[(exponent + 9) / 3];
    } else if (exponent != 0) {
      // DecimalExponent, or DecimalSI beyond "E" where upstream falls back to exponent form.
      suffix = "e";
      suffix += std::to_string(exponent);
    }
  }
  char* p = WriteDigits(mantissa, end);
  if (negative) *--p = '-';
  std::string out(p, end);
  out += suffix;
  return out;
}

std::string Quantity::DecimalString() const {
  const u128 magnitude = Magnitude(nanos_);
  char buf[64];
  char* const end = buf + sizeof(buf);
  char* p = end;
  u128 frac = magnitude % static_cast<u128>(kNanosPerUnit);
  if (frac != 0) {
    int width = 9;
    while (frac % 10 == 0) {
      frac /= 10;
      --width;
    }
    for (int i = 0; i < width; ++i) {
      *--p = static_cast<char>('0' + static_cast<int>(frac % 10));
      frac /= 10;
    }
    *--p = '.';
  }
  p = WriteDigits(magnitude / static_cast<u128>(kNanosPerUnit), p);
  if (nanos_ < 0) *--p = '-';
  return std::string(p, end);
}

int64_t Quantity::Value() const {
  bool overflow;
  return DivideAwayFromZero(nanos_, kNanosPerUnit, overflow);
}

int64_t Quantity::MilliValue() const {
  bool overflow;
  return DivideAwayFromZero(nanos_, 1000000, overflow);
}

bool Quantity::ValueOverflows() const {
  bool overflow;
  (void)DivideAwayFromZero(nanos_, kNanosPerUnit, overflow);
  return overflow;
}

bool Quantity::MilliValueOverflows() const {
  bool overflow;
  (void)DivideAwayFromZero(nanos_, 1000000, overflow);
  return overflow;
}

double Quantity::AsDouble() const { return static_cast<double>(nanos_) / 1e9; }

Quantity& Quantity::operator+=(const Quantity& o) {
  if (nanos_ == 0) format_ = o.format_;
  i128 sum;
  if (__builtin_add_overflow(nanos_, o.nanos_, &sum)) sum = nanos_ > 0 ? kMaxNanos : -kMaxNanos;
  nanos_ = Saturate(sum);
  text_len_ = 0;
  return *this;
}

Quantity& Quantity::operator-=(const Quantity& o) {
  if (nanos_ == 0) format_ = o.format_;
  // Both operands lie within +-kMaxNanos, so -o cannot overflow.
  i128 diff;
  if (__builtin_add_overflow(nanos_, -o.nanos_, &diff)) diff = nanos_ > 0 ? kMaxNanos : -kMaxNanos;
  nanos_ = Saturate(diff);
  text_len_ = 0;
  return *this;
}

Quantity Quantity::operator+(const Quantity& o) const {
  Quantity out(nanos_, format_);
  out += o;
  return out;
}

Quantity Quantity::operator-(const Quantity& o) const {
  Quantity out(nanos_, format_);
  out -= o;
  return out;
}

Quantity Quantity::operator-() const { return Quantity(-nanos_, format_); }

Quantity Quantity::operator*(int64_t n) const {
  i128 product;
  if (__builtin_mul_overflow(nanos_, static_cast<i128>(n), &product)) {
    product = (nanos_ < 0) != (n < 0) ? -kMaxNanos : kMaxNanos;
  }
  return Quantity(Saturate(product), format_);
}

int Quantity::Cmp(const Quantity& o) const {
  return nanos_ < o.nanos_ ? -1 : (nanos_ > o.nanos_ ? 1 : 0);
}

}  // namespace nodesmith::api
