#include "metrics/karpenter_metrics.h"

#include <gmock/gmock.h>
#include <gtest/gtest.h>

#include <cstdlib>
#include <fstream>

#include "core/version.h"
#include "metrics/exposition.h"

namespace nodesmith::metrics {
namespace {

using ::testing::ElementsAre;
using ::testing::HasSubstr;
using ::testing::IsSupersetOf;

std::unique_ptr<KarpenterMetrics> MustCreate(Registry& r, KarpenterMetricsOptions o = {}) {
  auto m = KarpenterMetrics::Create(&r, o);
  EXPECT_TRUE(m.ok()) << m.status().message();
  return m.ok() ? std::move(m).value() : nullptr;
}

const FamilySnapshot* FindFamily(const std::vector<FamilySnapshot>& all, const std::string& n) {
  for (const auto& f : all) {
    if (f.name == n) return &f;
  }
  return nullptr;
}

TEST(KarpenterMetrics, BuildInfoAndZeroSeriesAtStart) {
  Registry r;
  auto m = MustCreate(r, {.commit = "abc1234"});
  ASSERT_NE(m, nullptr);
  const auto all = r.Gather();
  const FamilySnapshot* info = FindFamily(all, "karpenter_build_info");
  ASSERT_NE(info, nullptr);
  EXPECT_THAT(info->label_names, ElementsAre("version", "goversion", "goarch", "commit"));
  ASSERT_EQ(info->series.size(), 1u);
  EXPECT_EQ(info->series[0].label_values[0], core::kVersion);
  EXPECT_EQ(info->series[0].label_values[3], "abc1234");
  EXPECT_EQ(info->series[0].value, 1);
  const FamilySnapshot* timeouts =
      FindFamily(all, "karpenter_voluntary_disruption_consolidation_timeouts_total");
  ASSERT_NE(timeouts, nullptr);
  ASSERT_EQ(timeouts->series.size(), 2u);
  EXPECT_EQ(timeouts->series[0].label_values[0], "multi");
  EXPECT_EQ(timeouts->series[1].label_values[0], "single");
  // The provisioner reports unschedulable pods when their number changes from 0: the gauge is
  // there at 0 from the start.
  const FamilySnapshot* unschedulable =
      FindFamily(all, "karpenter_scheduler_unschedulable_pods_count");
  ASSERT_NE(unschedulable, nullptr);
  ASSERT_EQ(unschedulable->series.size(), 1u);
  EXPECT_EQ(unschedulable->series[0].label_values[0], "provisioner");
  EXPECT_EQ(unschedulable->series[0].value, 0);
  EXPECT_EQ(all.size(), 3u);  // nothing else is exported before it happens
}

TEST(KarpenterMetrics, CreatingTwiceInOneRegistryFails) {
  Registry r;
  MustCreate(r);
  auto again = KarpenterMetrics::Create(&r);
  ASSERT_FALSE(again.ok());
  EXPECT_EQ(again.status().code(), core::StatusCode::kAlreadyExists);
}

TEST(KarpenterMetrics, BucketsAreKarpenters) {
  Registry r;
  auto m = MustCreate(r);
  const auto duration = KarpenterDurationBuckets();
  ASSERT_EQ(duration.size(), 45u);
  EXPECT_EQ(duration.front(), 0.005);
  EXPECT_EQ(duration.back(), 600);
  EXPECT_EQ(m->scheduler_scheduling_duration_seconds->bounds(), duration);
  EXPECT_EQ(m->pods_scheduling_decision_duration_seconds->bounds(), duration);
  EXPECT_EQ(m->interruption_message_queue_duration_seconds->bounds(), duration);
  EXPECT_EQ(m->cloudprovider_duration_seconds->bounds(), DefaultBuckets());
  const auto& reconcile = m->controller_runtime_reconcile_time_seconds->bounds();
  ASSERT_EQ(reconcile.size(), 40u);
  EXPECT_EQ(reconcile.back(), 60);
  const auto& transition = m->nodeclaim_status_condition_transition_seconds->bounds();
  ASSERT_EQ(transition.size(), 15u);
  EXPECT_EQ(transition.front(), 0.5);
  EXPECT_EQ(transition.back(), 8192);
  EXPECT_EQ(m->nodeclaims_termination_duration_seconds->bounds().back(), 2048);
  EXPECT_EQ(m->nodeclaims_instance_termination_duration_seconds->bounds().back(), 1024);
  EXPECT_EQ(m->nodes_lifetime_duration_seconds->bounds().size(), 21u);
  EXPECT_THAT(m->pods_startup_duration_seconds->options().quantiles,
              ElementsAre(0, 0.5, 0.9, 0.99, 1));
}

TEST(KarpenterMetrics, StatusConditionLabelsNameTheNodeClassAndPool) {
  Registry r;
  auto m = MustCreate(r, {.node_class_label_keys = {"karpenter.kwok.sh/kwoknodeclass"}});
  EXPECT_THAT(m->nodeclaim_status_condition_count->label_names(),
              ElementsAre("namespace", "name", "type", "status", "reason",
                          "karpenter_kwok_sh_kwoknodeclass", "karpenter_sh_nodepool"));
  EXPECT_THAT(
      m->nodeclaim_status_condition_transition_seconds->label_names(),
      ElementsAre("type", "status", "karpenter_kwok_sh_kwoknodeclass", "karpenter_sh_nodepool"));
}

TEST(NodeLabels, DerivedFromWellKnownLabels) {
  EXPECT_EQ(NodeMetricLabelName("node.kubernetes.io/instance-type"), "instance_type");
  EXPECT_EQ(NodeMetricLabelName("karpenter.sh/capacity-type"), "capacity_type");
  EXPECT_EQ(NodeMetricLabelName("topology.k8s.aws/zone-id"), "zone_id");
  EXPECT_EQ(NodeMetricLabelName("Example.com/Mixed-Case"), "mixed_case");
  EXPECT_EQ(NodeMetricLabelName("no-domain"), "");
  EXPECT_EQ(ResourceTypeLabelValue("ephemeral-storage"), "ephemeral_storage");
  EXPECT_EQ(ResourceTypeLabelValue("nvidia.com/gpu"), "nvidia.com/gpu");
  EXPECT_EQ(StatusConditionLabelName("karpenter.k8s.aws/ec2nodeclass"),
            "karpenter_k8s_aws_ec2nodeclass");

  Registry r;
  auto m = MustCreate(r);
  EXPECT_THAT(m->node_label_names(),
              ElementsAre("arch", "capacity_type", "instance_type", "managed", "node_name",
                          "nodepool", "os", "phase", "region", "windows_build", "zone"));
  const Labels node = {{"karpenter.sh/nodepool", "default"},
                       {"topology.kubernetes.io/zone", "us-west-2a"},
                       {"node.kubernetes.io/instance-type", "m5.large"},
                       {"kubernetes.io/arch", "amd64"},
                       {"kubernetes.io/os", "linux"},
                       {"karpenter.sh/capacity-type", "spot"},
                       {"app", "ignored"}};
  const Labels want = {
      {"nodepool", "default"},       {"zone", "us-west-2a"}, {"region", ""},
      {"instance_type", "m5.large"}, {"arch", "amd64"},      {"os", "linux"},
      {"capacity_type", "spot"},     {"windows_build", ""},  {"node_name", "ip-10-0-0-1"},
      {"phase", "Running"},          {"managed", "true"}};
  EXPECT_EQ(m->NodeLabels("ip-10-0-0-1", "Running", true, node), want);
  Labels with_resource = want;
  with_resource["resource_type"] = "ephemeral_storage";
  EXPECT_EQ(m->NodeResourceLabels("ip-10-0-0-1", "Running", true, node, "ephemeral-storage"),
            with_resource);
  EXPECT_TRUE(m->nodes_allocatable->Get(with_resource).ok());
  EXPECT_TRUE(m->nodes_current_lifetime_seconds->Get(want).ok());
}

TEST(NodeLabels, ProviderKeysAddLabelsAndClashesAreRefused) {
  Registry r;
  KarpenterMetricsOptions o;
  o.node_well_known_label_keys = KarpenterWellKnownLabelKeys();
  o.node_well_known_label_keys.push_back("topology.k8s.aws/zone-id");
  o.node_well_known_label_keys.push_back("karpenter.k8s.aws/instance-cpu");
  o.node_well_known_label_keys.push_back("karpenter.kwok.sh/instance-cpu");
  auto m = MustCreate(r, o);
  EXPECT_THAT(m->node_label_names(), IsSupersetOf({"zone_id", "instance_cpu"}));
  // Two keys, one name: the node's value wins over the absent key's "".
  auto labels = m->NodeLabels("n", "", false, {{"karpenter.kwok.sh/instance-cpu", "4"}});
  EXPECT_EQ(labels["instance_cpu"], "4");
  EXPECT_EQ(labels["managed"], "false");

  Registry r2;
  auto bad =
      KarpenterMetrics::Create(&r2, {.node_well_known_label_keys = {"example.com/node-name"}});
  ASSERT_FALSE(bad.ok());
  EXPECT_THAT(bad.status().message(), HasSubstr("node_name"));
}

TEST(NodeLabels, DeleteNodeRemovesItsGauges) {
  Registry r;
  auto m = MustCreate(r);
  for (const char* node : {"a", "b"}) {
    for (const char* res : {"cpu", "memory", "pods"}) {
      m->nodes_allocatable->With(m->NodeResourceLabels(node, "Running", true, {}, res)).Set(1);
      m->nodes_total_pod_requests->With(m->NodeResourceLabels(node, "Running", true, {}, res))
          .Set(1);
    }
    m->nodes_current_lifetime_seconds->With(m->NodeLabels(node, "Running", true, {})).Set(60);
  }
  m->DeleteNode("a");
  EXPECT_EQ(m->nodes_allocatable->size(), 3u);
  EXPECT_EQ(m->nodes_total_pod_requests->size(), 3u);
  EXPECT_EQ(m->nodes_current_lifetime_seconds->size(), 1u);
  EXPECT_EQ(TextFormat(r).find("node_name=\"a\""), std::string::npos);
}

// Gives every family a series (realistic ones where the helpers build them), so the exposition
// shows every family. With NODESMITH_METRICS_EXPOSITION_OUT set, writes that exposition to the
// file it names, for tests/metrics_exposition_check.py to parse with Prometheus' own parser.
TEST(KarpenterMetricsExposition, EveryFamilyHasASample) {
  Registry r;
  auto m = MustCreate(r, {.commit = "0123abc"});
  const Labels node = {{"karpenter.sh/nodepool", "default"},
                       {"topology.kubernetes.io/zone", "us-west-2a"},
                       {"node.kubernetes.io/instance-type", "m5.large"},
                       {"kubernetes.io/arch", "amd64"},
                       {"kubernetes.io/os", "linux"},
                       {"karpenter.sh/capacity-type", "on-demand"}};
  m->nodes_allocatable->With(m->NodeResourceLabels("ip-1", "Running", true, node, "cpu")).Set(1.93);
  m->nodes_allocatable->With(m->NodeResourceLabels("ip-1", "Running", true, node, "memory"))
      .Set(7.1e9);
  m->nodepools_usage->WithLabelValues({"cpu", "default"}).Set(2);
  m->pods_startup_duration_seconds->WithLabelValues({}).Observe(34.5);
  m->scheduler_scheduling_duration_seconds->WithLabelValues({"provisioner"}).Observe(0.02);
  m->controller_runtime_reconcile_total->WithLabelValues({"nodeclaim.lifecycle", "success"}).Inc();
  m->leader_election_master_status->WithLabelValues({"karpenter-leader-election"}).Set(1);
  m->nodepool_cost_per_hour->WithLabelValues({"default"}).Set(0.096);
  m->pending_pods_cost_lower_bound_per_hour->WithLabelValues({}).Set(0.0416);
  m->shadow_cost_difference_per_hour->WithLabelValues({}).Set(-0.25);
  // The rest: one series with placeholder values (a value with characters that need escaping).
  for (Family* f : r.Families()) {
    if (f->size() > 0) continue;
    LabelValues values;
    for (const auto& n : f->label_names()) values.push_back(n + "-\"x\"");
    if (auto* c = dynamic_cast<CounterFamily*>(f)) c->WithLabelValues(values).Add(3);
    if (auto* g = dynamic_cast<GaugeFamily*>(f)) g->WithLabelValues(values).Set(0.5);
    if (auto* h = dynamic_cast<HistogramFamily*>(f)) h->WithLabelValues(values).Observe(1.5);
    if (auto* s = dynamic_cast<SummaryFamily*>(f)) s->WithLabelValues(values).Observe(7);
  }
  for (Family* f : r.Families()) EXPECT_GT(f->size(), 0u) << f->name();
  for (Family* f : r.Families()) EXPECT_EQ(f->label_errors(), 0u) << f->name();
  const std::string text = TextFormat(r);
  EXPECT_EQ(r.Gather().size(), r.Families().size());
  EXPECT_THAT(text, HasSubstr("# TYPE karpenter_pods_startup_duration_seconds summary\n"
                              "karpenter_pods_startup_duration_seconds{quantile=\"0\"} 34.5\n"));
  EXPECT_THAT(text, HasSubstr("karpenter_nodes_allocatable{arch=\"amd64\",capacity_type=\"on-"
                              "demand\",instance_type=\"m5.large\",managed=\"true\",node_name=\""
                              "ip-1\",nodepool=\"default\",os=\"linux\",phase=\"Running\","
                              "region=\"\",resource_type=\"memory\",windows_build=\"\",zone=\""
                              "us-west-2a\"} 7.1e+09\n"));

  if (const char* out = std::getenv("NODESMITH_METRICS_EXPOSITION_OUT")) {
    std::ofstream f(out, std::ios::binary);
    f << text;
    f.close();
    ASSERT_TRUE(f.good()) << "cannot write " << out;
  }
}

}  // namespace
}  // namespace nodesmith::metrics
