// ParseAwsInterruptionMessage on arbitrary text: the body of an SQS message of the interruption
// queue, which anyone allowed to send to that queue (or EventBridge, passing on what AWS wrote)
// controls. The parser must answer every body with messages or a clean error, and the result is
// never empty (every notice is deleted). A message it acted on is written back as the EventBridge
// event it stands for, which must parse to the same message.
#include <cstddef>
#include <cstdint>
#include <string>
#include <string_view>
#include <vector>

#include <nlohmann/json.hpp>

#include "cloud/aws_interruption_message.h"
#include "core/time.h"
#include "fuzz_check.h"

namespace {

using nodesmith::cloud::InterruptionMessage;
using nodesmith::cloud::InterruptionMessageKind;
using nodesmith::fuzz::Fail;

constexpr std::string_view kId = "AQEB-receipt-handle";

// The smallest EventBridge event that reads as `m`; null for kUnknown (which has no single event).
nlohmann::json EventOf(const InterruptionMessage& m) {
  nlohmann::json event = {{"version", "0"}};
  if (m.start_time) event["time"] = nodesmith::core::FormatRfc3339(*m.start_time);
  switch (m.kind) {
    case InterruptionMessageKind::kSpotInterruption:
      event["source"] = "aws.ec2";
      event["detail-type"] = "EC2 Spot Instance Interruption Warning";
      event["detail"] = {{"instance-id", m.instance_id}, {"instance-action", "terminate"}};
      break;
    case InterruptionMessageKind::kCapacityReservationInterruption:
      event["source"] = "aws.ec2";
      event["detail-type"] = "EC2 Capacity Reservation Instance Interruption Warning";
      event["detail"] = {{"instance-id", m.instance_id}};
      break;
    case InterruptionMessageKind::kRebalanceRecommendation:
      event["source"] = "aws.ec2";
      event["detail-type"] = "EC2 Instance Rebalance Recommendation";
      event["detail"] = {{"instance-id", m.instance_id}};
      break;
    case InterruptionMessageKind::kStateChange:
      event["source"] = "aws.ec2";
      event["detail-type"] = "EC2 Instance State-change Notification";
      event["detail"] = {{"instance-id", m.instance_id}, {"state", m.state}};
      break;
    case InterruptionMessageKind::kScheduledChange:
      event["source"] = "aws.health";
      event["detail-type"] = "AWS Health Event";
      event["detail"] = {{"service", "EC2"},
                         {"eventTypeCategory", "scheduledChange"},
                         {"affectedEntities", {{{"entityValue", m.instance_id}}}}};
      break;
    case InterruptionMessageKind::kUnknown:
      return nullptr;
  }
  return event;
}

}  // namespace

extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size) {
  const std::string_view body(reinterpret_cast<const char*>(data), size);
  auto parsed = nodesmith::cloud::ParseAwsInterruptionMessage(body, kId);
  const auto messages = nodesmith::cloud::AwsInterruptionMessagesOrUnknown(body, kId);
  if (messages.empty()) Fail("no message to delete", body);
  if (!parsed.ok()) return 0;
  if (*parsed != messages) Fail("the queue's messages differ from the parser's", body);
  for (const InterruptionMessage& m : *parsed) {
    if (m.id != kId) Fail("message lost its receipt handle", m.id);
    if (m.kind == InterruptionMessageKind::kUnknown) {
      if (m.detail.empty()) Fail("an unknown message says not why", body);
      continue;
    }
    if (m.instance_id.empty()) Fail("an acted-on message names no instance", body);
    const std::string event = EventOf(m).dump();
    auto again = nodesmith::cloud::ParseAwsInterruptionMessage(event, kId);
    if (!again.ok()) Fail("the event of a parsed message does not parse", event + ": " + again.status().message());
    if (again->size() != 1 || (*again)[0] != m) Fail("the event of a parsed message reads differently", event);
  }
  return 0;
}
