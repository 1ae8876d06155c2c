// Specification of reading EventBridge notices: every sample in shared/data/interruption (the
// shapes aws-node-termination-handler documents and Karpenter's interruption tests send) reads
// as the kind and instances Karpenter's parsers give it; malformed bodies are errors, not crashes.
#include "cloud/aws_interruption_message.h"

#include <cstdint>
#include <filesystem>
#include <limits>
#include <fstream>
#include <map>
#include <sstream>
#include <string>

#include <gmock/gmock.h>
#include <gtest/gtest.h>

namespace nodesmith::cloud {
namespace {

using ::testing::HasSubstr;
using Kind = InterruptionMessageKind;

const std::filesystem::path kSamples =
    std::filesystem::path(NODESMITH_SHARED_DATA) / "interruption";

struct Expected {
  Kind kind;
  std::vector<std::string> instance_ids;  // one per message, in order
  std::string state = "";
};

// Every sample file, by path under shared/data/interruption, with what it must read as.
const std::map<std::string, Expected>& SampleExpectations() {
  static const auto* kExpected = new std::map<std::string, Expected>{
      {"karpenter_test_format/spot_interruption.json",
       {Kind::kSpotInterruption, {"i-0123456789abcdef0"}}},
      {"karpenter_test_format/capacity_reservation_interruption.json",
       {Kind::kCapacityReservationInterruption, {"i-0123456789abcdef0"}}},
      {"karpenter_test_format/rebalance_recommendation.json",
       {Kind::kRebalanceRecommendation, {"i-0123456789abcdef0"}}},
      {"karpenter_test_format/scheduled_change_health_event.json",
       {Kind::kScheduledChange, {"i-0123456789abcdef0"}}},
      {"karpenter_test_format/health_event_issue_category_ignored.json", {Kind::kUnknown, {""}}},
      {"karpenter_test_format/health_event_non_ec2_ignored.json", {Kind::kUnknown, {""}}},
      {"karpenter_test_format/state_change_stopping.json",
       {Kind::kStateChange, {"i-0123456789abcdef0"}, "stopping"}},
      {"karpenter_test_format/state_change_stopped.json",
       {Kind::kStateChange, {"i-0123456789abcdef0"}, "stopped"}},
      {"karpenter_test_format/state_change_shutting-down.json",
       {Kind::kStateChange, {"i-0123456789abcdef0"}, "shutting-down"}},
      {"karpenter_test_format/state_change_terminated.json",
       {Kind::kStateChange, {"i-0123456789abcdef0"}, "terminated"}},
      // States Karpenter does not react to are read but not acted on.
      {"karpenter_test_format/state_change_creating.json",
       {Kind::kUnknown, {"i-0123456789abcdef0"}, "creating"}},
      {"karpenter_test_format/state_change_pending.json",
       {Kind::kUnknown, {"i-0123456789abcdef0"}, "pending"}},
      {"karpenter_test_format/state_change_running.json",
       {Kind::kUnknown, {"i-0123456789abcdef0"}, "running"}},
      {"karpenter_test_format/unknown_detail_type_noop.json", {Kind::kUnknown, {""}}},
      {"karpenter_test_format/unparseable_unknown_shape.json", {Kind::kUnknown, {""}}},
      {"nth_examples/spot-itn-event.json", {Kind::kSpotInterruption, {"i-0b662ef9931388ba0"}}},
      {"nth_examples/rebalance-recommendation-event.json",
       {Kind::kRebalanceRecommendation, {"i-0b662ef9931388ba0"}}},
      {"nth_examples/ec2-state-change-event.json", {Kind::kUnknown, {"i-abcd1111"}, "pending"}},
      {"nth_examples/scheduled-change-event.json", {Kind::kScheduledChange, {"i-12345678"}}},
      {"nth_examples/asg-lifecycle-event.json", {Kind::kUnknown, {""}}},
  };
  return *kExpected;
}

std::string ReadFile(const std::filesystem::path& path) {
  std::ifstream in(path);
  std::stringstream s;
  s << in.rdbuf();
  return s.str();
}

TEST(AwsInterruptionMessage, EverySampleReadsAsKarpentersParsersReadIt) {
  ASSERT_TRUE(std::filesystem::is_directory(kSamples)) << kSamples;
  int checked = 0;
  for (const auto& entry : std::filesystem::recursive_directory_iterator(kSamples)) {
    if (!entry.is_regular_file() || entry.path().extension() != ".json") continue;
    std::string name = std::filesystem::relative(entry.path(), kSamples).generic_string();
    SCOPED_TRACE(name);
    auto it = SampleExpectations().find(name);
    ASSERT_NE(it, SampleExpectations().end()) << "a sample without an expectation: add one";
    const Expected& want = it->second;

    auto parsed = ParseAwsInterruptionMessage(ReadFile(entry.path()), "receipt-" + name);
    ASSERT_TRUE(parsed.ok()) << parsed.status().message();
    ASSERT_EQ(parsed->size(), want.instance_ids.size());
    for (size_t i = 0; i < parsed->size(); ++i) {
      const InterruptionMessage& m = (*parsed)[i];
      EXPECT_EQ(m.kind, want.kind);
      EXPECT_EQ(m.instance_id, want.instance_ids[i]);
      EXPECT_EQ(m.state, want.state);
      EXPECT_EQ(m.id, "receipt-" + name) << "every message can be deleted";
      EXPECT_EQ(m.kind == Kind::kUnknown, !m.detail.empty()) << "only unknown messages say why";
    }
    ++checked;
  }
  EXPECT_EQ(checked, static_cast<int>(SampleExpectations().size()))
      << "every expectation names a sample that exists";
}

TEST(AwsInterruptionMessage, ASpotWarningIsReclaimedTwoMinutesAfterItIsSent) {
  auto parsed = ParseAwsInterruptionMessage(
      ReadFile(kSamples / "karpenter_test_format/spot_interruption.json"), "r");
  ASSERT_TRUE(parsed.ok()) << parsed.status().message();
  const InterruptionMessage& m = parsed->at(0);
  ASSERT_TRUE(m.start_time.has_value());
  EXPECT_EQ(core::FormatRfc3339(*m.start_time), "2024-01-01T00:00:00Z");
  ASSERT_TRUE(m.action_time.has_value());
  EXPECT_EQ(core::FormatRfc3339(*m.action_time), "2024-01-01T00:02:00Z");
  EXPECT_EQ(InterruptionMessageKindName(m), "spot");
}

// The reclaim instant is `time` plus two minutes; for a `time` in the last two minutes Time can
// hold, that sum overflowed int64 (undefined behaviour).
TEST(AwsInterruptionMessage, ASpotWarningAtTheEndOfTimeIsReclaimedAtTheLastInstant) {
  auto parsed = ParseAwsInterruptionMessage(
      R"({"version": "0", "source": "aws.ec2", "detail-type": "EC2 Spot Instance Interruption Warning",
          "time": "2262-04-11T23:46:00Z", "detail": {"instance-id": "i-1"}})",
      "r");
  ASSERT_TRUE(parsed.ok()) << parsed.status().message();
  ASSERT_EQ(parsed->size(), 1u);
  ASSERT_TRUE(parsed->at(0).action_time.has_value());
  EXPECT_EQ(parsed->at(0).action_time->unix_nanos, std::numeric_limits<int64_t>::max());
  EXPECT_GT(*parsed->at(0).action_time, *parsed->at(0).start_time);
}

