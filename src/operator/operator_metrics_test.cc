#include "operator/operator_metrics.h"

#include <gmock/gmock.h>
#include <gtest/gtest.h>

#include <map>
#include <string>

#include "cluster/memory_cluster.h"
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
  // pauses until the next pass, multi-node acts on the best command it found.
  auto disruption = [&](const std::string& message, const std::string& type) {
    metrics_->OnRecorded({LogLevel::kDebug, "controller.disruption", message, "",
                          {{"consolidationType", type}}},
                         cluster_);
  };
  disruption("Pausing single-node consolidation: this pass's share of simulation is spent; the "
             "next pass goes on with the candidates not yet tried",
             "single");
  for (int i = 0; i < 2; ++i) {
    disruption("Cutting multi-node consolidation short: this pass's share of simulation is "
               "spent; acting on the best command found",
               "multi");
  }
  // The same words from another controller are not a consolidation's.
  metrics_->OnRecorded({LogLevel::kInfo, "controller.provisioner", "Pausing nothing", "", {}},
                       cluster_);
  EXPECT_EQ(SeriesOf(*metrics_, "karpenter_voluntary_disruption_consolidation_timeouts_total"),
            (std::map<std::string, double>{{"multi", 2}, {"single", 1}}));
}

}  // namespace
}  // namespace nodesmith::op
