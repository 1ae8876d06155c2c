#include "operator/operator_metrics.h"

#include <gmock/gmock.h>
#include <gtest/gtest.h>

#include <map>
#include <string>

#include "cluster/memory_cluster.h"
#include "controllers/disruption/disruption_controller.h"
#include "controllers/provisioning/provisioner.h"
#include "core/clock.h"

namespace nodesmith::op {
namespace {

using runtime::LogLevel;
using runtime::RecordedEvent;

// The counter's value per label values, as Gather reports the family.
std::map<std::string, double> SeriesOf(OperatorMetrics& m, const std::string& family) {
  std::map<std::string, double> out;
  for (const auto& f : m.registry().Gather()) {
    if (f.name != family) continue;
    for (const auto& s : f.series) {
      std::string key;
      for (const auto& v : s.label_values) key += (key.empty() ? "" : ",") + v;
      out[key] = s.value;
    }
  }
  return out;
}

class OperatorMetricsTest : public ::testing::Test {
 protected:
  void SetUp() override {
    auto created = OperatorMetrics::Create({});
    ASSERT_TRUE(created.ok()) << created.status().message();
    metrics_ = std::move(*created);
  }

  core::FakeClock clock_{core::Time{1'700'000'000'000'000'000}};
  cluster::MemoryCluster cluster_{clock_};
  std::unique_ptr<OperatorMetrics> metrics_;
};

TEST_F(OperatorMetricsTest, AConsolidationCutShortCountsAsAConsolidationTimeout) {
  // The disruption controller's lines when a pass's share of simulation is spent: single-node
  // pauses until the next pass, multi-node acts on the best command it found, or on none.
  using controllers::ConsolidationTimeout;
  using controllers::ConsolidationTimeoutEvent;
  metrics_->OnRecorded(
      ConsolidationTimeoutEvent("single-node", "single", ConsolidationTimeout::kPaused), cluster_);
  metrics_->OnRecorded(ConsolidationTimeoutEvent("multi-node", "multi",
                                                 ConsolidationTimeout::kCutShortWithCommand),
                       cluster_);
  metrics_->OnRecorded(ConsolidationTimeoutEvent("multi-node", "multi",
                                                 ConsolidationTimeout::kCutShortWithoutCommand),
                       cluster_);
  // The metric reads the line's field, not its words: the same words without it, or the field
  // from another controller, are not a consolidation's timeout.
  RecordedEvent reworded =
      ConsolidationTimeoutEvent("single-node", "single", ConsolidationTimeout::kPaused);
  reworded.fields.pop_back();
  metrics_->OnRecorded(reworded, cluster_);
  RecordedEvent elsewhere =
      ConsolidationTimeoutEvent("single-node", "single", ConsolidationTimeout::kPaused);
  elsewhere.logger = "controller.provisioner";
  metrics_->OnRecorded(elsewhere, cluster_);
  EXPECT_EQ(SeriesOf(*metrics_, "karpenter_voluntary_disruption_consolidation_timeouts_total"),
            (std::map<std::string, double>{{"multi", 2}, {"single", 1}}));
}

TEST_F(OperatorMetricsTest, CollectCountsTheNodesAndExportsTheAllocatableOfThosePresent) {
  auto node = [](const std::string& name) {
    api::Node n;
    n.metadata.name = name;
    n.status.allocatable = {{"cpu", api::Quantity::MustParse("4")}};
    return n;
  };
  ASSERT_TRUE(cluster_.Create(node("ip-1")).ok());
  ASSERT_TRUE(cluster_.Create(node("ip-2")).ok());
  const cloud::Catalog catalog;
  metrics_->Collect(cluster_, cluster_, catalog);
  EXPECT_EQ(SeriesOf(*metrics_, "karpenter_cluster_state_node_count"),
            (std::map<std::string, double>{{"", 2}}));
  EXPECT_THAT(SeriesOf(*metrics_, "karpenter_nodes_allocatable"), ::testing::SizeIs(2));

  ASSERT_TRUE(cluster_.Delete<api::Node>("", "ip-1").ok());
  metrics_->Collect(cluster_, cluster_, catalog);
  EXPECT_EQ(SeriesOf(*metrics_, "karpenter_cluster_state_node_count"),
            (std::map<std::string, double>{{"", 1}}));
  EXPECT_THAT(SeriesOf(*metrics_, "karpenter_nodes_allocatable"), ::testing::SizeIs(1))
      << "the series of a Node gone is removed";
}

TEST_F(OperatorMetricsTest, UnschedulablePodsAreThoseTheProvisionersLastRoundCouldNotPlace) {
  EXPECT_EQ(SeriesOf(*metrics_, "karpenter_scheduler_unschedulable_pods_count"),
            (std::map<std::string, double>{{"provisioner", 0}}));
  auto round = [&](const std::string& count) {
    metrics_->OnRecorded({LogLevel::kDebug, "controller.provisioner",
                          count + " pod(s) unschedulable in this round's simulation", "",
                          {{controllers::kUnschedulablePodsField, count}}},
                         cluster_);
  };
  round("3");
  EXPECT_EQ(SeriesOf(*metrics_, "karpenter_scheduler_unschedulable_pods_count"),
            (std::map<std::string, double>{{"provisioner", 3}}));
  // A pod kube-scheduler marked unschedulable is not counted by the gauge's refresh.
  api::Pod pending;
  pending.metadata.name = "waiting";
  pending.metadata.namespace_ = "default";
  pending.status.conditions.push_back({"PodScheduled", "False", "Unschedulable", "", {}, 0});
  ASSERT_TRUE(cluster_.Create(pending).ok());
  metrics_->Collect(cluster_, cluster_, cloud::Catalog{});
  EXPECT_EQ(SeriesOf(*metrics_, "karpenter_scheduler_unschedulable_pods_count"),
            (std::map<std::string, double>{{"provisioner", 3}}));
  round("0");
  EXPECT_EQ(SeriesOf(*metrics_, "karpenter_scheduler_unschedulable_pods_count"),
            (std::map<std::string, double>{{"provisioner", 0}}));
}

}  // namespace
}  // namespace nodesmith::op