TEST(AwsInterruptionMessage, AHealthEventNamingSeveralInstancesGivesOneMessageEach) {
  std::string body = R"({"version": "0", "source": "aws.health", "detail-type": "AWS Health Event",
    "time": "2024-01-01T00:00:00Z",
    "detail": {"service": "EC2", "eventTypeCategory": "scheduledChange",
               "affectedEntities": [{"entityValue": "i-aaa"}, {"entityValue": "i-bbb"},
                                    {"entityValue": "i-ccc"}]}})";
  auto parsed = ParseAwsInterruptionMessage(body, "r1");
  ASSERT_TRUE(parsed.ok()) << parsed.status().message();
  ASSERT_EQ(parsed->size(), 3u);
  for (const auto& m : *parsed) {
    EXPECT_EQ(m.kind, Kind::kScheduledChange);
    EXPECT_EQ(m.id, "r1") << "all three come from one notice, deleted once";
  }
  EXPECT_EQ((*parsed)[0].instance_id, "i-aaa");
  EXPECT_EQ((*parsed)[2].instance_id, "i-ccc");
}

TEST(AwsInterruptionMessage, AScheduledChangeWithoutInstancesIsStillDeletable) {
  std::string body = R"({"version": "0", "source": "aws.health", "detail-type": "AWS Health Event",
    "detail": {"service": "EC2", "eventTypeCategory": "scheduledChange", "affectedEntities": []}})";
  auto parsed = ParseAwsInterruptionMessage(body, "r1");
  ASSERT_TRUE(parsed.ok()) << parsed.status().message();
  ASSERT_EQ(parsed->size(), 1u);
  EXPECT_EQ((*parsed)[0].kind, Kind::kUnknown);
  EXPECT_EQ((*parsed)[0].id, "r1");
}

TEST(AwsInterruptionMessage, StatesAreMatchedWhateverTheirCase) {
  std::string body = R"({"version": "0", "source": "aws.ec2",
    "detail-type": "EC2 Instance State-change Notification",
    "detail": {"instance-id": "i-1", "state": "Shutting-Down"}})";
  auto parsed = ParseAwsInterruptionMessage(body, "r");
  ASSERT_TRUE(parsed.ok()) << parsed.status().message();
  EXPECT_EQ(parsed->at(0).kind, Kind::kStateChange);
  EXPECT_EQ(InterruptionMessageKindName(parsed->at(0)), "shutting-down");
}

