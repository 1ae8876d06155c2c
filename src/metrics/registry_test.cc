#include "metrics/registry.h"

#include <gmock/gmock.h>
#include <gtest/gtest.h>

#include <cmath>
#include <thread>
#include <vector>

namespace nodesmith::metrics {
namespace {

using ::testing::ElementsAre;
using ::testing::HasSubstr;

CounterFamily* MustCounter(Registry& r, std::string name, std::vector<std::string> labels) {
  auto f = r.AddCounter({std::move(name), "help", std::move(labels)});
  EXPECT_TRUE(f.ok()) << f.status().message();
  return f.ok() ? *f : nullptr;
}

TEST(Registry, CounterCountsUpOnly) {
  Registry r;
  CounterFamily* f = MustCounter(r, "requests_total", {"code"});
  Counter c = f->WithLabelValues({"200"});
  c.Inc();
  c.Add(2.5);
  c.Add(-10);  // ignored: counters never go down
  c.Add(NAN);  // ignored
  EXPECT_DOUBLE_EQ(c.Value(), 3.5);
  // The same label values give the same series.
  EXPECT_DOUBLE_EQ(f->WithLabelValues({"200"}).Value(), 3.5);
  EXPECT_DOUBLE_EQ(f->With({{"code", "200"}}).Value(), 3.5);
  EXPECT_EQ(f->size(), 1u);
}

TEST(Registry, GaugeMovesBothWays) {
  Registry r;
  auto f = r.AddGauge({"queue_depth", "help", {}});
  ASSERT_TRUE(f.ok());
  Gauge g = (*f)->WithLabelValues({});
  g.Set(10);
  g.Inc();
  g.Dec();
  g.Dec();
  g.Sub(0.5);
  g.Add(-1.5);
  EXPECT_DOUBLE_EQ(g.Value(), 7);
}

TEST(Registry, LabelMismatchIsAnErrorNotACrash) {
  Registry r;
  CounterFamily* f = MustCounter(r, "created_total", {"nodepool", "zone"});
  auto one = f->Get(LabelValues{"a"});
  ASSERT_FALSE(one.ok());
  EXPECT_EQ(one.status().code(), core::StatusCode::kInvalidArgument);
  EXPECT_THAT(one.status().message(), HasSubstr("created_total"));
  EXPECT_THAT(one.status().message(), HasSubstr("(nodepool, zone)"));

  auto unknown = f->Get(Labels{{"nodepool", "a"}, {"region", "x"}});
  ASSERT_FALSE(unknown.ok());
  EXPECT_THAT(unknown.status().message(), HasSubstr("zone is missing"));
  auto extra = f->Get(Labels{{"nodepool", "a"}, {"zone", "z"}, {"region", "x"}});
  ASSERT_FALSE(extra.ok());
  EXPECT_THAT(extra.status().message(), HasSubstr("region is not one of"));

  // The convenience lookups give a detached handle and count the refusal.
  Counter detached = f->WithLabelValues({"a", "b", "c"});
  EXPECT_FALSE(detached.attached());
  detached.Inc();  // no effect, no crash
  EXPECT_EQ(detached.Value(), 0);
  f->With({{"zone", "z"}}).Inc();
  EXPECT_EQ(f->label_errors(), 2u);
  EXPECT_EQ(f->size(), 0u);
  EXPECT_TRUE(r.Gather().empty());
}

TEST(Registry, LabelValuesMustBeUtf8) {
  Registry r;
  CounterFamily* f = MustCounter(r, "x_total", {"name"});
  EXPECT_TRUE(f->Get(LabelValues{"caf\xc3\xa9 \xf0\x9f\x9a\x80"}).ok());
  for (std::string bad : {"\xff", "\xc3", "\xc0\xaf", "\xed\xa0\x80", "ab\xe2\x82"}) {
    auto h = f->Get(LabelValues{bad});
    ASSERT_FALSE(h.ok()) << bad;
    EXPECT_THAT(h.status().message(), HasSubstr("not valid UTF-8"));
  }
}

TEST(Registry, RegisteringANameTwiceIsAnError) {
  Registry r;
  MustCounter(r, "karpenter_nodes_created_total", {"nodepool"});
  auto again = r.AddGauge({"karpenter_nodes_created_total", "other", {}});
  ASSERT_FALSE(again.ok());
  EXPECT_EQ(again.status().code(), core::StatusCode::kAlreadyExists);
  EXPECT_THAT(again.status().message(), HasSubstr("already registered"));

  // Names whose samples would collide in the text format are refused too.
  ASSERT_TRUE(r.AddHistogram({"latency_seconds", "h", {}}, {1, 2}).ok());
  auto count = r.AddCounter({"latency_seconds_count", "c", {}});
  ASSERT_FALSE(count.ok());
  EXPECT_THAT(count.status().message(), HasSubstr("taken by metric latency_seconds"));
  auto summary = r.AddSummary({"latency", "s", {}}, {{0.5}});
  EXPECT_TRUE(summary.ok());  // latency, latency_sum, latency_count do not collide
  auto bucket = r.AddGauge({"latency_seconds_bucket", "g", {}});
  EXPECT_FALSE(bucket.ok());
}

TEST(Registry, RejectsBadNamesLabelsAndBuckets) {
  Registry r;
  EXPECT_FALSE(r.AddCounter({"", "h", {}}).ok());
  EXPECT_FALSE(r.AddCounter({"1abc", "h", {}}).ok());
  EXPECT_FALSE(r.AddCounter({"a-b", "h", {}}).ok());
  EXPECT_TRUE(r.AddCounter({"ns:sub_name_total", "h", {}}).ok());
  EXPECT_FALSE(r.AddGauge({"g1", "h", {"__reserved"}}).ok());
  EXPECT_FALSE(r.AddGauge({"g2", "h", {"a:b"}}).ok());
  EXPECT_FALSE(r.AddGauge({"g3", "h", {"a", "a"}}).ok());
  EXPECT_FALSE(r.AddGauge({"g4", "bad \xff help", {}}).ok());
  EXPECT_TRUE(r.AddGauge({"g5", "h", {"le", "quantile"}}).ok());  // only reserved per type
  EXPECT_FALSE(r.AddHistogram({"h1", "h", {"le"}}, {1}).ok());
  EXPECT_FALSE(r.AddSummary({"s1", "h", {"quantile"}}, {{0.5}}).ok());
  EXPECT_FALSE(r.AddHistogram({"h2", "h", {}}, {2, 1}).ok());
  EXPECT_FALSE(r.AddHistogram({"h3", "h", {}}, {1, 1}).ok());
  EXPECT_FALSE(r.AddHistogram({"h4", "h", {}}, {NAN}).ok());
  EXPECT_FALSE(r.AddSummary({"s2", "h", {}}, {{1.5}}).ok());
  EXPECT_FALSE(r.AddSummary({"s3", "h", {}}, {{0.5, 0.5}}).ok());
  // A trailing +Inf is implied and dropped.
  auto h5 = r.AddHistogram({"h5", "h", {}}, {1, 2, INFINITY});
  ASSERT_TRUE(h5.ok());
  EXPECT_THAT((*h5)->bounds(), ElementsAre(1, 2));
  EXPECT_EQ(r.Find("h5"), *h5);
  EXPECT_EQ(r.Find("nope"), nullptr);
}

TEST(Registry, DeleteAndResetRemoveSeries) {
  Registry r;
  auto f = r.AddGauge({"karpenter_nodes_allocatable", "h", {"node_name", "resource_type"}});
  ASSERT_TRUE(f.ok());
  GaugeFamily* g = *f;
  g->WithLabelValues({"n1", "cpu"}).Set(4);
  g->WithLabelValues({"n1", "memory"}).Set(8);
  g->WithLabelValues({"n2", "cpu"}).Set(2);
  g->WithLabelValues({"n3", "cpu"}).Set(2);
  EXPECT_EQ(g->size(), 4u);

  EXPECT_TRUE(g->Delete(LabelValues{"n3", "cpu"}));
  EXPECT_FALSE(g->Delete(LabelValues{"n3", "cpu"}));
  EXPECT_FALSE(g->Delete(LabelValues{"n3"}));
  EXPECT_EQ(g->DeleteMatching({{"node_name", "n1"}}), 2u);
  EXPECT_EQ(g->DeleteMatching({{"unknown", "n2"}}), 0u);
  ASSERT_EQ(g->size(), 1u);
  EXPECT_TRUE(g->Delete(Labels{{"node_name", "n2"}, {"resource_type", "cpu"}}));
  EXPECT_EQ(g->size(), 0u);

  // A handle to a deleted series does not bring it back; a new lookup starts from zero.
  Gauge stale = g->WithLabelValues({"n4", "cpu"});
  stale.Set(5);
  g->Reset();
  stale.Set(6);
  EXPECT_EQ(g->size(), 0u);
  EXPECT_TRUE(r.Gather().empty());
  EXPECT_EQ(g->WithLabelValues({"n4", "cpu"}).Value(), 0);
}

TEST(Registry, HistogramBucketsAreCumulative) {
  Registry r;
  auto f = r.AddHistogram({"duration_seconds", "h", {"controller"}}, {0.1, 1, 10});
  ASSERT_TRUE(f.ok());
  Histogram h = (*f)->WithLabelValues({"provisioner"});
  for (double v : {0.05, 0.1, 0.5, 1.0, 5.0, 50.0, std::nan("")}) h.Observe(v);
  auto families = r.Gather();
  ASSERT_EQ(families.size(), 1u);
  ASSERT_EQ(families[0].series.size(), 1u);
  const SeriesSnapshot& s = families[0].series[0];
  // le=0.1 holds 0.05 and 0.1 (the bound is inclusive); NaN only counts in +Inf.
  EXPECT_THAT(s.buckets, ElementsAre(2, 4, 5, 7));
  EXPECT_EQ(s.count, 7u);
  EXPECT_TRUE(std::isnan(s.sum));
  EXPECT_THAT(families[0].bounds, ElementsAre(0.1, 1, 10));
}

TEST(Registry, SummaryQuantilesOverTheLatestObservations) {
  Registry r;
  auto f = r.AddSummary({"startup_seconds", "h", {}}, {{0, 0.5, 0.9, 0.99, 1}});
  ASSERT_TRUE(f.ok());
  Summary s = (*f)->WithLabelValues({});
  auto first = r.Gather();
  ASSERT_EQ(first.size(), 1u);
  for (double q : first[0].series[0].quantiles) EXPECT_TRUE(std::isnan(q));
  for (int i = 100; i >= 1; --i) s.Observe(i);
  auto snap = r.Gather()[0].series[0];
  EXPECT_THAT(snap.quantiles, ElementsAre(1, 50, 90, 99, 100));
  EXPECT_EQ(snap.count, 100u);
  EXPECT_DOUBLE_EQ(snap.sum, 5050);
}

TEST(Registry, SummaryWindowsAgeWithTheClock) {
  core::FakeClock clock(core::Time::FromUnixSeconds(1'700'000'000));
  Registry r;
  SummaryOptions o;
  o.quantiles = {0.5};
  o.max_age = std::chrono::minutes(10);
  o.age_buckets = 5;
  o.clock = &clock;
  auto f = r.AddSummary({"s", "h", {}}, o);
  ASSERT_TRUE(f.ok());
  Summary s = (*f)->WithLabelValues({});
  s.Observe(100);
  clock.Step(std::chrono::minutes(3));
  s.Observe(1);
  s.Observe(2);
  EXPECT_THAT(r.Gather()[0].series[0].quantiles, ElementsAre(2));
  clock.Step(std::chrono::minutes(8));  // 100 is 11 minutes old: gone; 1 and 2 are 8 minutes old
  EXPECT_THAT(r.Gather()[0].series[0].quantiles, ElementsAre(1));
  clock.Step(std::chrono::minutes(30));
  auto snap = r.Gather()[0].series[0];
  EXPECT_TRUE(std::isnan(snap.quantiles[0]));
  EXPECT_EQ(snap.count, 3u);  // _count and _sum never age
  EXPECT_DOUBLE_EQ(snap.sum, 103);
}

TEST(Registry, BucketHelpersMatchTheGoClient) {
  EXPECT_THAT(ExponentialBuckets(1, 2, 4), ElementsAre(1, 2, 4, 8));
  EXPECT_THAT(LinearBuckets(0, 5, 3), ElementsAre(0, 5, 10));
  EXPECT_EQ(DefaultBuckets().size(), 11u);
}

// Many threads increment one counter, create series and observe while another gathers: every
// increment is counted exactly once.
TEST(Registry, ConcurrentUpdatesAreExact) {
  Registry r;
  CounterFamily* c = MustCounter(r, "reconcile_total", {"controller", "result"});
  auto hf = r.AddHistogram({"reconcile_seconds", "h", {"controller"}}, {0.5, 1});
  auto gf = r.AddGauge({"workers", "h", {"controller"}});
  ASSERT_TRUE(hf.ok() && gf.ok());
  constexpr int kThreads = 8;
  constexpr int kIters = 20000;
  Counter shared = c->WithLabelValues({"shared", "success"});
  std::atomic<bool> done{false};
  std::thread gatherer([&] {
    while (!done.load()) (void)r.Gather();
  });
  std::vector<std::thread> threads;
  for (int t = 0; t < kThreads; ++t) {
    threads.emplace_back([&, t] {
      const std::string mine = "c" + std::to_string(t % 4);
      for (int i = 0; i < kIters; ++i) {
        shared.Inc();
        c->WithLabelValues({mine, i % 2 ? "error" : "success"}).Inc();
        (*hf)->WithLabelValues({mine}).Observe(i % 3 == 0 ? 0.25 : 2);
        (*gf)->WithLabelValues({mine}).Add(1);
      }
    });
  }
  for (auto& th : threads) th.join();
  done = true;
  gatherer.join();

  EXPECT_EQ(shared.Value(), kThreads * kIters);
  double per_controller = 0;
  for (const char* result : {"success", "error"}) {
    per_controller += c->WithLabelValues({"c0", result}).Value();
  }
  EXPECT_EQ(per_controller, 2 * kIters);
  EXPECT_EQ((*gf)->WithLabelValues({"c1"}).Value(), 2 * kIters);
  for (const auto& fam : r.Gather()) {
    if (fam.name != "reconcile_seconds") continue;
    ASSERT_EQ(fam.series.size(), 4u);
    for (const auto& s : fam.series) {
      EXPECT_EQ(s.count, 2u * kIters);
      EXPECT_EQ(s.buckets.back(), s.count);
      EXPECT_EQ(s.buckets[0], 2u * ((kIters + 2) / 3));
    }
  }
}

}  // namespace
}  // namespace nodesmith::metrics
