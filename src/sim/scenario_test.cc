#include "sim/scenario.h"

#include <gmock/gmock.h>
#include <gtest/gtest.h>

#include "api/manifest.h"

namespace nodesmith::sim {
namespace {

using ::testing::HasSubstr;
using namespace std::chrono_literals;

core::Result<Scenario> Decode(const std::string& spec_yaml) {
  std::string doc =
      "apiVersion: nodesmith.dev/v1alpha1\nkind: Scenario\nmetadata: {name: inflate}\nspec:\n" +
      spec_yaml;
  auto set = api::LoadManifestsFromString(doc, "scenario.yaml");
  if (!set.ok()) return set.status();
  return ScenarioFromInputs(*set);
}

std::string ErrorOf(const std::string& spec_yaml) {
  auto s = Decode(spec_yaml);
  return s.ok() ? "<ok>" : s.status().message();
}

TEST(Scenario, DefaultsApplyWhenOnlyTheDurationIsGiven) {
  auto s = Decode("  duration: 45m\n");
  ASSERT_TRUE(s.ok()) << s.status().message();
  EXPECT_EQ(s->name, "inflate");
  EXPECT_EQ(core::FormatRfc3339(s->start), "2025-01-01T00:00:00Z");
  EXPECT_EQ(s->duration, 45min);
  EXPECT_EQ(s->sample_interval, 30s);
  EXPECT_EQ(s->cloud.launch_latency, 3s);
  EXPECT_EQ(s->cloud.registration_delay, 20s);
  EXPECT_EQ(s->cloud.ready_delay, 10s);
  EXPECT_EQ(s->settings.batch_idle_duration, 1s);
  EXPECT_EQ(s->settings.batch_max_duration, 10s);
  EXPECT_TRUE(s->events.empty());
}

TEST(Scenario, ReadsCloudSettingsStartAndSampleInterval) {
  auto s = Decode(
      "  start: 2024-06-01T12:00:00Z\n  duration: 2h\n  sampleInterval: 1m\n"
      "  cloud: {launchLatency: 5s, registrationDelay: 30s, readyDelay: 15s}\n"
      "  settings: {batchIdleDuration: 2s, batchMaxDuration: 20s}\n");
  ASSERT_TRUE(s.ok()) << s.status().message();
  EXPECT_EQ(core::FormatRfc3339(s->start), "2024-06-01T12:00:00Z");
  EXPECT_EQ(s->sample_interval, 1min);
  EXPECT_EQ(s->cloud.launch_latency, 5s);
  EXPECT_EQ(s->cloud.registration_delay, 30s);
  EXPECT_EQ(s->cloud.ready_delay, 15s);
  EXPECT_EQ(s->settings.batch_idle_duration, 2s);
  EXPECT_EQ(s->settings.batch_max_duration, 20s);
}

TEST(Scenario, DecodesEveryEventKindInDocumentOrder) {
  auto s = Decode(
      "  duration: 45m\n  events:\n"
      "  - {at: 0s, scale: {kind: Deployment, name: inflate, namespace: default, replicas: 5}}\n"
      "  - {at: 25m, delete: {kind: Deployment, name: inflate}}\n"
      "  - {at: 10m, interrupt: {node: ip-192-168-1-1, type: spot}}\n"
      "  - {at: 11m, interrupt: {nodePool: default, count: 2, type: scheduledChange}}\n"
      "  - {at: 12m, apply: {apiVersion: apps/v1, kind: Deployment, metadata: {name: web},"
      " spec: {replicas: 3, template: {spec: {containers: [{name: c, image: x}]}}}}}\n"
      "  - {at: 15m, unavailable: {instanceType: c5.2xlarge, zone: us-west-2a,"
      " capacityType: spot, for: 10m}}\n");
  ASSERT_TRUE(s.ok()) << s.status().message();
  ASSERT_EQ(s->events.size(), 6u);

  const auto& scale = std::get<ScaleAction>(s->events[0].action);
  EXPECT_EQ(scale.kind, "Deployment");
  EXPECT_EQ(scale.name, "inflate");
  EXPECT_EQ(scale.replicas, 5);
  EXPECT_EQ(s->events[0].at, 0s);

  const auto& del = std::get<DeleteAction>(s->events[1].action);
  EXPECT_EQ(del.name, "inflate");
  EXPECT_EQ(s->events[1].at, 25min);

  const auto& one = std::get<InterruptAction>(s->events[2].action);
  EXPECT_EQ(one.node, "ip-192-168-1-1");
  EXPECT_EQ(one.kind, cloud::sim::InterruptionKind::kSpotInterruption);
  const auto& pool = std::get<InterruptAction>(s->events[3].action);
  EXPECT_EQ(pool.node_pool, "default");
  EXPECT_EQ(pool.count, 2);
  EXPECT_EQ(pool.kind, cloud::sim::InterruptionKind::kScheduledChange);

  const auto& apply = std::get<ApplyAction>(s->events[4].action);
  const auto& web = std::get<api::ReplicatedWorkload>(apply.object);
  EXPECT_EQ(web.kind, "Deployment");
  EXPECT_EQ(web.metadata.name, "web");
  EXPECT_EQ(web.replicas, 3);

  const auto& un = std::get<UnavailableAction>(s->events[5].action);
  EXPECT_EQ(un.instance_type, "c5.2xlarge");
  EXPECT_EQ(un.zone, "us-west-2a");
  EXPECT_EQ(un.capacity_type, "spot");
  EXPECT_EQ(un.duration, 10min);
}

TEST(Scenario, ErrorsNameFileDocumentObjectAndFieldPath) {
  EXPECT_EQ(ErrorOf("  duration: 45m\n  events:\n"
                    "  - {at: 0s, scale: {kind: Deployment, name: a, replicas: 1}}\n"
                    "  - {at: 1s, scale: {kind: Deployment, name: a, replicas: 1}}\n"
                    "  - {at: 2s, scale: {kind: Deployment, name: a, replicas: -1}}\n"),
            "scenario.yaml: document 1 (Scenario inflate): spec.events[2].scale.replicas: must be "
            ">= 0");
}

TEST(Scenario, RejectsAMissingOrZeroDuration) {
  EXPECT_THAT(ErrorOf("  events: []\n"), HasSubstr("spec.duration: required"));
  EXPECT_THAT(ErrorOf("  duration: 0s\n"), HasSubstr("spec.duration: must be more than 0s"));
  EXPECT_THAT(ErrorOf("  duration: soon\n"), HasSubstr("spec.duration: "));
}

TEST(Scenario, RejectsUnknownFieldsSoTyposDoNotPassSilently) {
  EXPECT_THAT(ErrorOf("  duration: 1h\n  cloud: {readyDelai: 3s}\n"),
              HasSubstr("spec.cloud.readyDelai: unknown field"));
  EXPECT_THAT(ErrorOf("  duration: 1h\n  events:\n  - {at: 0s, sclae: {}}\n"),
              HasSubstr("spec.events[0].sclae: unknown field"));
}

TEST(Scenario, AnEventNeedsExactlyOneAction) {
  EXPECT_THAT(ErrorOf("  duration: 1h\n  events:\n  - {at: 0s}\n"),
              HasSubstr("spec.events[0]: needs exactly one of scale, delete"));
  EXPECT_THAT(ErrorOf("  duration: 1h\n  events:\n  - {at: 0s, "
                      "scale: {kind: Deployment, name: a, replicas: 1}, "
                      "delete: {kind: Deployment, name: a}}\n"),
              HasSubstr("spec.events[0]: needs exactly one of"));
}

TEST(Scenario, AnEventAfterTheEndIsAnError) {
  EXPECT_THAT(ErrorOf("  duration: 10m\n  events:\n"
                      "  - {at: 11m, delete: {kind: Deployment, name: a}}\n"),
              HasSubstr("spec.events[0].at: 11m0s is after spec.duration (10m0s)"));
}

TEST(Scenario, ChecksEachActionsFields) {
  EXPECT_THAT(ErrorOf("  duration: 1h\n  events:\n"
                      "  - {at: 0s, scale: {kind: DaemonSet, name: a, replicas: 1}}\n"),
              HasSubstr("spec.events[0].scale.kind: must be Deployment, ReplicaSet, StatefulSet or Job"));
  EXPECT_THAT(ErrorOf("  duration: 1h\n  events:\n"
                      "  - {at: 0s, interrupt: {node: a, type: meteor}}\n"),
              HasSubstr("spec.events[0].interrupt.type: must be spot, scheduledChange, stopping "
                        "or terminated, not meteor"));
  EXPECT_THAT(ErrorOf("  duration: 1h\n  events:\n"
                      "  - {at: 0s, interrupt: {node: a, nodePool: b}}\n"),
              HasSubstr("spec.events[0].interrupt: needs exactly one of node and nodePool"));
  EXPECT_THAT(ErrorOf("  duration: 1h\n  events:\n"
                      "  - {at: 0s, unavailable: {instanceType: c5.large, zone: z, "
                      "capacityType: spot}}\n"),
              HasSubstr("spec.events[0].unavailable.for: required"));
  EXPECT_THAT(ErrorOf("  duration: 1h\n  events:\n"
                      "  - {at: 0s, delete: {kind: Gadget, name: a}}\n"),
              HasSubstr("spec.events[0].delete.kind: unknown kind Gadget"));
}

TEST(Scenario, AnApplyEventsObjectIsValidatedLikeAnInput) {
  std::string error = ErrorOf(
      "  duration: 1h\n  events:\n"
      "  - {at: 0s, apply: {apiVersion: apps/v1, kind: Deployment, metadata: {name: web},"
      " spec: {replicas: many}}}\n");
  EXPECT_THAT(error, HasSubstr("scenario.yaml: document 1 (Scenario inflate): spec.events[0].apply"));
  EXPECT_THAT(error, HasSubstr("spec.replicas"));
}

TEST(Scenario, BatchMaxMayNotBeShorterThanBatchIdle) {
  EXPECT_THAT(ErrorOf("  duration: 1h\n  settings: {batchIdleDuration: 5s, batchMaxDuration: 1s}\n"),
              HasSubstr("spec.settings.batchMaxDuration: must not be shorter than batchIdleDuration"));
}

TEST(Scenario, InputsMustHoldExactlyOneScenario) {
  auto none = api::LoadManifestsFromString("apiVersion: v1\nkind: Pod\nmetadata: {name: p}\n"
                                           "spec: {containers: [{name: c, image: x}]}\n");
  ASSERT_TRUE(none.ok());
  EXPECT_THAT(ScenarioFromInputs(*none).status().message(), HasSubstr("no Scenario"));

  auto two = api::LoadManifestsFromString(
      "apiVersion: nodesmith.dev/v1alpha1\nkind: Scenario\nmetadata: {name: a}\nspec: {duration: 1m}\n"
      "---\n"
      "apiVersion: nodesmith.dev/v1alpha1\nkind: Scenario\nmetadata: {name: b}\nspec: {duration: 1m}\n",
      "s.yaml");
  ASSERT_TRUE(two.ok());
  EXPECT_THAT(ScenarioFromInputs(*two).status().message(),
              HasSubstr("s.yaml: document 2 (Scenario b): only one Scenario may be given"));
}

}  // namespace
}  // namespace nodesmith::sim
