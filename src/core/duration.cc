#include "core/duration.h"

#include <cstdint>
#include <string>

namespace nodesmith::core {
namespace {

constexpr uint64_t kMaxMagnitude = uint64_t{1} << 63;  // |INT64_MIN|

std::string Quote(std::string_view s) {
  std::string out = "\"";
  out.append(s);
  out += '"';
  return out;
}

Status InvalidDuration(std::string_view orig) {
  return Status::Invalid("time: invalid duration " + Quote(orig));
}

bool IsDigit(char c) { return c >= '0' && c <= '9'; }

// The nanoseconds in one of Go's duration units, or 0 when `unit` is not one.
uint64_t UnitNanos(std::string_view unit) {
  if (unit == "ns") return 1;
  if (unit == "us" || unit == "\xC2\xB5s" /* U+00B5 micro sign */ ||
      unit == "\xCE\xBCs" /* U+03BC greek mu */) {
    return 1000;
  }
  if (unit == "ms") return 1000 * 1000;
  if (unit == "s") return 1000 * 1000 * 1000;
  if (unit == "m") return uint64_t{60} * 1000 * 1000 * 1000;
  if (unit == "h") return uint64_t{3600} * 1000 * 1000 * 1000;
  return 0;
}

// Writes the fraction v / 10^prec (".125") before position w of buf, dropping trailing zeros
// and the point itself when the fraction is zero. Returns v / 10^prec.
uint64_t FormatFraction(char* buf, int& w, uint64_t v, int prec) {
  bool print = false;
  for (int i = 0; i < prec; ++i) {
    const uint64_t digit = v % 10;
    print = print || digit != 0;
    if (print) buf[--w] = static_cast<char>('0' + digit);
    v /= 10;
  }
  if (print) buf[--w] = '.';
  return v;
}

void FormatInt(char* buf, int& w, uint64_t v) {
  if (v == 0) {
    buf[--w] = '0';
    return;
  }
  while (v > 0) {
    buf[--w] = static_cast<char>('0' + v % 10);
    v /= 10;
  }
}

}  // namespace

// Mirrors Go's time.ParseDuration, including its overflow rules: the integer part of each
// component must fit without overflow, and fractions are scaled through a double (Go does the
// same, which keeps "1.5h" and friends nanosecond-exact).
Result<Duration> ParseDuration(std::string_view text) {
  const std::string_view orig = text;
  std::string_view s = text;
  uint64_t total = 0;
  bool negative = false;

  if (!s.empty() && (s[0] == '-' || s[0] == '+')) {
    negative = s[0] == '-';
    s.remove_prefix(1);
  }
  if (s == "0") return Duration(0);
  if (s.empty()) return InvalidDuration(orig);

  while (!s.empty()) {
    if (!(s[0] == '.' || IsDigit(s[0]))) return InvalidDuration(orig);

    // The integer part: [0-9]*
    uint64_t whole = 0;
    size_t i = 0;
    for (; i < s.size() && IsDigit(s[i]); ++i) {
      if (whole > kMaxMagnitude / 10) return InvalidDuration(orig);
      whole = whole * 10 + static_cast<uint64_t>(s[i] - '0');
      if (whole > kMaxMagnitude) return InvalidDuration(orig);
    }
    const bool pre = i > 0;
    s.remove_prefix(i);

    // The fraction: (\.[0-9]*)? ; extra digits beyond what fits only lose precision.
    uint64_t frac = 0;
    double scale = 1;
    bool post = false;
    if (!s.empty() && s[0] == '.') {
      s.remove_prefix(1);
      bool overflow = false;
      size_t j = 0;
      for (; j < s.size() && IsDigit(s[j]); ++j) {
        if (overflow) continue;
        if (frac > (kMaxMagnitude - 1) / 10) {
          overflow = true;
          continue;
        }
        const uint64_t y = frac * 10 + static_cast<uint64_t>(s[j] - '0');
        if (y > kMaxMagnitude) {
          overflow = true;
          continue;
        }
        frac = y;
        scale *= 10;
      }
      post = j > 0;
      s.remove_prefix(j);
    }
    if (!pre && !post) return InvalidDuration(orig);  // e.g. ".s"

    // The unit: everything up to the next digit or point.
    size_t u = 0;
    while (u < s.size() && s[u] != '.' && !IsDigit(s[u])) ++u;
    if (u == 0) return Status::Invalid("time: missing unit in duration " + Quote(orig));
    const std::string_view unit_text = s.substr(0, u);
    s.remove_prefix(u);
    const uint64_t unit = UnitNanos(unit_text);
    if (unit == 0) {
      return Status::Invalid("time: unknown unit " + Quote(unit_text) + " in duration " +
                             Quote(orig));
    }

    if (whole > kMaxMagnitude / unit) return InvalidDuration(orig);
    uint64_t v = whole * unit;
    if (frac > 0) {
      v += static_cast<uint64_t>(static_cast<double>(frac) *
                                 (static_cast<double>(unit) / scale));
      if (v > kMaxMagnitude) return InvalidDuration(orig);
    }
    total += v;
    if (total > kMaxMagnitude) return InvalidDuration(orig);
  }

  if (negative) {
    // total <= 2^63, so -total is representable (2^63 becomes INT64_MIN).
    return Duration(static_cast<int64_t>(0 - total));
  }
  if (total > kMaxMagnitude - 1) return InvalidDuration(orig);
  return Duration(static_cast<int64_t>(total));
}

// Mirrors Go's Duration.String: below one second the largest of ns/µs/ms that keeps the value
// at least 1 is used ("1.5ms"); otherwise hours, minutes and seconds ("1h30m0s").
std::string FormatDuration(Duration d) {
  char buf[32];
  int w = sizeof(buf);
  const int64_t n = d.count();
  const bool negative = n < 0;
  uint64_t u = negative ? 0 - static_cast<uint64_t>(n) : static_cast<uint64_t>(n);

  constexpr uint64_t kMicro = 1000, kMilli = 1000 * 1000, kSecond = 1000 * 1000 * 1000;
  if (u < kSecond) {
    int prec = 0;
    buf[--w] = 's';
    if (u == 0) {
      buf[--w] = '0';
      return std::string(buf + w, sizeof(buf) - w);
    } else if (u < kMicro) {
      prec = 0;
      buf[--w] = 'n';
    } else if (u < kMilli) {
      prec = 3;
      buf[--w] = '\xB5';  // "µ" is two bytes: 0xC2 0xB5
      buf[--w] = '\xC2';
    } else {
      prec = 6;
      buf[--w] = 'm';
    }
    u = FormatFraction(buf, w, u, prec);
    FormatInt(buf, w, u);
  } else {
    buf[--w] = 's';
    u = FormatFraction(buf, w, u, 9);
    FormatInt(buf, w, u % 60);  // seconds
    u /= 60;
    if (u > 0) {
      buf[--w] = 'm';
      FormatInt(buf, w, u % 60);  // minutes
      u /= 60;
      if (u > 0) {
        // Stop at hours: days are not all the same length.
        buf[--w] = 'h';
        FormatInt(buf, w, u);
      }
    }
  }
  if (negative) buf[--w] = '-';
  return std::string(buf + w, sizeof(buf) - w);
}

Result<NillableDuration> ParseNillableDuration(std::string_view text) {
  if (text == "Never") return NillableDuration{std::nullopt};
  Result<Duration> d = ParseDuration(text);
  if (!d.ok()) return d.status();
  return NillableDuration{*d};
}

std::string FormatNillableDuration(const NillableDuration& d) {
  return d.never() ? std::string("Never") : FormatDuration(*d.value);
}

}  // namespace nodesmith::core
