#include "sim/scenario_limits.h"

#include <gtest/gtest.h>

#include <string>

#include "api/manifest.h"

namespace nodesmith::sim {
namespace {

std::string ScenarioDoc(const std::string& spec_yaml) {
  return "apiVersion: nodesmith.dev/v1alpha1\nkind: Scenario\nmetadata: {name: inflate}\nspec:\n" +
         spec_yaml;
}

// The error ScenarioFromInputs gives for `inputs` (multi-document YAML), or "<ok>".
std::string ErrorOf(const std::string& inputs) {
  auto set = api::LoadManifestsFromString(inputs, "scenario.yaml");
  if (!set.ok()) return "load: " + set.status().message();
  auto s = ScenarioFromInputs(*set);
  return s.ok() ? "<ok>" : s.status().message();
}

std::string Deployment(const std::string& name, int replicas) {
  return "---\napiVersion: apps/v1\nkind: Deployment\nmetadata: {name: " + name +
         "}\nspec: {replicas: " + std::to_string(replicas) +
         ", template: {spec: {containers: [{name: c}]}}}\n";
}

TEST(ScenarioLimits, ADurationOfTenYearsIsRefused) {
  EXPECT_EQ(ErrorOf(ScenarioDoc("  duration: 87600h\n")),
            "scenario.yaml: document 1 (Scenario inflate): spec.duration: 87600h0m0s is longer than "
            "the limit of 744h0m0s");
  EXPECT_EQ(ErrorOf(ScenarioDoc("  duration: 744h\n  sampleInterval: 1m\n")), "<ok>");
  // A number of seconds too large for a duration at all is out of range, not undefined behaviour.
  EXPECT_EQ(ErrorOf(ScenarioDoc("  duration: 1e300\n")),
            "scenario.yaml: document 1 (Scenario inflate): spec.duration: out of range");
}

TEST(ScenarioLimits, ANanosecondSampleIntervalIsRefusedNamingTheShortestAllowed) {
  EXPECT_EQ(ErrorOf(ScenarioDoc("  duration: 45m\n  sampleInterval: 1ns\n")),
            "scenario.yaml: document 1 (Scenario inflate): spec.sampleInterval: 1ns over "
            "spec.duration 45m0s means 2700000000001 samples, more than the limit of 100000 (make it "
            "at least 27.000001ms)");
  EXPECT_EQ(ErrorOf(ScenarioDoc("  duration: 45m\n  sampleInterval: 27.000001ms\n")), "<ok>");
  EXPECT_NE(ErrorOf(ScenarioDoc("  duration: 45m\n  sampleInterval: 27ms\n")), "<ok>");
  // The default interval fits the longest duration.
  EXPECT_EQ(ErrorOf(ScenarioDoc("  duration: 744h\n")), "<ok>");
}

TEST(ScenarioLimits, TooManyEventsAreRefused) {
  std::string events = "  duration: 45m\n  events:\n";
  for (size_t i = 0; i <= kMaxScenarioEvents; ++i) {
    events += "  - {at: 0s, delete: {kind: Pod, name: p}}\n";
  }
  EXPECT_EQ(ErrorOf(ScenarioDoc(events)),
            "scenario.yaml: document 1 (Scenario inflate): spec.events: 10001 events, more than the "
            "limit of 10000");
}

TEST(ScenarioLimits, AnInputWorkloadPastThePodLimitIsNamed) {
  EXPECT_EQ(ErrorOf(ScenarioDoc("  duration: 45m\n") + Deployment("big", 2000000000)),
            "scenario.yaml: document 2 (Deployment big): spec.replicas: 2000000000 pods would make "
            "2000000000 in all, more than the 100000 pods a simulation may run at once");
}

TEST(ScenarioLimits, TheBusiestMomentCountsAndScalingDownMakesRoom) {
  const std::string inputs = Deployment("web", 60000) + Deployment("batch", 0);
  // web scaled down before batch scales up: at most 90000 pods at once.
  EXPECT_EQ(ErrorOf(ScenarioDoc("  duration: 45m\n  events:\n"
                                "  - {at: 2m, scale: {kind: Deployment, name: batch, replicas: 80000}}\n"
                                "  - {at: 1m, scale: {kind: Deployment, name: web, replicas: 10000}}\n") +
                    inputs),
            "<ok>");
  // Deleting a workload makes room as well.
  EXPECT_EQ(ErrorOf(ScenarioDoc("  duration: 45m\n  events:\n"
                                "  - {at: 1m, delete: {kind: Deployment, name: web}}\n"
                                "  - {at: 2m, scale: {kind: Deployment, name: batch, replicas: 100000}}\n") +
                    inputs),
            "<ok>");
  EXPECT_EQ(ErrorOf(ScenarioDoc("  duration: 45m\n  events:\n"
                                "  - {at: 1m, scale: {kind: Deployment, name: batch, replicas: 50000}}\n") +
                    inputs),
            "scenario.yaml: document 1 (Scenario inflate): spec.events[0].scale.replicas: 50000 pods "
            "would make 110000 in all, more than the 100000 pods a simulation may run at once");
}

TEST(ScenarioLimits, AppliedWorkloadsCount) {
  EXPECT_EQ(ErrorOf(ScenarioDoc("  duration: 45m\n  events:\n"
                                "  - {at: 1m, apply: {apiVersion: batch/v1, kind: Job, metadata: {name: j}, "
                                "spec: {parallelism: 70000, template: {spec: {containers: [{name: c}]}}}}}\n") +
                    Deployment("web", 60000)),
            "scenario.yaml: document 1 (Scenario inflate): spec.events[0].apply.spec.parallelism: "
            "70000 pods would make 130000 in all, more than the 100000 pods a simulation may run at once");
}

}  // namespace
}  // namespace nodesmith::sim
