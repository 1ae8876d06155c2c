#include "operator/karpenter_log.h"

#include <gmock/gmock.h>
#include <gtest/gtest.h>

namespace nodesmith::op {
namespace {

using runtime::LogLevel;
using runtime::RecordedEvent;

TEST(KarpenterLogTest, NodeClaimCreatedIsCreatedNodeclaimWithObjectRefs) {
  const OperatorLine line = TranslateRecordedEvent(
      {LogLevel::kInfo, "controller.provisioner", "Created nodeclaim default-x2k4q",
       "NodeClaimCreated",
       {{"nodeClaim", "default-x2k4q"}, {"nodePool", "default"}, {"instanceTypes", "42"}}});
  EXPECT_EQ(line.controller, "provisioner");
  EXPECT_EQ(line.message, "created nodeclaim");
  EXPECT_EQ(line.fields.dump(),
            R"({"NodePool":{"name":"default"},"NodeClaim":{"name":"default-x2k4q"},)"
            R"("instance-types":"42"})");
  EXPECT_TRUE(line.events.empty());
}

TEST(KarpenterLogTest, LaunchedNodeclaimCarriesWhereItRuns) {
  const OperatorLine line = TranslateRecordedEvent(
      {LogLevel::kInfo, "controller.nodeclaim.lifecycle", "Launched instance: ...",
       "NodeClaimLaunched",
       {{"nodeClaim", "default-a"},
        {"instanceType", "c-4x-amd64-linux"},
        {"zone", "test-zone-a"},
        {"capacityType", "spot"},
        {"providerID", "kwok://default-a"}}});
  EXPECT_EQ(line.controller, "nodeclaim.lifecycle");
  EXPECT_EQ(line.message, "launched nodeclaim");
  EXPECT_EQ(line.fields["provider-id"], "kwok://default-a");
  EXPECT_EQ(line.fields["instance-type"], "c-4x-amd64-linux");
  EXPECT_EQ(line.fields["capacity-type"], "spot");
}

TEST(KarpenterLogTest, AClassWaitingOnItsNodeClaimsIsAnEventOnTheEC2NodeClass) {
  const OperatorLine line = TranslateRecordedEvent(
      {LogLevel::kInfo, "controller.nodeclass.status",
       "Waiting on NodeClaim termination for default-a, default-b", "WaitingOnNodeClaimTermination",
       {{"ec2NodeClass", "default"}, {"nodeClaims", "default-a, default-b"}}});
  EXPECT_EQ(line.controller, "nodeclass.status");
  EXPECT_EQ(line.message, "waiting on nodeclaim termination");
  EXPECT_EQ(line.fields["EC2NodeClass"]["name"], "default");
  ASSERT_EQ(line.events.size(), 1u);
  EXPECT_EQ(line.events[0].kind, "EC2NodeClass");
  EXPECT_EQ(line.events[0].name, "default");
  EXPECT_EQ(line.events[0].reason, "WaitingOnNodeClaimTermination");
  EXPECT_EQ(line.events[0].message, "Waiting on NodeClaim termination for default-a, default-b");
}

TEST(KarpenterLogTest, ASpotInterruptionIsAnEventOnTheNodeClaimAndItsNodeThenADeleteLine) {
  const OperatorLine received = TranslateRecordedEvent(
      {LogLevel::kInfo, "controller.interruption",
       "Received spot interruption for nodeclaim default-a, node ip-10-0-0-1, instance i-0abc",
       "Interruption",
       {{"node", "ip-10-0-0-1"}, {"nodeClaim", "default-a"}, {"kind", "spot"}, {"instanceId", "i-0abc"}}});
  ASSERT_EQ(received.events.size(), 2u);
  EXPECT_EQ(received.events[0], (KubeEventSpec{"NodeClaim", "", "default-a", true, "SpotInterrupted",
                                               "Spot interruption warning was triggered"}));
  EXPECT_EQ(received.events[1], (KubeEventSpec{"Node", "", "ip-10-0-0-1", true, "SpotInterrupted",
                                               "Spot interruption warning was triggered"}));
  // A rebalance recommendation is only news: a Normal event.
  const OperatorLine rebalance = TranslateRecordedEvent(
      {LogLevel::kInfo, "controller.interruption", "Received ...", "Interruption",
       {{"node", ""}, {"nodeClaim", "default-a"}, {"kind", "rebalanceRecommendation"}}});
  ASSERT_EQ(rebalance.events.size(), 1u);
  EXPECT_FALSE(rebalance.events[0].warning);
  EXPECT_EQ(rebalance.events[0].reason, "SpotRebalanceRecommendation");

  const OperatorLine deleting = TranslateRecordedEvent(
      {LogLevel::kInfo, "controller.interruption", "Deleting nodeclaim default-a on spot interruption", "",
       {{"nodeClaim", "default-a"}, {"kind", "spot"}}});
  EXPECT_EQ(deleting.message, "initiating delete from interruption message");
  EXPECT_EQ(deleting.fields.dump(),
            R"({"NodeClaim":{"name":"default-a"},"messageKind":"spot_interrupted","action":"CordonAndDrain"})");
  ASSERT_EQ(deleting.events.size(), 1u);
  EXPECT_EQ(deleting.events[0].reason, "TerminatingOnInterruption");
  EXPECT_EQ(deleting.events[0].message, "Interruption triggered termination for the NodeClaim");
}

TEST(KarpenterLogTest, NominationAndFailedSchedulingBecomePodEvents) {
  const OperatorLine nominated = TranslateRecordedEvent(
      {LogLevel::kInfo, "controller.provisioner", "Nominated pod default/inflate-1 to ...",
       "PodNominated", {{"pod", "default/inflate-1"}, {"nodeClaim", "default-a"}}});
  ASSERT_EQ(nominated.events.size(), 1u);
  EXPECT_EQ(nominated.events[0],
            (KubeEventSpec{"Pod", "default", "inflate-1", false, "Nominated",
                           "Pod should schedule on: nodeclaim/default-a"}));
  const OperatorLine failed = TranslateRecordedEvent(
      {LogLevel::kWarn, "controller.provisioner", "Could not schedule pod ...", "PodUnschedulable",
       {{"pod", "web/api-0"}, {"reason", "incompatible with nodepool \"default\""}}});
  EXPECT_EQ(failed.message, "could not schedule pod");
  EXPECT_EQ(failed.severity, LogSeverity::kError);
  ASSERT_EQ(failed.events.size(), 1u);
  EXPECT_TRUE(failed.events[0].warning);
  EXPECT_EQ(failed.events[0].reason, "FailedScheduling");
  EXPECT_EQ(failed.events[0].message,
            "Failed to schedule pod, incompatible with nodepool \"default\"");
}

TEST(KarpenterLogTest, ADisruptionDecisionMarksEveryCandidate) {
  const OperatorLine line = TranslateRecordedEvent(
      {LogLevel::kInfo, "controller.disruption", "Disrupting via emptiness 2 candidate(s) ...",
       "DisruptionDecision",
       {{"method", "emptiness"},
        {"reason", "Empty"},
        {"nodes", "n1,n2"},
        {"nodeClaims", "c1,c2"},
        {"savingsPerHour", "0.2"}}});
  EXPECT_EQ(line.message, "disrupting node(s)");
  EXPECT_EQ(line.fields["disrupted-node-count"], 2);
  ASSERT_EQ(line.events.size(), 4u);
  EXPECT_EQ(line.events[0], (KubeEventSpec{"Node", "", "n1", false, "DisruptionTerminating",
                                           "Disrupting Node: Empty"}));
  EXPECT_EQ(line.events[3], (KubeEventSpec{"NodeClaim", "", "c2", false,
                                           "DisruptionTerminating", "Disrupting NodeClaim: Empty"}));
}

TEST(KarpenterLogTest, ARoundIsOneComputedNewNodeclaimsLineWithNumbers) {
  const OperatorLine round = TranslateRecordedEvent(
      {LogLevel::kInfo, "controller.provisioner", "Computed 3 new nodeclaim(s) to fit 74 pod(s)",
       "", {{"nodeclaims", "3"}, {"pods", "74"}}});
  EXPECT_EQ(round.severity, LogSeverity::kInfo);
  EXPECT_EQ(round.message, "computed new nodeclaim(s) to fit pod(s)");
  EXPECT_EQ(round.fields.dump(), R"({"nodeclaims":3,"pods":74})");
  const OperatorLine existing = TranslateRecordedEvent(
      {LogLevel::kInfo, "controller.provisioner", "Computed 2 existing node(s) will fit 5 pod(s)",
       "", {{"nodes", "2"}, {"pods", "5"}}});
  EXPECT_EQ(existing.message, "computed unready node(s) will fit pod(s)");
  EXPECT_EQ(existing.fields.dump(), R"({"nodes":2,"pods":5})");
  // The per-NodeClaim detail stays, below INFO, so a Karpenter log query counts rounds.
  const OperatorLine packing = TranslateRecordedEvent(
      {LogLevel::kInfo, "controller.provisioner",
       "Computed packing for 5 pod(s) with instance type option(s) [c-4x]", "", {}});
  EXPECT_EQ(packing.severity, LogSeverity::kDebug);
  EXPECT_EQ(packing.message, "Computed packing for 5 pod(s) with instance type option(s) [c-4x]");
}

TEST(KarpenterLogTest, FoundProvisionablePodsNamesFiveAndCountsTheRest) {
  const OperatorLine many = TranslateRecordedEvent(
      {LogLevel::kInfo, "controller.provisioner", "Found 7 provisionable pods", "",
       {{"pods", "7"}, {"firstPods", "default/a,default/b,default/c,default/d,default/e"}}});
  EXPECT_EQ(many.message, "found provisionable pod(s)");
  EXPECT_EQ(many.fields["Pods"],
            "default/a, default/b, default/c, default/d, default/e and 2 other(s)");
  const OperatorLine one = TranslateRecordedEvent(
      {LogLevel::kInfo, "controller.provisioner", "Found 1 provisionable pods", "",
       {{"pods", "1"}, {"firstPods", "default/a"}}});
  EXPECT_EQ(one.fields["Pods"], "default/a");
}

TEST(KarpenterLogTest, UntypedLinesAreMatchedByTheirWords) {
  EXPECT_EQ(TranslateRecordedEvent({LogLevel::kInfo, "controller.provisioner",
                                    "Found 5 provisionable pods", "", {}})
                .message,
            "found provisionable pod(s)");
  const OperatorLine deleted = TranslateRecordedEvent(
      {LogLevel::kInfo, "controller.termination", "Deleted node ip-1", "", {}});
  EXPECT_EQ(deleted.message, "deleted node");
  EXPECT_EQ(deleted.fields["Node"]["name"], "ip-1");
  const OperatorLine other = TranslateRecordedEvent(
      {LogLevel::kInfo, "controller.disruption", "Something else", "", {{"nodeClaim", "c"}}});
  EXPECT_EQ(other.message, "Something else");
  EXPECT_EQ(other.fields["NodeClaim"]["name"], "c");
}

}  // namespace
}  // namespace nodesmith::op