TEST(AwsInterruptionMessage, AnotherEventVersionIsNotActedOn) {
  std::string body = R"({"version": "1", "source": "aws.ec2",
    "detail-type": "EC2 Spot Instance Interruption Warning", "detail": {"instance-id": "i-1"}})";
  auto parsed = ParseAwsInterruptionMessage(body, "r");
  ASSERT_TRUE(parsed.ok()) << parsed.status().message();
  EXPECT_EQ(parsed->at(0).kind, Kind::kUnknown);
  EXPECT_THAT(parsed->at(0).detail, HasSubstr("version"));
}

TEST(AwsInterruptionMessage, AnEmptyBodyIsNotActedOn) {
  auto parsed = ParseAwsInterruptionMessage("  \n", "r");
  ASSERT_TRUE(parsed.ok()) << parsed.status().message();
  ASSERT_EQ(parsed->size(), 1u);
  EXPECT_EQ(parsed->at(0).kind, Kind::kUnknown);
}

TEST(AwsInterruptionMessage, MalformedBodiesAreErrorsThatNameTheProblem) {
  struct Case {
    std::string body;
    std::string error;
  };
  const std::string spot = R"("version": "0", "source": "aws.ec2",
    "detail-type": "EC2 Spot Instance Interruption Warning")";
  const std::vector<Case> cases = {
      {"{\"version\": \"0\", \"source\": ", "invalid JSON"},
      {"not json at all", "invalid JSON"},
      {"[1, 2, 3]", "expected a JSON object, got array"},
      {"\"a string\"", "expected a JSON object, got string"},
      {R"({"version": 0, "source": "aws.ec2"})", "version: expected a string, got number"},
      {R"({"detail-type": ["x"]})", "detail-type: expected a string, got array"},
      {"{" + spot + "}", "detail: expected an object"},
      {"{" + spot + R"(, "detail": "x"})", "detail: expected an object"},
      {"{" + spot + R"(, "detail": {}})", "detail.instance-id: missing"},
      {"{" + spot + R"(, "detail": {"instance-id": 7}})",
       "detail.instance-id: expected a string, got number"},
      {"{" + spot + R"(, "time": "yesterday", "detail": {"instance-id": "i-1"}})", "time:"},
      {R"({"version": "0", "source": "aws.ec2",
          "detail-type": "EC2 Instance State-change Notification",
          "detail": {"instance-id": "i-1"}})",
       "detail.state: missing"},
      {R"({"version": "0", "source": "aws.health", "detail-type": "AWS Health Event",
          "detail": {"service": "EC2", "eventTypeCategory": "scheduledChange",
                     "affectedEntities": {"entityValue": "i-1"}}})",
       "detail.affectedEntities: expected an array"},
      {R"({"version": "0", "source": "aws.health", "detail-type": "AWS Health Event",
          "detail": {"service": "EC2", "eventTypeCategory": "scheduledChange",
                     "affectedEntities": [{"entityValue": "i-1"}, {"tags": {}}]}})",
       "detail.affectedEntities[1].entityValue: missing"},
  };
  for (const Case& c : cases) {
    SCOPED_TRACE(c.body);
    auto parsed = ParseAwsInterruptionMessage(c.body, "r");
    ASSERT_FALSE(parsed.ok());
    EXPECT_EQ(parsed.status().code(), core::StatusCode::kInvalidArgument);
    EXPECT_THAT(parsed.status().message(), HasSubstr("interruption message: "));
    EXPECT_THAT(parsed.status().message(), HasSubstr(c.error));
  }
}

// nlohmann/json throws out_of_range, not parse_error, for a number beyond a double; the parser
// caught only the latter, so such a body aborted the controller.
TEST(AwsInterruptionMessage, ANumberBeyondADoubleIsAnErrorNotAnAbort) {
  const std::string body = R"({"version": "0", "source": "aws.ec2",
    "detail-type": "EC2 Spot Instance Interruption Warning",
    "detail": {"instance-id": "i-1", "instance-action": 1e400}})";
  auto parsed = ParseAwsInterruptionMessage(body, "r");
  ASSERT_FALSE(parsed.ok());
  EXPECT_EQ(parsed.status().code(), core::StatusCode::kInvalidArgument);
  EXPECT_THAT(parsed.status().message(), HasSubstr("interruption message: invalid JSON: "));
  EXPECT_THAT(parsed.status().message(), HasSubstr("1e400"));
  auto messages = AwsInterruptionMessagesOrUnknown(body, "r");
  ASSERT_EQ(messages.size(), 1u);
  EXPECT_EQ(messages[0].kind, Kind::kUnknown);
}

TEST(AwsInterruptionMessage, AQueueTurnsAnUnreadableBodyIntoOneUnknownMessageToDelete) {
  auto messages = AwsInterruptionMessagesOrUnknown("{oops", "receipt-7");
  ASSERT_EQ(messages.size(), 1u);
  EXPECT_EQ(messages[0].kind, Kind::kUnknown);
  EXPECT_EQ(messages[0].id, "receipt-7");
  EXPECT_THAT(messages[0].detail, HasSubstr("invalid JSON"));
}

}  // namespace
}  // namespace nodesmith::cloud
