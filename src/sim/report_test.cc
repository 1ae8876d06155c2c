#include "sim/report.h"

#include <gmock/gmock.h>
#include <gtest/gtest.h>

#include <cctype>
#include <cmath>
#include <cstdlib>
#include <fstream>
#include <limits>
#include <map>
#include <nlohmann/json.hpp>
#include <set>
#include <sstream>
#include <string>

namespace nodesmith::sim {
namespace {

using nlohmann::json;
using ::testing::AllOf;
using ::testing::HasSubstr;
using ::testing::Not;

std::string Render(const json& result) {
  std::ostringstream out;
  WriteHtmlReport(result, out);
  return out.str();
}

// The markup of the element that starts with `open_tag_prefix`, through its closing tag.
std::string Element(const std::string& page, const std::string& open_tag_prefix,
                    const std::string& close_tag) {
  size_t begin = page.find(open_tag_prefix);
  if (begin == std::string::npos) return "";
  size_t end = page.find(close_tag, begin);
  return end == std::string::npos ? "" : page.substr(begin, end + close_tag.size() - begin);
}

std::string Svg(const std::string& page, const std::string& id) {
  return Element(page, "<svg id=\"" + id + "\"", "</svg>");
}

size_t Count(const std::string& text, const std::string& needle) {
  size_t n = 0;
  for (size_t at = text.find(needle); at != std::string::npos; at = text.find(needle, at + 1)) ++n;
  return n;
}

std::string Clock(double t) {
  int s = static_cast<int>(t);
  char buf[32];
  std::snprintf(buf, sizeof buf, "2025-01-01T%02d:%02d:%02dZ", s / 3600, s / 60 % 60, s % 60);
  return buf;
}

json At(double t, const std::string& type, json fields = json::object()) {
  fields["t"] = t;
  fields["time"] = Clock(t);
  fields["type"] = type;
  return fields;
}

// A 45-minute "inflate" run: a deployment scales up twice, a spot node is interrupted and
// replaced, the deployment is deleted, and consolidation removes the empty and underused nodes.
json SampleResult() {
  json events = json::array();
  auto add = [&](double t, const std::string& type, json fields = json::object()) {
    events.push_back(At(t, type, std::move(fields)));
  };
  for (int i = 0; i < 10; ++i)
    add(0, "PodPending", {{"pod", "default/inflate-" + std::to_string(i)}});
  add(1.5, "NodeClaimCreated",
      {{"nodeClaim", "default-x2k4q"}, {"nodePool", "default"}, {"instanceType", "c5.2xlarge"}});
  add(4.5, "NodeClaimLaunched",
      {{"nodeClaim", "default-x2k4q"}, {"instanceType", "c5.2xlarge"}, {"capacityType", "spot"}});
  add(24.5, "NodeRegistered", {{"node", "ip-192-168-1-1"}});
  add(300, "PodPending", {{"pod", "default/inflate-10"}});
  add(301.5, "NodeClaimCreated",
      {{"nodeClaim", "default-b7m2p"}, {"nodePool", "default"}, {"instanceType", "m5.xlarge"}});
  add(301.5, "NodeClaimCreated",
      {{"nodeClaim", "default-c9z8w"}, {"nodePool", "default"}, {"instanceType", "c5.4xlarge"}});
  add(304.5, "NodeClaimLaunched", {{"nodeClaim", "default-b7m2p"}, {"instanceType", "m5.xlarge"}});
  add(304.5, "NodeClaimLaunched", {{"nodeClaim", "default-c9z8w"}, {"instanceType", "c5.4xlarge"}});
  add(720, "Interruption",
      {{"node", "ip-192-168-1-1"}, {"kind", "spot"}, {"nodeClaim", "default-x2k4q"}});
  add(721, "NodeClaimCreated",
      {{"nodeClaim", "default-q4r5t"}, {"nodePool", "default"}, {"instanceType", "c5.2xlarge"}});
  add(724, "NodeClaimLaunched", {{"nodeClaim", "default-q4r5t"}, {"instanceType", "c5.2xlarge"}});
  add(745, "NodeClaimDeleted", {{"nodeClaim", "default-x2k4q"}});
  add(1530, "DisruptionDecision",
      {{"method", "emptiness"},
       {"reason", "Empty"},
       {"nodes", json::array({"ip-192-168-7-3"})},
       {"savingsPerHour", 0.68}});
  add(1560, "NodeClaimDeleted", {{"nodeClaim", "default-c9z8w"}});
  add(1800, "DisruptionDecision",
      {{"method", "multi-node"},
       {"reason", "Underutilized"},
       {"candidates", json::array({"ip-192-168-4-2", "ip-192-168-9-9"})},
       {"savingsPerHour", "0.42"}});
  add(1801, "NodeClaimCreated",
      {{"nodeClaim", "default-m1n2o"}, {"nodePool", "default"}, {"instanceType", "m5.large"}});
  add(1830, "NodeClaimDeleted", {{"nodeClaim", "default-q4r5t"}});
  add(1830, "NodeClaimDeleted", {{"nodeClaim", "default-b7m2p"}});

  const std::map<std::string, double> price = {
      {"c5.2xlarge", 0.1397}, {"m5.xlarge", 0.0762}, {"c5.4xlarge", 0.68}, {"m5.large", 0.096}};
  json samples = json::array();
  for (double t = 0; t <= 2700; t += 15) {
    std::map<std::string, double> nodes;
    if (t >= 4.5 && t < 745) nodes["c5.2xlarge"] += 1;
    if (t >= 304.5 && t < 1830) nodes["m5.xlarge"] += 1;
    if (t >= 304.5 && t < 1560) nodes["c5.4xlarge"] += 1;
    if (t >= 724 && t < 1830) nodes["c5.2xlarge"] += 1;
    if (t >= 1801) nodes["m5.large"] += 1;
    double pending = t < 30 ? 10 : (t >= 300 && t < 345) ? 20 : (t >= 720 && t < 750) ? 8 : 0;
    double per_hour = 0;
    for (const auto& [type, n] : nodes) per_hour += price.at(type) * n;
    double load = t < 1500 ? 0.55 + 0.2 * std::sin(t / 300) : t < 1800 ? 0.25 : 0.7;
    samples.push_back({{"t", t},
                       {"nodes", nodes},
                       {"pendingPods", pending},
                       {"pricePerHour", per_hour},
                       {"cpuUtilization", nodes.empty() ? 0.0 : load},
                       {"memoryUtilization", nodes.empty() ? 0.0 : load * 0.45}});
  }

  json log = json::array();
  log.push_back({{"t", 0.0},
                 {"time", Clock(0)},
                 {"level", "INFO"},
                 {"logger", "controller.provisioner"},
                 {"message", "found provisionable pod(s)"}});
  log.push_back({{"t", 1800.0},
                 {"time", Clock(1800)},
                 {"level", "INFO"},
                 {"logger", "controller.disruption"},
                 {"message", "disrupting via consolidation replace, terminating 2 nodes"}});

  return {{"kind", "SimulationResult"},
          {"scenario", "inflate"},
          {"start", "2025-01-01T00:00:00Z"},
          {"events", events},
          {"log", log},
          {"samples", samples},
          {"summary",
           {{"nodesLaunched", 5},
            {"nodesTerminated", 4},
            {"cost", 0.4125},
            {"nodeHours", 2.1},
            {"podStartLatencySeconds", {{"p50", 31}, {"p99", 33}}},
            {"avgCpuUtilization", 0.58},
            {"avgMemoryUtilization", 0.26},
            {"unschedulablePods", 0}}}};
}

TEST(HtmlReportTest, GivenSamplesEachChartDrawsPathsAndHoverColumns) {
  std::string page = Render(SampleResult());
  for (const char* id : {"chart-nodes", "chart-cost", "chart-pending", "chart-utilization"}) {
    SCOPED_TRACE(id);
    std::string svg = Svg(page, id);
    ASSERT_FALSE(svg.empty());
    EXPECT_THAT(svg, HasSubstr("<path"));
    EXPECT_THAT(svg, HasSubstr("<rect"));
    EXPECT_THAT(svg, Not(HasSubstr("No samples")));
  }
}

TEST(HtmlReportTest, GivenThreeInstanceTypesTheNodesChartStacksOneBandPerTypeWithALegend) {
  std::string nodes = Svg(Render(SampleResult()), "chart-nodes");
  EXPECT_EQ(Count(nodes, "class=\"band\""), 4u);  // c5.2xlarge, m5.xlarge, c5.4xlarge, m5.large
  for (const char* type : {"c5.2xlarge", "m5.xlarge", "c5.4xlarge", "m5.large"}) {
    EXPECT_THAT(nodes, HasSubstr(std::string(">") + type + "</text>")) << type;
  }
}

TEST(HtmlReportTest, GivenA45MinuteRunTheTimeAxisIsLabelledInMinutes) {
  std::string cost = Svg(Render(SampleResult()), "chart-cost");
  for (const char* label : {">0</text>", ">5m</text>", ">20m</text>", ">45m</text>"}) {
    EXPECT_THAT(cost, HasSubstr(label)) << label;
  }
}

TEST(HtmlReportTest, GivenAThreeHourRunTheTimeAxisIsLabelledInHours) {
  json result = {
      {"samples", {{{"t", 0}, {"pendingPods", 1}}, {{"t", 3 * 3600}, {"pendingPods", 0}}}}};
  std::string pending = Svg(Render(result), "chart-pending");
  EXPECT_THAT(pending, HasSubstr(">1h</text>"));
  EXPECT_THAT(pending, HasSubstr(">1h30m</text>"));
  EXPECT_THAT(pending, HasSubstr(">3h</text>"));
}

TEST(HtmlReportTest, GivenUtilisationFractionsTheAxisRunsFromZeroToOneHundredPercent) {
  std::string utilization = Svg(Render(SampleResult()), "chart-utilization");
  EXPECT_THAT(utilization, HasSubstr(">0%</text>"));
  EXPECT_THAT(utilization, HasSubstr(">100%</text>"));
  EXPECT_THAT(utilization, HasSubstr(">CPU</text>"));
  EXPECT_THAT(utilization, HasSubstr(">memory</text>"));
}

TEST(HtmlReportTest, GivenDecisionsEachChartMarksTheirTimes) {
  std::string page = Render(SampleResult());
  for (const char* id : {"chart-nodes", "chart-cost", "chart-pending", "chart-utilization"}) {
    SCOPED_TRACE(id);
    std::string svg = Svg(page, id);
    EXPECT_EQ(Count(svg, "<title>DisruptionDecision at "), 2u);
    EXPECT_EQ(Count(svg, "<title>Interruption at 12m"), 1u);
    EXPECT_THAT(svg, HasSubstr(">disruption decision</text>"));
  }
}

TEST(HtmlReportTest, GivenADisruptionDecisionTheDecisionLogListsItWithReasonAndSavings) {
  std::string table = Element(Render(SampleResult()), "<table id=\"decision-log\"", "</table>");
  ASSERT_FALSE(table.empty());
  EXPECT_THAT(table, HasSubstr("DisruptionDecision"));
  EXPECT_THAT(table, HasSubstr("Underutilized"));
  EXPECT_THAT(table, HasSubstr("multi-node"));
  EXPECT_THAT(table, HasSubstr("ip-192-168-4-2, ip-192-168-9-9"));
  EXPECT_THAT(table, HasSubstr("$0.42/h"));  // savings given as a string
  EXPECT_THAT(table, HasSubstr("$0.68/h"));  // and as a number
  EXPECT_THAT(table, HasSubstr("Interruption"));
  EXPECT_THAT(table, HasSubstr("NodeClaimLaunched"));
  // Pod lifecycle events belong to the timeline, not the decision log.
  EXPECT_THAT(table, Not(HasSubstr("PodPending")));
  EXPECT_THAT(table, Not(HasSubstr("NodeRegistered")));
}

TEST(HtmlReportTest, GivenDisruptionDecisionsTheirTableShowsWhatWasReplacedAndTheTotalSaving) {
  json result = {{"events",
                  {At(1200, "DisruptionDecision",
                      {{"method", "single-node"},
                       {"reason", "Underutilized"},
                       {"nodes", "ip-1"},
                       {"savingsPerHour", "0.1"}}),
                   At(1200, "NodeClaimCreated",
                      {{"nodeClaim", "default-r1"}, {"instanceType", "m5.large"}, {"replaces", "ip-1"}}),
                   At(1260, "NodeClaimCreated", {{"nodeClaim", "default-zz"}, {"replaces", "ip-9"}}),
                   At(1500, "DisruptionDecision",
                      {{"method", "drift"},
                       {"reason", "Drifted"},
                       {"nodes", "ip-2"},
                       {"replacements", "default-r2"},
                       {"savingsPerHour", 0}}),
                   At(1600, "DisruptionDecision",
                      {{"method", "multi-node"},
                       {"reason", "Underutilized"},
                       {"nodes", "ip-3,ip-4"},
                       {"savingsPerHour", 0.5}}),
                   At(1700, "DisruptionAbandoned", {{"nodes", "ip-3,ip-4"}, {"method", "multi-node"}}),
                   At(1800, "Interruption", {{"node", "ip-5"}, {"kind", "spot"}})}}};
  std::string table = Element(Render(result), "<table id=\"disruption-decisions\"", "</table>");
  ASSERT_FALSE(table.empty());
  std::string first = Element(table, "<tr class=\"ev-DisruptionDecision\">", "</tr>");
  EXPECT_THAT(first, HasSubstr(">20m<"));
  EXPECT_THAT(first, HasSubstr("single-node"));
  EXPECT_THAT(first, HasSubstr("Underutilized"));
  EXPECT_THAT(first, HasSubstr(">ip-1<"));
  EXPECT_THAT(first, HasSubstr(">default-r1 (m5.large)<"));  // found by `replaces`
  EXPECT_THAT(first, Not(HasSubstr("default-zz")));           // replaces another node
  EXPECT_THAT(first, HasSubstr("$0.10/h"));
  EXPECT_THAT(table, HasSubstr(">default-r2<"));  // named by the decision itself
  EXPECT_THAT(table, HasSubstr("abandoned"));
  EXPECT_THAT(Element(table, "<tr class=\"ev-Interruption\">", "</tr>"),
              AllOf(HasSubstr("interruption"), HasSubstr("spot"), HasSubstr("ip-5")));
  // The abandoned decision saves nothing.
  EXPECT_THAT(Element(table, "<tfoot>", "</tfoot>"),
              AllOf(HasSubstr("Total saving of 2 decisions"), HasSubstr("$0.10/h")));
}

TEST(HtmlReportTest, WithoutDecisionsTheDisruptionTableSaysSo) {
  std::string table = Element(Render(json::object()), "<table id=\"disruption-decisions\"", "</table>");
  EXPECT_THAT(table, HasSubstr("No disruption decisions"));
  EXPECT_THAT(table, HasSubstr("$0.00/h"));
}

TEST(HtmlReportTest, GivenTheSummaryTheHeaderShowsItsFiguresAsCards) {
  std::string page = Render(SampleResult());
  EXPECT_THAT(page, HasSubstr("<span class=\"scenario\">inflate</span>"));
  std::string cards = Element(page, "<section class=\"cards\"", "</section>");
  EXPECT_THAT(cards, HasSubstr("Nodes launched</div><div class=\"value\">5<"));
  EXPECT_THAT(cards, HasSubstr("Nodes terminated</div><div class=\"value\">4<"));
  EXPECT_THAT(cards, HasSubstr("Cost</div><div class=\"value\">$0.41<"));
  EXPECT_THAT(cards, HasSubstr("Node-hours</div><div class=\"value\">2.1<"));
  EXPECT_THAT(cards, HasSubstr(">31 s<span class=\"slash\"> / </span>33 s<"));
  EXPECT_THAT(cards, HasSubstr("Avg CPU utilisation</div><div class=\"value\">58%<"));
  EXPECT_THAT(cards, HasSubstr("Avg memory utilisation</div><div class=\"value\">26%<"));
  EXPECT_THAT(cards, HasSubstr("Unschedulable pods</div><div class=\"value\">0<"));
  EXPECT_THAT(cards, Not(HasSubstr("card bad")));
}

TEST(HtmlReportTest, GivenUnschedulablePodsTheirCardIsHighlighted) {
  json result = SampleResult();
  result["summary"]["unschedulablePods"] = 3;
  EXPECT_THAT(Element(Render(result), "<section class=\"cards\"", "</section>"),
              HasSubstr("<div class=\"card bad\"><div class=\"label\">Unschedulable pods</div><div "
                        "class=\"value\">3<"));
}

TEST(HtmlReportTest, GivenMarkupInNamesItIsEscaped) {
  json result = SampleResult();
  result["scenario"] = "<b>inflate</b>";
  result["events"].push_back(
      At(60, "NodeClaimCreated",
         {{"nodeClaim", "x\"y"}, {"pod", "default/<script>alert(1)</script>"}}));
  result["log"].push_back({{"t", 60},
                           {"level", "INFO"},
                           {"logger", "sim"},
                           {"message", "bound <script>alert(1)</script>"}});
  result["samples"][3]["nodes"]["<img src=x>"] = 1;
  std::string page = Render(result);
  EXPECT_THAT(page, Not(HasSubstr("<script")));
  EXPECT_THAT(page, Not(HasSubstr("<b>inflate")));
  EXPECT_THAT(page, Not(HasSubstr("<img")));
  EXPECT_THAT(page, HasSubstr("default/&lt;script&gt;alert(1)&lt;/script&gt;"));
  EXPECT_THAT(page, HasSubstr("x&quot;y"));
}

bool IsDecimal(const std::string& v) {
  size_t i = v.starts_with('-') ? 1 : 0;
  size_t digits = 0, point = std::string::npos;
  for (; i < v.size(); ++i) {
    if (v[i] == '.' && point == std::string::npos && digits > 0) {
      point = i;
    } else if (std::isdigit(static_cast<unsigned char>(v[i]))) {
      ++digits;
    } else {
      return false;
    }
  }
  return digits > 0 && point != v.size() - 1;
}

bool IsPathData(const std::string& v) {
  return v.find_first_not_of("MHVLZ0123456789. -") == std::string::npos;
}

// Whether `word` occurs in `text` as a whole word, ignoring case.
bool HasWord(const std::string& text, const std::string& word) {
  std::string lower = text;
  for (char& c : lower) c = static_cast<char>(std::tolower(static_cast<unsigned char>(c)));
  auto is_alpha = [](char c) { return std::isalpha(static_cast<unsigned char>(c)) != 0; };
  for (size_t at = lower.find(word); at != std::string::npos; at = lower.find(word, at + 1)) {
    bool starts = at == 0 || !is_alpha(lower[at - 1]);
    bool ends = at + word.size() == lower.size() || !is_alpha(lower[at + word.size()]);
    if (starts && ends) return true;
  }
  return false;
}

// Every geometric attribute is a plain decimal, every path only commands and numbers.
void ExpectOnlyFiniteGeometry(const std::string& page) {
  const std::set<std::string> kGeometry = {"x",  "y",     "x1",     "x2", "y1",
                                           "y2", "width", "height", "d"};
  size_t checked = 0;
  for (size_t eq = page.find("=\""); eq != std::string::npos; eq = page.find("=\"", eq + 1)) {
    size_t name_start = page.rfind(' ', eq);
    if (name_start == std::string::npos) continue;
    std::string name = page.substr(name_start + 1, eq - name_start - 1);
    if (!kGeometry.contains(name)) continue;
    size_t end = page.find('"', eq + 2);
    ASSERT_NE(end, std::string::npos);
    std::string value = page.substr(eq + 2, end - eq - 2);
    EXPECT_TRUE(name == "d" ? IsPathData(value) : IsDecimal(value))
        << name << "=\"" << value << "\"";
    ++checked;
  }
  EXPECT_GT(checked, 0u);
  for (const char* word : {"nan", "inf", "infinity"}) EXPECT_FALSE(HasWord(page, word)) << word;
}

TEST(HtmlReportTest, GivenNonFiniteAndDegenerateValuesTheGeometryStaysFinite) {
  const double nan = std::numeric_limits<double>::quiet_NaN();
  const double inf = std::numeric_limits<double>::infinity();
  json result = {{"samples",
                  {{{"t", 5},
                    {"nodes", {{"c5.large", nan}}},
                    {"pendingPods", inf},
                    {"pricePerHour", nan},
                    {"cpuUtilization", -inf},
                    {"memoryUtilization", 7}},
                   {{"t", 5},
                    {"nodes", {{"c5.large", 1e308}}},
                    {"pendingPods", "lots"},
                    {"pricePerHour", -3}}}},
                 {"events",
                  {{{"t", nan}, {"type", "DisruptionDecision"}, {"savingsPerHour", inf}},
                   {{"t", -1e308}, {"type", "Interruption"}},
                   {{"t", 1e308}, {"type", "NodeClaimCreated"}}}},
                 {"summary", {{"cost", nan}, {"nodeHours", inf}}}};
  ExpectOnlyFiniteGeometry(Render(result));
}

TEST(HtmlReportTest, GivenTheSampleRunTheGeometryIsFinite) {
  ExpectOnlyFiniteGeometry(Render(SampleResult()));
}

TEST(HtmlReportTest, GivenAnEmptyResultThePageStillHasEveryChartWithANoDataNote) {
  for (const json& result : {json::object(),
                             json{{"kind", "SimulationResult"},
                                  {"events", json::array()},
                                  {"samples", json::array()},
                                  {"summary", json::object()}},
                             json(), json::array()}) {
    SCOPED_TRACE(result.dump());
    std::string page = Render(result);
    for (const char* id : {"chart-nodes", "chart-cost", "chart-pending", "chart-utilization"}) {
      std::string svg = Svg(page, id);
      EXPECT_THAT(svg, HasSubstr("No samples")) << id;
      EXPECT_THAT(svg, Not(HasSubstr("<path"))) << id;
    }
    EXPECT_THAT(Element(page, "<table id=\"decision-log\"", "</table>"), HasSubstr("No decisions"));
    EXPECT_THAT(page, HasSubstr("&mdash;"));  // summary figures absent
    EXPECT_THAT(page, HasSubstr("</html>"));
    ExpectOnlyFiniteGeometry(page);
  }
}

TEST(HtmlReportTest, GivenOnlyEventsTheTimeAxisSpansThemAndChartsSayNoData) {
  json result = {
      {"events", {At(600, "DisruptionDecision", {{"reason", "Drifted"}, {"method", "drift"}})}}};
  std::string page = Render(result);
  std::string nodes = Svg(page, "chart-nodes");
  EXPECT_THAT(nodes, HasSubstr("No samples"));
  EXPECT_THAT(nodes, HasSubstr(">10m</text>"));
  EXPECT_THAT(Element(page, "<table id=\"decision-log\"", "</table>"), HasSubstr("Drifted"));
}

TEST(HtmlReportTest, GivenTheSameResultTheOutputIsByteIdentical) {
  EXPECT_EQ(Render(SampleResult()), Render(SampleResult()));
}

TEST(HtmlReportTest, ThePageIsSelfContained) {
  std::string page = Render(SampleResult());
  EXPECT_THAT(page, HasSubstr("<style>"));
  // The only URL is the SVG namespace, which browsers never fetch.
  std::string without_ns = page;
  const std::string kSvgNamespace = "xmlns=\"http://www.w3.org/2000/svg\"";
  for (size_t at = without_ns.find(kSvgNamespace); at != std::string::npos;
       at = without_ns.find(kSvgNamespace, at)) {
    without_ns.erase(at, kSvgNamespace.size());
  }
  EXPECT_THAT(without_ns, Not(HasSubstr("http")));
  EXPECT_THAT(page, Not(HasSubstr("<link")));
  EXPECT_THAT(page, Not(HasSubstr("src=\"")));
  EXPECT_THAT(page, Not(HasSubstr("@import")));
  EXPECT_THAT(page, Not(HasSubstr("url(")));
  EXPECT_EQ(Count(page, "<svg "), 4u);
  EXPECT_EQ(Count(page, "</svg>"), 4u);

  // Writes the page for tests/report_screenshot.sh when asked to.
  if (const char* path = std::getenv("NODESMITH_REPORT_SAMPLE_OUT")) {
    std::ofstream(path) << page;
  }
}

}  // namespace
}  // namespace nodesmith::sim
