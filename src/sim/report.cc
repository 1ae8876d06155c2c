#include "sim/report.h"

#include <algorithm>
#include <array>
#include <charconv>
#include <cmath>
#include <cstdint>
#include <map>
#include <nlohmann/json.hpp>
#include <ostream>
#include <string>
#include <string_view>
#include <utility>
#include <vector>

namespace nodesmith::sim {
namespace {

using nlohmann::json;

// ---------------------------------------------------------------------------------------------
// Text and number formatting. Numbers go through std::to_chars so the page never depends on the
// process locale (a decimal comma would break SVG coordinates) and is byte-for-byte repeatable.

std::string Escape(std::string_view text) {
  std::string out;
  out.reserve(text.size());
  for (char c : text) {
    switch (c) {
      case '&':
        out += "&amp;";
        break;
      case '<':
        out += "&lt;";
        break;
      case '>':
        out += "&gt;";
        break;
      case '"':
        out += "&quot;";
        break;
      case '\'':
        out += "&#39;";
        break;
      default:
        out += c;
    }
  }
  return out;
}

// `v` with exactly `decimals` digits after the point; non-finite values print as 0 so that no
// "nan" or "inf" ever reaches an SVG attribute.
std::string FixedExact(double v, int decimals) {
  if (!std::isfinite(v)) v = 0;
  std::array<char, 512> buf;
  auto [end, ec] =
      std::to_chars(buf.data(), buf.data() + buf.size(), v, std::chars_format::fixed, decimals);
  if (ec != std::errc()) return "0";
  std::string s(buf.data(), end);
  if (s.find_first_not_of("-0.") == std::string::npos)
    s = decimals > 0 ? "0." + std::string(decimals, '0') : "0";
  return s;
}

// Like FixedExact without trailing zeros: coordinates and plain figures.
std::string Fixed(double v, int decimals) {
  std::string s = FixedExact(v, decimals);
  if (s.find('.') != std::string::npos) {
    while (s.back() == '0') s.pop_back();
    if (s.back() == '.') s.pop_back();
  }
  return s;
}

// An SVG coordinate; one decimal is finer than a pixel.
std::string Px(double v) { return Fixed(v, 1); }

std::string Money(double v) {
  double a = std::fabs(v);
  return "$" + FixedExact(v, a > 0 && a < 0.01 ? 4 : 2);
}

std::string Percent(double fraction) { return Fixed(fraction * 100, 1) + "%"; }

// Virtual time since the scenario started, compact: "0s", "45s", "12m30s", "1h5m", "2d3h".
std::string Elapsed(double seconds) {
  if (!std::isfinite(seconds)) seconds = 0;
  std::string sign = seconds < 0 ? "-" : "";
  double total = std::round(std::fabs(seconds) * 10) / 10;  // tenths of a second at most
  total = std::min(total, 1e12);
  auto whole = static_cast<int64_t>(total);
  double secs = total - static_cast<double>(whole - whole % 60);
  int64_t minutes = whole / 60 % 60, hours = whole / 3600 % 24, days = whole / 86400;
  std::string out;
  if (days > 0) out += std::to_string(days) + "d";
  if (hours > 0) out += std::to_string(hours) + "h";
  if (minutes > 0) out += std::to_string(minutes) + "m";
  if (secs > 0 || out.empty()) out += Fixed(secs, 1) + "s";
  return sign + out;
}

// ---------------------------------------------------------------------------------------------
// Tolerant JSON access: the report must render whatever a (possibly older or partial) result
// holds, so wrong types read as absent instead of throwing.

const json* Find(const json& j, const char* key) {
  if (!j.is_object()) return nullptr;
  auto it = j.find(key);
  return it == j.end() || it->is_null() ? nullptr : &*it;
}

// A number, or a string holding one (the event recorder keeps fields as strings).
bool ToNumber(const json& v, double& out) {
  double d = 0;
  if (v.is_number()) {
    d = v.get<double>();
  } else if (v.is_string()) {
    const auto& s = v.get_ref<const std::string&>();
    auto [ptr, ec] = std::from_chars(s.data(), s.data() + s.size(), d);
    if (ec != std::errc() || ptr != s.data() + s.size()) return false;
  } else {
    return false;
  }
  if (!std::isfinite(d)) return false;
  out = d;
  return true;
}

double NumberOr(const json& j, const char* key, double fallback) {
  const json* v = Find(j, key);
  double d = fallback;
  return v != nullptr && ToNumber(*v, d) ? d : fallback;
}

std::string StringOr(const json& j, const char* key, std::string fallback) {
  const json* v = Find(j, key);
  return v != nullptr && v->is_string() ? v->get<std::string>() : fallback;
}

// Any field value as display text: arrays joined by ", ", nested objects as compact JSON.
std::string Text(const json& v) {
  if (v.is_string()) return v.get<std::string>();
  if (v.is_number_integer() || v.is_number_unsigned()) return v.dump();
  if (v.is_number()) return Fixed(v.get<double>(), 4);
  if (v.is_array()) {
    std::string out;
    for (const auto& e : v) out += (out.empty() ? "" : ", ") + Text(e);
    return out;
  }
  return v.dump();
}

// ---------------------------------------------------------------------------------------------
// The result, read once into plain data.

struct Sample {
  double t = 0;
  std::map<std::string, double> nodes;  // instance type -> node count
  double pending = 0, price = 0, cpu = 0, memory = 0;
  double TotalNodes() const {
    double n = 0;
    for (const auto& [type, count] : nodes) n += count;
    return n;
  }
};

struct Event {
  double t = 0;
  std::string type;
  const json* raw = nullptr;
};

struct Model {
  std::vector<Sample> samples;  // sorted by t
  std::vector<Event> events;    // sorted by t, ties in input order
  double t0 = 0, t1 = 60;       // the time axis; t1 > t0
};

// Times beyond ±30 years are clamped: far past any scenario, and it keeps the axis arithmetic
// (spans, tick counts) finite for absurd inputs.
constexpr double kMaxSeconds = 1e9;

double TimeOf(const json& j) { return std::clamp(NumberOr(j, "t", 0), -kMaxSeconds, kMaxSeconds); }

Model ReadModel(const json& result) {
  Model m;
  if (const json* samples = Find(result, "samples"); samples != nullptr && samples->is_array()) {
    for (const auto& s : *samples) {
      if (!s.is_object()) continue;
      Sample sample;
      sample.t = TimeOf(s);
      if (const json* nodes = Find(s, "nodes"); nodes != nullptr && nodes->is_object()) {
        for (const auto& [type, count] : nodes->items()) {
          double n = 0;
          if (ToNumber(count, n) && n > 0) sample.nodes[type] = n;
        }
      }
      sample.pending = std::max(0.0, NumberOr(s, "pendingPods", 0));
      sample.price = std::max(0.0, NumberOr(s, "pricePerHour", 0));
      sample.cpu = std::clamp(NumberOr(s, "cpuUtilization", 0), 0.0, 1.0);
      sample.memory = std::clamp(NumberOr(s, "memoryUtilization", 0), 0.0, 1.0);
      m.samples.push_back(std::move(sample));
    }
  }
  std::stable_sort(m.samples.begin(), m.samples.end(),
                   [](const Sample& a, const Sample& b) { return a.t < b.t; });
  if (const json* events = Find(result, "events"); events != nullptr && events->is_array()) {
    for (const auto& e : *events) {
      if (!e.is_object()) continue;
      m.events.push_back({TimeOf(e), StringOr(e, "type", ""), &e});
    }
  }
  std::stable_sort(m.events.begin(), m.events.end(),
                   [](const Event& a, const Event& b) { return a.t < b.t; });

  // The axis starts at the scenario's start (t = 0) and ends at the last thing that happened.
  bool any = false;
  double lo = 0, hi = 0;
  auto include = [&](double t) {
    lo = any ? std::min(lo, t) : std::min(0.0, t);
    hi = any ? std::max(hi, t) : std::max(0.0, t);
    any = true;
  };
  for (const auto& s : m.samples) include(s.t);
  for (const auto& e : m.events) include(e.t);
  m.t0 = lo;
  m.t1 = hi > lo ? hi : lo + 60;
  return m;
}

// ---------------------------------------------------------------------------------------------
// Chart geometry.

constexpr double kSvgWidth = 1200;
constexpr double kMarginLeft = 72;
constexpr double kMarginRight = 28;
constexpr double kLegendTop = 10;
constexpr double kLegendRowHeight = 20;
constexpr double kPlotGap = 22;  // between the legend and the plot; decision ticks live here
constexpr double kPlotHeight = 210;
constexpr double kMarginBottom = 36;

// Maps data onto the plot rectangle. REQUIRES: t1 > t0, y1 > y0.
struct Frame {
  double left = 0, top = 0, width = 0, height = 0;
  double t0 = 0, t1 = 1, y0 = 0, y1 = 1;
  double X(double t) const { return left + (std::clamp(t, t0, t1) - t0) / (t1 - t0) * width; }
  double Y(double v) const {
    return top + height - (std::clamp(v, y0, y1) - y0) / (y1 - y0) * height;
  }
  double Right() const { return left + width; }
  double Bottom() const { return top + height; }
};

// The smallest "round" step (1, 2, 2.5, 5 times a power of ten) at least `raw`.
double NiceStep(double raw, bool integer) {
  if (!(raw > 0) || !std::isfinite(raw)) return 1;
  double magnitude = std::pow(10.0, std::floor(std::log10(raw)));
  double f = raw / magnitude;
  double nice = f <= 1 ? 1 : f <= 2 ? 2 : (f <= 2.5 && !integer) ? 2.5 : f <= 5 ? 5 : 10;
  double step = nice * magnitude;
  return integer ? std::max(1.0, std::round(step)) : step;
}

// Digits after the point needed to print multiples of `step` exactly.
int DecimalsFor(double step) {
  int d = 0;
  while (d < 6) {
    double scaled = step * std::pow(10.0, d);
    if (std::fabs(scaled - std::round(scaled)) < 1e-6) break;
    ++d;
  }
  return d;
}

struct YScale {
  double max = 1, step = 0.25;
  double label_factor = 1;  // percent axes hold fractions and label them ×100
  std::string prefix, suffix;
  int decimals = 0;
  std::string Label(double v) const {
    return prefix + FixedExact(v * label_factor, decimals) + suffix;
  }
};

YScale ValueScale(double max_value, bool integer, std::string prefix) {
  YScale s;
  s.prefix = std::move(prefix);
  if (!(max_value > 0) || !std::isfinite(max_value)) {
    // Nothing to show: a unit axis, so the empty chart still has gridlines.
    s.step = integer ? 1 : 0.25;
    s.max = 1;
  } else {
    s.step = NiceStep(max_value / 4, integer);
    s.max = s.step * std::max(1.0, std::ceil(max_value / s.step - 1e-9));
  }
  s.decimals = DecimalsFor(s.step);
  if (s.prefix == "$") s.decimals = std::max(s.decimals, 2);  // money reads as dollars and cents
  return s;
}

YScale PercentScale() {
  YScale s;
  s.max = 1;
  s.step = 0.2;
  s.label_factor = 100;
  s.suffix = "%";
  return s;
}

// Time ticks: the first round step that gives at most 10 ticks across the span.
double TimeStep(double span) {
  static constexpr std::array<double, 18> kSteps = {
      1, 2, 5, 10, 15, 30, 60, 120, 300, 600, 900, 1800, 3600, 7200, 10800, 21600, 43200, 86400};
  for (double step : kSteps) {
    if (span / step <= 10) return step;
  }
  return 86400 * NiceStep(span / 86400 / 10, true);
}

struct LegendItem {
  enum Kind { kArea, kLine, kDashed, kTick };
  std::string label;
  std::string color;
  Kind kind = kArea;
};

// A time range of the plot with its values, shown as a native tooltip (<title>) on hover so the
// page needs no script.
struct HoverColumn {
  double from = 0, to = 0;
  std::string text;
};

// A vertical tick above the plot marking an instant (a disruption decision, an interruption).
struct Marker {
  double t = 0;
  std::string kind;  // legend label: "disruption decision", "interruption"
  std::string color;
  std::string text;  // tooltip
};

// Consecutive samples as intervals: sample i holds from its t until the next sample's t, the last
// until the end of the axis.
double IntervalEnd(const Model& m, size_t i) {
  return i + 1 < m.samples.size() ? m.samples[i + 1].t : m.t1;
}

// A step line through (xs[i], ys[i]), each value held until the next x and the last until
// x_end. Unchanged values emit nothing, so long steady stretches cost no bytes.
// REQUIRES: xs.size() == ys.size() > 0.
std::string StepForward(const std::vector<double>& xs, const std::vector<double>& ys,
                        double x_end) {
  std::string d = "M" + Px(xs[0]) + " " + Px(ys[0]);
  std::string cur = Px(ys[0]);
  for (size_t i = 1; i < xs.size(); ++i) {
    std::string y = Px(ys[i]);
    if (y == cur) continue;
    d += "H" + Px(xs[i]) + "V" + y;
    cur = y;
  }
  return d + "H" + Px(x_end);
}

// Continues a path that ends at (x_end, top) back along the step line `ys` to xs[0], closing a
// band whose lower edge is `ys`. REQUIRES: as StepForward.
std::string StepBackward(const std::vector<double>& xs, const std::vector<double>& ys) {
  size_t n = ys.size();
  std::string cur = Px(ys[n - 1]);
  std::string d = "V" + cur;
  for (size_t i = n - 1; i > 0; --i) {
    std::string y = Px(ys[i - 1]);
    if (y == cur) continue;
    d += "H" + Px(xs[i]) + "V" + y;
    cur = y;
  }
  return d + "H" + Px(xs[0]) + "Z";
}

// Lays the legend out in rows that wrap at the plot's width; returns the SVG and its height.
std::pair<std::string, double> Legend(const std::vector<LegendItem>& items) {
  std::string s = "<g class=\"legend\">";
  double x = kMarginLeft, row = 0;
  for (const auto& item : items) {
    // Width estimated from the label: no font metrics without a browser, and 7px per character
    // at 13px is generous for the sans-serif fonts the page asks for.
    double w = 26 + 7.5 * static_cast<double>(item.label.size()) + 18;
    if (x > kMarginLeft && x + w > kSvgWidth - kMarginRight) {
      x = kMarginLeft;
      ++row;
    }
    double cy = kLegendTop + row * kLegendRowHeight + 8;
    std::string color = Escape(item.color);
    switch (item.kind) {
      case LegendItem::kArea:
        s += "<rect x=\"" + Px(x) + "\" y=\"" + Px(cy - 6) +
             "\" width=\"18\" height=\"12\" rx=\"2\" fill=\"" + color + "\"/>";
        break;
      case LegendItem::kLine:
      case LegendItem::kDashed:
        s += "<line x1=\"" + Px(x) + "\" y1=\"" + Px(cy) + "\" x2=\"" + Px(x + 18) + "\" y2=\"" +
             Px(cy) + "\" stroke=\"" + color + "\" stroke-width=\"2.5\"" +
             (item.kind == LegendItem::kDashed ? " stroke-dasharray=\"4 3\"" : "") + "/>";
        break;
      case LegendItem::kTick:
        s += "<line x1=\"" + Px(x + 9) + "\" y1=\"" + Px(cy - 7) + "\" x2=\"" + Px(x + 9) +
             "\" y2=\"" + Px(cy + 7) + "\" stroke=\"" + color + "\" stroke-width=\"3\"/>";
        break;
    }
    s +=
        "<text x=\"" + Px(x + 26) + "\" y=\"" + Px(cy + 4) + "\">" + Escape(item.label) + "</text>";
    x += w;
  }
  s += "</g>";
  return {s, items.empty() ? 0.0 : (row + 1) * kLegendRowHeight};
}

// What every chart shares: the model (its time axis and samples) and the markers.
struct ChartContext {
  const Model* model = nullptr;
  std::vector<Marker> markers;
};

// What differs between charts, apart from the data layer.
struct ChartSpec {
  std::string id;
  std::string title;  // accessible name
  YScale scale;
  std::vector<LegendItem> legend;
  std::vector<HoverColumn> hover;
};

// One chart's <svg>: legend, gridlines and time axis, the data layer `draw(frame)` returns (only
// when there are samples), hover columns and markers, in that order so that the hover columns
// sit above the data and the markers above both.
template <typename Draw>
std::string RenderChart(const ChartContext& ctx, const ChartSpec& spec, Draw draw) {
  const Model& m = *ctx.model;
  std::vector<LegendItem> legend = spec.legend;
  // One legend entry per kind of marker present, in order of first appearance.
  for (const auto& mk : ctx.markers) {
    bool listed = std::any_of(legend.begin(), legend.end(), [&](const LegendItem& item) {
      return item.kind == LegendItem::kTick && item.label == mk.kind;
    });
    if (!listed) legend.push_back({mk.kind, mk.color, LegendItem::kTick});
  }
  auto [legend_svg, legend_height] = Legend(legend);
  Frame f;
  f.left = kMarginLeft;
  f.top = kLegendTop + legend_height + kPlotGap;
  f.width = kSvgWidth - kMarginLeft - kMarginRight;
  f.height = kPlotHeight;
  f.t0 = m.t0;
  f.t1 = m.t1;
  f.y0 = 0;
  f.y1 = spec.scale.max;
  double svg_height = f.Bottom() + kMarginBottom;

  std::string s;
  s += "<svg id=\"" + Escape(spec.id) + "\" class=\"chart\" role=\"img\" aria-label=\"" +
       Escape(spec.title) + "\" viewBox=\"0 0 " + Px(kSvgWidth) + " " + Px(svg_height) +
       "\" width=\"" + Px(kSvgWidth) + "\" height=\"" + Px(svg_height) +
       "\" xmlns=\"http://www.w3.org/2000/svg\">";
  s += legend_svg;

  // Horizontal gridlines with value labels.
  s += "<g class=\"grid\">";
  int y_ticks = static_cast<int>(std::round(spec.scale.max / spec.scale.step));
  for (int i = 0; i <= y_ticks && i <= 20; ++i) {
    double v = spec.scale.step * i;
    double y = f.Y(v);
    s += "<line x1=\"" + Px(f.left) + "\" y1=\"" + Px(y) + "\" x2=\"" + Px(f.Right()) + "\" y2=\"" +
         Px(y) + "\"/>";
    s += "<text class=\"ylabel\" x=\"" + Px(f.left - 8) + "\" y=\"" + Px(y + 4) + "\">" +
         Escape(spec.scale.Label(v)) + "</text>";
  }
  // Vertical gridlines at round times.
  double step = TimeStep(m.t1 - m.t0);
  double first = std::ceil(m.t0 / step - 1e-9);
  for (int i = 0; i <= 20 && (first + i) * step <= m.t1 + 1e-9; ++i) {
    double k = first + i;
    double t = k * step;
    double x = f.X(t);
    s += "<line x1=\"" + Px(x) + "\" y1=\"" + Px(f.top) + "\" x2=\"" + Px(x) + "\" y2=\"" +
         Px(f.Bottom()) + "\"/>";
    s += "<text class=\"xlabel\" x=\"" + Px(x) + "\" y=\"" + Px(f.Bottom() + 18) + "\">" +
         (t == 0 ? std::string("0") : Escape(Elapsed(t))) + "</text>";
  }
  s += "</g>";

  if (m.samples.empty()) {
    s += "<text class=\"nodata\" x=\"" + Px(f.left + f.width / 2) + "\" y=\"" +
         Px(f.top + f.height / 2) + "\">No samples in this result</text>";
  } else {
    s += "<g class=\"data\">" + draw(f) + "</g>";
  }
  s += "<g class=\"axis\"><line x1=\"" + Px(f.left) + "\" y1=\"" + Px(f.Bottom()) + "\" x2=\"" +
       Px(f.Right()) + "\" y2=\"" + Px(f.Bottom()) + "\"/><line x1=\"" + Px(f.left) + "\" y1=\"" +
       Px(f.top) + "\" x2=\"" + Px(f.left) + "\" y2=\"" + Px(f.Bottom()) + "\"/></g>";

  if (!spec.hover.empty()) {
    s += "<g class=\"hover\">";
    // Neighbouring columns with the same values read as one.
    std::vector<HoverColumn> merged;
    for (const auto& c : spec.hover) {
      if (!merged.empty() && merged.back().text == c.text) {
        merged.back().to = c.to;
      } else {
        merged.push_back(c);
      }
    }
    for (const auto& c : merged) {
      double x0 = f.X(c.from), x1 = f.X(c.to);
      if (x1 - x0 < 0.05) continue;
      s += "<rect x=\"" + Px(x0) + "\" y=\"" + Px(f.top) + "\" width=\"" + Px(x1 - x0) +
           "\" height=\"" + Px(f.height) + "\"><title>" +
           Escape(Elapsed(c.from) + " – " + Elapsed(c.to) + "\n" + c.text) + "</title></rect>";
    }
    s += "</g>";
  }

  if (!ctx.markers.empty()) {
    s += "<g class=\"markers\">";
    for (const auto& mk : ctx.markers) {
      double x = f.X(mk.t);
      std::string color = Escape(mk.color);
      s += "<g><title>" + Escape(mk.text) + "</title><rect x=\"" + Px(x - 4) + "\" y=\"" +
           Px(f.top - 14) + "\" width=\"8\" height=\"" + Px(f.height + 14) +
           "\" fill=\"transparent\"/><line x1=\"" + Px(x) + "\" y1=\"" + Px(f.top - 12) +
           "\" x2=\"" + Px(x) + "\" y2=\"" + Px(f.top - 2) + "\" stroke=\"" + color +
           "\" stroke-width=\"2.5\"/><line class=\"guide\" x1=\"" + Px(x) + "\" y1=\"" + Px(f.top) +
           "\" x2=\"" + Px(x) + "\" y2=\"" + Px(f.Bottom()) + "\" stroke=\"" + color + "\"/></g>";
    }
    s += "</g>";
  }
  s += "</svg>";
  return s;
}

// ---------------------------------------------------------------------------------------------
// The four charts.

// Colours for instance types: a qualitative palette (Tableau 10), then evenly spread hues.
std::string TypeColor(size_t i) {
  static constexpr std::array<const char*, 10> kPalette = {
      "#4e79a7", "#f28e2b", "#59a14f", "#e15759", "#76b7b2",
      "#edc948", "#b07aa1", "#ff9da7", "#9c755f", "#bab0ac"};
  if (i < kPalette.size()) return kPalette[i];
  double hue = std::fmod(static_cast<double>(i) * 137.508, 360.0);
  return "hsl(" + Fixed(hue, 0) + ",55%,55%)";
}

std::string NodesChart(const ChartContext& ctx) {
  const Model& m = *ctx.model;
  // Types ordered by node-time, largest at the bottom of the stack, so the dominant capacity
  // sits on the axis and small types stack thinly on top.
  std::map<std::string, double> node_seconds;
  double peak = 0;
  for (size_t i = 0; i < m.samples.size(); ++i) {
    double dt = IntervalEnd(m, i) - m.samples[i].t;
    for (const auto& [type, n] : m.samples[i].nodes) node_seconds[type] += n * dt;
    peak = std::max(peak, m.samples[i].TotalNodes());
  }
  std::vector<std::pair<std::string, double>> types(node_seconds.begin(), node_seconds.end());
  std::stable_sort(types.begin(), types.end(),
                   [](const auto& a, const auto& b) { return a.second > b.second; });

  ChartSpec spec;
  spec.id = "chart-nodes";
  spec.title = "Nodes by instance type over time";
  spec.scale = ValueScale(peak, true, "");
  for (size_t k = 0; k < types.size(); ++k)
    spec.legend.push_back({types[k].first, TypeColor(k), LegendItem::kArea});
  if (!m.samples.empty()) spec.legend.push_back({"total", "#1f2937", LegendItem::kLine});
  for (size_t i = 0; i < m.samples.size(); ++i) {
    const Sample& s = m.samples[i];
    std::string text = Fixed(s.TotalNodes(), 2) + (s.TotalNodes() == 1 ? " node" : " nodes");
    for (const auto& [type, n] : types) {
      auto it = s.nodes.find(type);
      if (it != s.nodes.end()) text += "\n" + type + ": " + Fixed(it->second, 2);
    }
    spec.hover.push_back({s.t, IntervalEnd(m, i), text});
  }

  return RenderChart(ctx, spec, [&](const Frame& f) {
    std::string s;
    // Each band lies between the running total of the types below it and that total plus its
    // own count.
    std::vector<double> xs, cumulative(m.samples.size(), 0.0);
    for (const auto& sample : m.samples) xs.push_back(f.X(sample.t));
    std::vector<double> below_y(m.samples.size(), f.Y(0));
    for (size_t k = 0; k < types.size(); ++k) {
      std::vector<double> top_y(m.samples.size());
      for (size_t i = 0; i < m.samples.size(); ++i) {
        auto it = m.samples[i].nodes.find(types[k].first);
        cumulative[i] += it == m.samples[i].nodes.end() ? 0 : it->second;
        top_y[i] = f.Y(cumulative[i]);
      }
      s += "<path class=\"band\" fill=\"" + Escape(TypeColor(k)) + "\" d=\"" +
           StepForward(xs, top_y, f.Right()) + StepBackward(xs, below_y) + "\"/>";
      below_y = std::move(top_y);
    }
    s += "<path class=\"line\" stroke=\"#1f2937\" stroke-width=\"1.5\" d=\"" +
         StepForward(xs, below_y, f.Right()) + "\"/>";
    return s;
  });
}

// A single series as a step line over a light area.
std::string SeriesChart(const ChartContext& ctx, std::string id, std::string title,
                        std::string label, std::string color, YScale scale,
                        double (*value)(const Sample&), std::string (*format)(double)) {
  const Model& m = *ctx.model;
  ChartSpec spec;
  spec.id = std::move(id);
  spec.title = std::move(title);
  spec.scale = std::move(scale);
  spec.legend.push_back({label, color, LegendItem::kLine});
  for (size_t i = 0; i < m.samples.size(); ++i) {
    spec.hover.push_back(
        {m.samples[i].t, IntervalEnd(m, i), label + ": " + format(value(m.samples[i]))});
  }
  return RenderChart(ctx, spec, [&](const Frame& f) {
    std::vector<double> xs, ys;
    for (const auto& sample : m.samples) {
      xs.push_back(f.X(sample.t));
      ys.push_back(f.Y(value(sample)));
    }
    std::string line = StepForward(xs, ys, f.Right());
    std::string c = Escape(color);
    return "<path class=\"area\" fill=\"" + c + "\" d=\"" + line + "V" + Px(f.Y(0)) + "H" +
           Px(xs[0]) + "Z\"/><path class=\"line\" stroke=\"" + c + "\" stroke-width=\"2\" d=\"" +
           line + "\"/>";
  });
}

std::string UtilizationChart(const ChartContext& ctx) {
  const Model& m = *ctx.model;
  ChartSpec spec;
  spec.id = "chart-utilization";
  spec.title = "CPU and memory utilisation over time";
  spec.scale = PercentScale();
  const std::string cpu_color = "#4e79a7", memory_color = "#b07aa1";
  spec.legend.push_back({"CPU", cpu_color, LegendItem::kLine});
  spec.legend.push_back({"memory", memory_color, LegendItem::kDashed});
  for (size_t i = 0; i < m.samples.size(); ++i) {
    spec.hover.push_back(
        {m.samples[i].t, IntervalEnd(m, i),
         "CPU: " + Percent(m.samples[i].cpu) + "\nmemory: " + Percent(m.samples[i].memory)});
  }
  return RenderChart(ctx, spec, [&](const Frame& f) {
    std::vector<double> xs, cpu, memory;
    for (const auto& sample : m.samples) {
      xs.push_back(f.X(sample.t));
      cpu.push_back(f.Y(sample.cpu));
      memory.push_back(f.Y(sample.memory));
    }
    return "<path class=\"line\" stroke=\"" + memory_color +
           "\" stroke-width=\"2\" stroke-dasharray=\"6 4\" d=\"" +
           StepForward(xs, memory, f.Right()) + "\"/><path class=\"line\" stroke=\"" + cpu_color +
           "\" stroke-width=\"2\" d=\"" + StepForward(xs, cpu, f.Right()) + "\"/>";
  });
}

// ---------------------------------------------------------------------------------------------
// Tables and cards.

// Event types the decision log lists: what the autoscaler decided and what the cloud did to it.
bool IsDecisionLogType(const std::string& type) {
  return type == "DisruptionDecision" || type == "DisruptionAbandoned" ||
         type == "NodeClaimCreated" || type == "NodeClaimLaunched" || type == "Interruption" ||
         type == "NodeClaimDeleted" || type == "InvariantViolation";
}

constexpr const char* kDecisionColor = "#c0392b";
constexpr const char* kInterruptionColor = "#8e44ad";

// Fields that name objects, shown first in this order; other fields follow alphabetically.
constexpr std::array<const char*, 11> kObjectFields = {
    "nodePool",     "nodeClaim",    "node", "nodes",    "candidates", "replacements",
    "instanceType", "capacityType", "zone", "instance", "pod"};
// Fields with a column of their own, or none.
bool HasOwnColumn(const std::string& key) {
  return key == "t" || key == "time" || key == "type" || key == "reason" || key == "method" ||
         key == "savingsPerHour" || key == "message";
}

std::string ObjectsCell(const json& e) {
  std::string s;
  auto add = [&](const std::string& key, const json& v) {
    s += "<div><span class=\"k\">" + Escape(key) + "</span> " + Escape(Text(v)) + "</div>";
  };
  for (const char* key : kObjectFields) {
    if (const json* v = Find(e, key)) add(key, *v);
  }
  for (const auto& [key, v] : e.items()) {
    if (HasOwnColumn(key) || v.is_null()) continue;
    // `key` is named in the capture: clang before 16 cannot capture a structured binding implicitly.
    if (std::find_if(kObjectFields.begin(), kObjectFields.end(),
                     [&key = key](const char* k) { return key == k; }) != kObjectFields.end()) {
      continue;
    }
    add(key, v);
  }
  return s;
}

std::string DecisionLog(const Model& m) {
  std::string s =
      "<table id=\"decision-log\"><thead><tr><th>Time</th><th>Event</th><th>Objects</th>"
      "<th>Reason</th><th class=\"num\">Savings</th></tr></thead><tbody>";
  size_t rows = 0;
  for (const auto& e : m.events) {
    if (!IsDecisionLogType(e.type)) continue;
    ++rows;
    const json& raw = *e.raw;
    std::string reason;
    if (const json* r = Find(raw, "reason"))
      reason += "<div class=\"reason\">" + Escape(Text(*r)) + "</div>";
    if (const json* method = Find(raw, "method"))
      reason += "<div class=\"sub\">" + Escape(Text(*method)) + "</div>";
    if (const json* msg = Find(raw, "message"))
      reason += "<div class=\"sub\">" + Escape(Text(*msg)) + "</div>";
    std::string savings;
    double per_hour = 0;
    if (const json* v = Find(raw, "savingsPerHour"); v != nullptr && ToNumber(*v, per_hour)) {
      savings = Money(per_hour) + "/h";
    }
    s += "<tr class=\"ev-" + Escape(e.type) + "\"><td class=\"time\">" + Escape(Elapsed(e.t)) +
         "<div class=\"sub\">" + Escape(StringOr(raw, "time", "")) +
         "</div></td><td><span class=\"badge\">" + Escape(e.type) +
         "</span></td><td class=\"objects\">" + ObjectsCell(raw) + "</td><td>" + reason +
         "</td><td class=\"num\">" + Escape(savings) + "</td></tr>";
  }
  if (rows == 0)
    s += "<tr><td colspan=\"5\" class=\"nodata\">No decisions in this result</td></tr>";
  return s + "</tbody></table>";
}

// A field as display text, "" when absent.
std::string FieldText(const json& e, const char* key) {
  const json* v = Find(e, key);
  return v != nullptr ? Text(*v) : "";
}

// The replacement NodeClaims of a decision: its own `replacements` field when it has one, else
// the NodeClaims created for it afterwards (NodeClaimCreated events whose `replaces` names the
// decision's nodes), each with its instance type when the event says.
std::string ReplacementsOf(const Model& m, size_t decision) {
  const json& raw = *m.events[decision].raw;
  if (std::string own = FieldText(raw, "replacements"); !own.empty()) return own;
  const std::string nodes = FieldText(raw, "nodes");
  if (nodes.empty()) return "";
  std::string out;
  for (size_t i = decision + 1; i < m.events.size(); ++i) {
    const Event& e = m.events[i];
    if (e.type == "DisruptionDecision" && FieldText(*e.raw, "nodes") == nodes) break;
    if (e.type != "NodeClaimCreated" || FieldText(*e.raw, "replaces") != nodes) continue;
    std::string claim = FieldText(*e.raw, "nodeClaim");
    std::string type = FieldText(*e.raw, "instanceType");
    out += (out.empty() ? "" : ", ") + claim + (type.empty() ? "" : " (" + type + ")");
  }
  return out;
}

// Every disruption decision and interruption as one row (time, method, reason, nodes,
// replacements, saving per hour) and the saving of the decisions that went ahead; a decision
// abandoned later (DisruptionAbandoned for the same nodes) is marked and left out of the total.
std::string DisruptionDecisions(const Model& m) {
  std::string s =
      "<table id=\"disruption-decisions\"><thead><tr><th>Time</th><th>Method</th>"
      "<th>Reason</th><th>Nodes</th><th>Replacements</th><th class=\"num\">Saving</th>"
      "</tr></thead><tbody>";
  size_t rows = 0, decisions = 0;
  double total = 0;
  for (size_t i = 0; i < m.events.size(); ++i) {
    const Event& e = m.events[i];
    const json& raw = *e.raw;
    std::string method, reason, nodes, replacements, saving, note;
    if (e.type == "DisruptionDecision") {
      method = FieldText(raw, "method");
      reason = FieldText(raw, "reason");
      nodes = FieldText(raw, "nodes");
      if (nodes.empty()) nodes = FieldText(raw, "candidates");
      replacements = ReplacementsOf(m, i);
      double per_hour = 0;
      bool priced = false;
      if (const json* v = Find(raw, "savingsPerHour"); v != nullptr && ToNumber(*v, per_hour)) {
        saving = Money(per_hour) + "/h";
        priced = true;
      }
      bool abandoned = false;
      for (size_t j = i + 1; j < m.events.size() && !abandoned; ++j) {
        const Event& later = m.events[j];
        if (later.type == "DisruptionDecision" && FieldText(*later.raw, "nodes") == nodes) break;
        abandoned = later.type == "DisruptionAbandoned" && FieldText(*later.raw, "nodes") == nodes;
      }
      if (abandoned) {
        note = "<div class=\"sub\">abandoned</div>";
      } else {
        ++decisions;
        if (priced) total += per_hour;
      }
    } else if (e.type == "Interruption") {
      method = "interruption";
      reason = FieldText(raw, "kind");
      nodes = FieldText(raw, "node");
    } else {
      continue;
    }
    ++rows;
    s += "<tr class=\"ev-" + Escape(e.type) + "\"><td class=\"time\">" + Escape(Elapsed(e.t)) +
         "<div class=\"sub\">" + Escape(StringOr(raw, "time", "")) + "</div></td><td>" +
         Escape(method) + "</td><td><div class=\"reason\">" + Escape(reason) + "</div>" + note +
         "</td><td class=\"objects\">" + Escape(nodes) + "</td><td class=\"objects\">" +
         Escape(replacements) + "</td><td class=\"num\">" + Escape(saving) + "</td></tr>";
  }
  if (rows == 0) {
    s += "<tr><td colspan=\"6\" class=\"nodata\">No disruption decisions in this result</td></tr>";
  }
  s += "</tbody><tfoot><tr><td colspan=\"5\">Total saving of " + std::to_string(decisions) +
       " decision" + (decisions == 1 ? "" : "s") + "</td><td class=\"num total\">" +
       Escape(Money(total) + "/h") + "</td></tr></tfoot>";
  return s + "</table>";
}

std::string Card(const std::string& label, const std::string& value, const std::string& cls = "") {
  return "<div class=\"card" + (cls.empty() ? "" : " " + cls) + "\"><div class=\"label\">" +
         Escape(label) + "</div><div class=\"value\">" + value + "</div></div>";
}

constexpr const char* kMissing = "&mdash;";

std::string SummaryCards(const json& result) {
  const json* summary = Find(result, "summary");
  static const json kEmpty = json::object();
  const json& sm = summary != nullptr ? *summary : kEmpty;
  auto figure = [&](const json& j, const char* key, auto format) -> std::string {
    const json* v = Find(j, key);
    double d = 0;
    return v != nullptr && ToNumber(*v, d) ? Escape(format(d)) : kMissing;
  };
  auto count = [](double d) { return Fixed(d, 0); };
  auto seconds = [](double d) { return Fixed(d, 1) + " s"; };
  std::string latency = kMissing;
  if (const json* l = Find(sm, "podStartLatencySeconds")) {
    latency = figure(*l, "p50", seconds) + "<span class=\"slash\"> / </span>" +
              figure(*l, "p99", seconds);
  }
  double unschedulable = NumberOr(sm, "unschedulablePods", 0);
  std::string s = "<section class=\"cards\">";
  s += Card("Nodes launched", figure(sm, "nodesLaunched", count));
  s += Card("Nodes terminated", figure(sm, "nodesTerminated", count));
  s += Card("Cost", figure(sm, "cost", Money));
  s += Card("Node-hours", figure(sm, "nodeHours", [](double d) { return Fixed(d, 2); }));
  s += Card("Pod start p50 / p99", latency);
  s += Card("Avg CPU utilisation", figure(sm, "avgCpuUtilization", Percent));
  s += Card("Avg memory utilisation", figure(sm, "avgMemoryUtilization", Percent));
  s += Card("Unschedulable pods", figure(sm, "unschedulablePods", count),
            unschedulable > 0 ? "bad" : "");
  return s + "</section>";
}

std::string EventCounts(const Model& m) {
  std::map<std::string, int> counts;
  for (const auto& e : m.events) ++counts[e.type.empty() ? "(untyped)" : e.type];
  if (counts.empty()) return "<p class=\"nodata\">No events in this result.</p>";
  std::string s = "<div class=\"counts\">";
  for (const auto& [type, n] : counts) {
    s += "<span class=\"count\"><span class=\"k\">" + Escape(type) + "</span> " +
         std::to_string(n) + "</span>";
  }
  return s + "</div>";
}

// The controller log, folded away: long, and secondary to the charts.
constexpr size_t kMaxLogLines = 5000;

std::string ControllerLog(const json& result) {
  const json* log = Find(result, "log");
  if (log == nullptr || !log->is_array() || log->empty()) return "";
  std::string s = "<section class=\"panel\"><details><summary>Controller log (" +
                  std::to_string(log->size()) + " lines)</summary><pre class=\"log\">";
  size_t n = 0;
  for (const auto& line : *log) {
    if (n++ == kMaxLogLines) {
      s += "… " + std::to_string(log->size() - kMaxLogLines) + " more lines\n";
      break;
    }
    std::string level = StringOr(line, "level", "");
    s += "<span class=\"t\">" + Escape(Elapsed(NumberOr(line, "t", 0))) +
         "</span> <span class=\"lvl lvl-" + Escape(level) + "\">" + Escape(level) +
         "</span> <span class=\"logger\">" + Escape(StringOr(line, "logger", "")) + "</span> " +
         Escape(StringOr(line, "message", "")) + "\n";
  }
  return s + "</pre></details></section>";
}

constexpr std::string_view kStyle = R"css(
:root { color-scheme: light; }
* { box-sizing: border-box; }
body { margin: 0; background: #f4f5f7; color: #1f2937; font-size: 14px; line-height: 1.45;
  font-family: "Segoe UI", "Helvetica Neue", "Liberation Sans", "DejaVu Sans", Arial, sans-serif; }
main { max-width: 1260px; margin: 0 auto; padding: 28px 30px 48px; }
header h1 { margin: 0; font-size: 26px; font-weight: 600; letter-spacing: -0.01em; }
header h1 .scenario { color: #4e79a7; }
header .meta { margin-top: 4px; color: #6b7280; }
h2 { font-size: 17px; font-weight: 600; margin: 0 0 6px; }
.cards { display: grid; grid-template-columns: repeat(4, 1fr); gap: 12px; margin: 20px 0 8px; }
.card { background: #fff; border-radius: 8px; padding: 12px 16px;
  box-shadow: 0 1px 2px rgba(0,0,0,.08); border-top: 3px solid #4e79a7; }
.card.bad { border-top-color: #c0392b; }
.card.bad .value { color: #c0392b; }
.card .label { color: #6b7280; font-size: 12px; text-transform: uppercase; letter-spacing: .04em; }
.card .value { font-size: 24px; font-weight: 600; margin-top: 2px;
  font-variant-numeric: tabular-nums; }
.card .slash { color: #9ca3af; font-weight: 400; }
section.panel { background: #fff; border-radius: 8px; padding: 16px 18px 10px; margin-top: 16px;
  box-shadow: 0 1px 2px rgba(0,0,0,.08); }
.panel .hint { color: #6b7280; font-size: 12.5px; margin: 0 0 4px; }
svg.chart { display: block; width: 100%; height: auto; font-size: 13px; fill: #374151; }
svg.chart .grid line { stroke: #e5e7eb; stroke-width: 1; }
svg.chart .axis line { stroke: #9ca3af; stroke-width: 1; }
svg.chart .ylabel { text-anchor: end; fill: #6b7280; font-variant-numeric: tabular-nums; }
svg.chart .xlabel { text-anchor: middle; fill: #6b7280; }
svg.chart .nodata { text-anchor: middle; fill: #9ca3af; font-size: 15px;
  stroke: #fff; stroke-width: 8px; stroke-linejoin: round; paint-order: stroke; }
svg.chart .band { opacity: .9; }
svg.chart .area { opacity: .15; }
svg.chart .line { fill: none; stroke-linejoin: round; }
svg.chart .hover rect { fill: transparent; }
svg.chart .hover rect:hover { fill: rgba(31,41,55,.06); }
svg.chart .markers .guide { stroke-width: 1; stroke-dasharray: 2 3; opacity: .35; }
table { width: 100%; border-collapse: collapse; font-size: 13px; }
th { text-align: left; font-weight: 600; color: #6b7280; font-size: 12px; text-transform: uppercase;
  letter-spacing: .04em; border-bottom: 2px solid #e5e7eb; padding: 6px 10px; }
td { border-bottom: 1px solid #eef0f3; padding: 7px 10px; vertical-align: top; }
td.num, th.num { text-align: right; font-variant-numeric: tabular-nums; white-space: nowrap; }
td.time { white-space: nowrap; font-variant-numeric: tabular-nums; }
td .sub { color: #6b7280; font-size: 12px; }
td .reason { font-weight: 600; }
tfoot td { border-top: 2px solid #e5e7eb; border-bottom: none; font-weight: 600; }
td.objects { word-break: break-word; }
.k { color: #6b7280; font-size: 12px; }
.nodata { color: #9ca3af; text-align: center; }
.badge { display: inline-block; padding: 1px 8px; border-radius: 10px; font-size: 12px;
  font-weight: 600; background: #e5e7eb; color: #374151; white-space: nowrap; }
.ev-DisruptionDecision .badge { background: #fde2df; color: #a93226; }
.ev-Interruption .badge { background: #ecdff2; color: #6c3483; }
.ev-DisruptionAbandoned .badge { background: #fdebd0; color: #9c640c; }
.ev-InvariantViolation .badge { background: #c0392b; color: #fff; }
.ev-NodeClaimCreated .badge { background: #dbe7f3; color: #2c5282; }
.ev-NodeClaimLaunched .badge { background: #dcefd9; color: #2f6b29; }
.ev-NodeClaimDeleted .badge { background: #ececec; color: #4b5563; }
.counts { display: flex; flex-wrap: wrap; gap: 6px 16px; margin: 4px 0 8px; }
.count { font-variant-numeric: tabular-nums; }
details summary { cursor: pointer; font-weight: 600; font-size: 17px; }
pre.log { font: 12px/1.5 "DejaVu Sans Mono", "Liberation Mono", Menlo, Consolas, monospace;
  overflow-x: auto; max-height: 480px; background: #f9fafb; padding: 10px; border-radius: 6px; }
pre.log .t { color: #6b7280; } pre.log .logger { color: #4e79a7; }
pre.log .lvl-ERROR { color: #c0392b; } pre.log .lvl-WARN { color: #b9770e; }
footer { color: #9ca3af; font-size: 12px; margin-top: 18px; }
)css";

}  // namespace

void WriteHtmlReport(const json& result, std::ostream& out) {
  Model m = ReadModel(result);
  ChartContext ctx;
  ctx.model = &m;
  for (const auto& e : m.events) {
    if (e.type != "DisruptionDecision" && e.type != "Interruption") continue;
    std::string text = e.type + " at " + Elapsed(e.t);
    for (const char* key : {"reason", "method", "kind", "node", "nodes", "candidates"}) {
      if (const json* v = Find(*e.raw, key)) text += "\n" + std::string(key) + ": " + Text(*v);
    }
    bool interruption = e.type == "Interruption";
    ctx.markers.push_back({e.t, interruption ? "interruption" : "disruption decision",
                           interruption ? kInterruptionColor : kDecisionColor, text});
  }

  std::string scenario = StringOr(result, "scenario", "");
  std::string start = StringOr(result, "start", "");
  std::string title = "Simulation report" + (scenario.empty() ? "" : ": " + scenario);

  std::string page;
  page +=
      "<!DOCTYPE html>\n<html lang=\"en\">\n<head>\n<meta charset=\"utf-8\">\n"
      "<meta name=\"viewport\" content=\"width=device-width, initial-scale=1\">\n<title>" +
      Escape(title) + "</title>\n<style>" + std::string(kStyle) +
      "</style>\n</head>\n<body>\n<main>\n";
  page += "<header><h1>Simulation report";
  if (!scenario.empty()) page += ": <span class=\"scenario\">" + Escape(scenario) + "</span>";
  page += "</h1><div class=\"meta\">";
  std::string meta;
  if (m.samples.empty() && m.events.empty()) {
    meta = "No samples or events in this result";
  } else {
    meta = Elapsed(m.t1 - m.t0) + " of virtual time";
    if (!start.empty()) meta += " from " + start;
    meta += " · " + std::to_string(m.samples.size()) + " samples · " +
            std::to_string(m.events.size()) + " events";
  }
  page += Escape(meta) + "</div></header>\n";
  page += SummaryCards(result) + "\n";

  auto panel = [&](const std::string& heading, const std::string& hint, const std::string& body) {
    page += "<section class=\"panel\"><h2>" + Escape(heading) + "</h2>";
    if (!hint.empty()) page += "<p class=\"hint\">" + Escape(hint) + "</p>";
    page += body + "</section>\n";
  };
  const std::string marker_hint =
      ctx.markers.empty() ? ""
                          : "Ticks above each chart mark disruption decisions and interruptions. ";
  panel("Nodes by instance type", marker_hint + "Hover a chart for the values at that time.",
        NodesChart(ctx));
  double peak_price = 0, peak_pending = 0;
  for (const auto& s : m.samples) {
    peak_price = std::max(peak_price, s.price);
    peak_pending = std::max(peak_pending, s.pending);
  }
  panel("Cost per hour", "",
        SeriesChart(
            ctx, "chart-cost", "Cost per hour over time", "price per hour", "#59a14f",
            ValueScale(peak_price, false, "$"), [](const Sample& s) { return s.price; },
            [](double v) { return Money(v) + "/h"; }));
  panel("Pending pods", "",
        SeriesChart(
            ctx, "chart-pending", "Pending pods over time", "pending pods", "#f28e2b",
            ValueScale(peak_pending, true, ""), [](const Sample& s) { return s.pending; },
            [](double v) { return Fixed(v, 0); }));
  panel("Utilisation", "CPU and memory utilisation across the nodes.", UtilizationChart(ctx));
  panel("Disruption decisions",
        "What nodesmith took away and why, what it launched instead, and what that saves per "
        "hour; interruptions are the cloud's notices.",
        DisruptionDecisions(m));
  panel("Decision log", "", DecisionLog(m));
  panel("Timeline events", "", EventCounts(m));
  page += ControllerLog(result);
  page +=
      "<footer>nodesmith simulate — virtual time; times are elapsed since the scenario "
      "started.</footer>\n";
  page += "</main>\n</body>\n</html>\n";
  out.write(page.data(), static_cast<std::streamsize>(page.size()));
}

}  // namespace nodesmith::sim
