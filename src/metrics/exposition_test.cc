#include "metrics/exposition.h"

#include <gtest/gtest.h>

#include <cmath>
#include <limits>

namespace nodesmith::metrics {
namespace {

TEST(FormatFloat, MatchesGoStrconvG) {
  const std::pair<double, const char*> cases[] = {
      {0, "0"},
      {-0.0, "0"},
      {1, "1"},
      {-1, "-1"},
      {0.005, "0.005"},
      {0.1, "0.1"},
      {2.5, "2.5"},
      {60, "60"},
      {600, "600"},
      {86400, "86400"},
      {123456, "123456"},
      {1e6, "1e+06"},
      {1234567, "1.234567e+06"},
      {2592000, "2.592e+06"},
      {8192, "8192"},
      {0.0001, "0.0001"},
      {0.00001, "1e-05"},
      {-0.00012345, "-0.00012345"},
      {1.0 / 3, "0.3333333333333333"},
      {0.1 + 0.2, "0.30000000000000004"},
      {1e21, "1e+21"},
      {1.5e300, "1.5e+300"},
      {5e-324, "5e-324"},
      {1.7976931348623157e308, "1.7976931348623157e+308"},
      {std::numeric_limits<double>::infinity(), "+Inf"},
      {-std::numeric_limits<double>::infinity(), "-Inf"},
      {std::nan(""), "NaN"},
  };
  for (const auto& [v, want] : cases) EXPECT_EQ(FormatFloat(v), want) << v;
}

TEST(Escape, LabelValuesAndHelp) {
  EXPECT_EQ(EscapeLabelValue(R"(a\b"c)"
                             "\nd"),
            R"(a\\b\"c\nd)");
  EXPECT_EQ(EscapeHelp(R"(say "hi" \ )"
                       "\nbye"),
            R"(say "hi" \\ \nbye)");
  EXPECT_EQ(EscapeLabelValue("caf\xc3\xa9"), "caf\xc3\xa9");
}

TEST(TextFormat, ContentType) {
  EXPECT_EQ(kTextContentType, "text/plain; version=0.0.4; charset=utf-8");
}

TEST(TextFormat, Golden) {
  Registry r;
  // Registered out of order, with label names not in alphabetical order.
  auto gauge = r.AddGauge(
      {"b_gauge", "A gauge with \"quotes\" and a \\ backslash.\nLine 2.", {"zone", "nodepool"}});
  auto counter = r.AddCounter({"a_total", "Counts.", {"reason"}});
  auto histogram = r.AddHistogram({"c_seconds", "Durations.", {"controller"}}, {0.5, 1, 2.5e6});
  auto summary = r.AddSummary({"d_seconds", "Quantiles.", {}}, {{0, 0.5, 1}});
  auto empty = r.AddCounter({"e_total", "Never touched.", {"x"}});
  auto plain = r.AddGauge({"f_info", "", {}});
  ASSERT_TRUE(gauge.ok() && counter.ok() && histogram.ok() && summary.ok() && empty.ok() &&
              plain.ok());

  (*gauge)->WithLabelValues({"us-west-2b", "default"}).Set(1.5);
  (*gauge)->WithLabelValues({"us-west-2a", "gpu"}).Set(-2);
  (*gauge)->WithLabelValues({"us-west-2a", "default"}).Set(1e6);
  (*gauge)->WithLabelValues({"weird \"zone\"\n\\", "default"}).Set(NAN);
  (*counter)->WithLabelValues({"provisioned"}).Add(3);
  (*counter)->WithLabelValues({"expired"}).Inc();
  Histogram h = (*histogram)->WithLabelValues({"provisioner"});
  h.Observe(0.25);
  h.Observe(2);
  (*summary)->WithLabelValues({}).Observe(4);
  (*summary)->WithLabelValues({}).Observe(8);
  (*plain)->WithLabelValues({}).Set(1);

  const std::string want = R"(# HELP a_total Counts.
# TYPE a_total counter
a_total{reason="expired"} 1
a_total{reason="provisioned"} 3
# HELP b_gauge A gauge with "quotes" and a \\ backslash.\nLine 2.
# TYPE b_gauge gauge
b_gauge{nodepool="default",zone="us-west-2a"} 1e+06
b_gauge{nodepool="default",zone="us-west-2b"} 1.5
b_gauge{nodepool="default",zone="weird \"zone\"\n\\"} NaN
b_gauge{nodepool="gpu",zone="us-west-2a"} -2
# HELP c_seconds Durations.
# TYPE c_seconds histogram
c_seconds_bucket{controller="provisioner",le="0.5"} 1
c_seconds_bucket{controller="provisioner",le="1"} 1
c_seconds_bucket{controller="provisioner",le="2.5e+06"} 2
c_seconds_bucket{controller="provisioner",le="+Inf"} 2
c_seconds_sum{controller="provisioner"} 2.25
c_seconds_count{controller="provisioner"} 2
# HELP d_seconds Quantiles.
# TYPE d_seconds summary
d_seconds{quantile="0"} 4
d_seconds{quantile="0.5"} 4
d_seconds{quantile="1"} 8
d_seconds_sum 12
d_seconds_count 2
# HELP f_info 
# TYPE f_info gauge
f_info 1
)";
  EXPECT_EQ(TextFormat(r), want);
  // Deterministic: the same state gives the same bytes.
  EXPECT_EQ(TextFormat(r), TextFormat(r.Gather()));
}

TEST(TextFormat, EmptyRegistryIsEmpty) {
  Registry r;
  ASSERT_TRUE(r.AddGauge({"g", "h", {}}).ok());
  EXPECT_EQ(TextFormat(r), "");
}

}  // namespace
}  // namespace nodesmith::metrics
