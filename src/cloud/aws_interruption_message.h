// Reading the EventBridge notices Karpenter's AWS interruption queue receives: the body of one
// SQS message (an EventBridge event, JSON) as cloud-agnostic InterruptionMessages.
//
// The event is chosen, as Karpenter does, by version "0", `source` and `detail-type`:
//   aws.ec2    "EC2 Spot Instance Interruption Warning"       -> kSpotInterruption (action_time
//                                                                 = time + 2 minutes)
//   aws.ec2    "EC2 Capacity Reservation Instance Interruption Warning"
//                                                              -> kCapacityReservationInterruption
//   aws.ec2    "EC2 Instance Rebalance Recommendation"        -> kRebalanceRecommendation
//   aws.ec2    "EC2 Instance State-change Notification"       -> kStateChange when detail.state is
//              stopping, stopped, shutting-down or terminated; any other state -> kUnknown
//   aws.health "AWS Health Event"                             -> kScheduledChange, one message per
//              detail.affectedEntities[].entityValue, when detail.service is "EC2" and
//              detail.eventTypeCategory is "scheduledChange"; otherwise kUnknown
//   anything else (other sources, detail-types, versions, an empty body) -> one kUnknown
// Every message carries `id` (the SQS receipt handle, for Delete) and start_time from `time`.
//
// The result is never empty, so every received notice yields something to delete. A body that
// is not JSON, not an object, or a recognised event with a missing or mistyped field is an
// InvalidArgument naming the field; a queue turns that into one kUnknown message whose `detail`
// is the error (Karpenter logs it and deletes the message).
#pragma once

#include <string_view>
#include <vector>

#include "cloud/interruption_queue.h"
#include "core/status.h"

namespace nodesmith::cloud {

core::Result<std::vector<InterruptionMessage>> ParseAwsInterruptionMessage(std::string_view body,
                                                                           std::string_view id);

// ParseAwsInterruptionMessage, with a parse error turned into one kUnknown message (`detail` is
// the error): what an SQS-backed InterruptionQueue returns from Receive for each body.
std::vector<InterruptionMessage> AwsInterruptionMessagesOrUnknown(std::string_view body,
                                                                  std::string_view id);

}  // namespace nodesmith::cloud
