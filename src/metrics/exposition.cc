#include "metrics/exposition.h"

#include <algorithm>
#include <charconv>
#include <cmath>
#include <cstdlib>
#include <numeric>

namespace nodesmith::metrics {

std::string FormatFloat(double v) {
  if (std::isnan(v)) return "NaN";
  if (std::isinf(v)) return v > 0 ? "+Inf" : "-Inf";
  if (v == 0) return "0";
  // The shortest digits that read back as `v`, from the scientific form "d.ddde[+-]x".
  char buf[64];
  auto r = std::to_chars(buf, buf + sizeof(buf), v, std::chars_format::scientific);
  std::string_view sci(buf, r.ptr - buf);
  const bool negative = sci.front() == '-';
  if (negative) sci.remove_prefix(1);
  const size_t e = sci.find('e');
  std::string digits;
  for (char c : sci.substr(0, e)) {
    if (c != '.') digits.push_back(c);
  }
  const int exp = std::atoi(std::string(sci.substr(e + 1)).c_str());
  const int nd = static_cast<int>(digits.size());

  std::string out = negative ? "-" : "";
  // Go's 'g' with the shortest precision: %e when the exponent is < -4 or >= 6 (not the digit
  // count, as C's %g would use).
  if (exp < -4 || exp >= 6) {
    out += digits[0];
    if (nd > 1) out += "." + digits.substr(1);
    out += exp < 0 ? "e-" : "e+";
    const int a = std::abs(exp);
    if (a < 10) out += '0';
    out += std::to_string(a);
    return out;
  }
  const int dp = exp + 1;  // digits before the decimal point
  if (dp <= 0) {
    out += "0." + std::string(-dp, '0') + digits;
  } else if (dp >= nd) {
    out += digits + std::string(dp - nd, '0');
  } else {
    out += digits.substr(0, dp) + "." + digits.substr(dp);
  }
  return out;
}

namespace {

std::string Escape(std::string_view s, bool quote) {
  std::string out;
  out.reserve(s.size());
  for (char c : s) {
    if (c == '\\') {
      out += "\\\\";
    } else if (c == '\n') {
      out += "\\n";
    } else if (c == '"' && quote) {
      out += "\\\"";
    } else {
      out += c;
    }
  }
  return out;
}

// Writes `name{labels[,extra]} value\n`; `order` lists label indexes sorted by label name.
void WriteSample(const std::string& name, const std::vector<std::string>& label_names,
                 const std::vector<size_t>& order, const LabelValues& values,
                 std::string_view extra_name, double extra_value, double value, std::string* out) {
  *out += name;
  if (!order.empty() || !extra_name.empty()) {
    *out += '{';
    bool first = true;
    for (size_t i : order) {
      if (!first) *out += ',';
      first = false;
      *out += label_names[i] + "=\"" + EscapeLabelValue(values[i]) + '"';
    }
    if (!extra_name.empty()) {
      if (!first) *out += ',';
      *out += std::string(extra_name) + "=\"" + FormatFloat(extra_value) + '"';
    }
    *out += '}';
  }
  *out += ' ' + FormatFloat(value) + '\n';
}

void WriteFamily(FamilySnapshot& f, std::string* out) {
  std::vector<size_t> order(f.label_names.size());
  std::iota(order.begin(), order.end(), 0);
  std::sort(order.begin(), order.end(),
            [&](size_t a, size_t b) { return f.label_names[a] < f.label_names[b]; });
  std::sort(f.series.begin(), f.series.end(), [&](const auto& a, const auto& b) {
    for (size_t i : order) {
      if (a.label_values[i] != b.label_values[i]) return a.label_values[i] < b.label_values[i];
    }
    return false;
  });

  *out += "# HELP " + f.name + ' ' + EscapeHelp(f.help) + '\n';
  *out += "# TYPE " + f.name + ' ' + MetricTypeName(f.type) + '\n';
  for (const auto& s : f.series) {
    const auto& lv = s.label_values;
    switch (f.type) {
      case MetricType::kCounter:
      case MetricType::kGauge:
        WriteSample(f.name, f.label_names, order, lv, "", 0, s.value, out);
        break;
      case MetricType::kHistogram: {
        const std::string bucket = f.name + "_bucket";
        for (size_t i = 0; i < s.buckets.size(); ++i) {
          const double le = i < f.bounds.size() ? f.bounds[i] : HUGE_VAL;
          WriteSample(bucket, f.label_names, order, lv, "le", le, static_cast<double>(s.buckets[i]),
                      out);
        }
        WriteSample(f.name + "_sum", f.label_names, order, lv, "", 0, s.sum, out);
        WriteSample(f.name + "_count", f.label_names, order, lv, "", 0,
                    static_cast<double>(s.count), out);
        break;
      }
      case MetricType::kSummary:
        for (size_t i = 0; i < f.quantiles.size() && i < s.quantiles.size(); ++i) {
          WriteSample(f.name, f.label_names, order, lv, "quantile", f.quantiles[i], s.quantiles[i],
                      out);
        }
        WriteSample(f.name + "_sum", f.label_names, order, lv, "", 0, s.sum, out);
        WriteSample(f.name + "_count", f.label_names, order, lv, "", 0,
                    static_cast<double>(s.count), out);
        break;
    }
  }
}

}  // namespace

std::string EscapeLabelValue(std::string_view value) { return Escape(value, true); }
std::string EscapeHelp(std::string_view help) { return Escape(help, false); }

std::string TextFormat(std::vector<FamilySnapshot> families) {
  std::sort(families.begin(), families.end(),
            [](const auto& a, const auto& b) { return a.name < b.name; });
  std::string out;
  for (auto& f : families) WriteFamily(f, &out);
  return out;
}

std::string TextFormat(const Registry& registry) { return TextFormat(registry.Gather()); }

}  // namespace nodesmith::metrics
