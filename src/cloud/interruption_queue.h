// InterruptionQueue: where a cloud tells nodesmith that an instance is about to go away (or has
// gone), as Karpenter's AWS provider reads EventBridge notices from an SQS queue; and
// UnavailableOfferingsSink: where the interruption controller reports capacity it learned is gone.
//
// Both are cloud-agnostic so the interruption controller (controllers/interruption/) never
// knows which cloud it serves. The simulator wires SimulatedCloud for both; a real cluster wires
// an SQS-backed queue (messages parsed by cloud/aws_interruption_message.h) and the EC2
// provider's unavailable-offerings cache. The two are separate interfaces because they are
// separate things upstream too (an SQS queue, an insufficient-capacity cache): an SQS queue
// knows nothing about offerings, and the cache is shared with launching.
//
// Queue semantics are SQS's: Receive hands out messages without removing them; a message is
// removed only by Delete, once handled. A message received and not deleted may be received again
// later (after the queue's visibility timeout), so handling must be idempotent. One notice that
// names several instances arrives as several InterruptionMessages sharing one `id`; deleting
// any of them deletes the notice, and deleting an id already deleted is OK.
#pragma once

#include <optional>
#include <string>
#include <string_view>
#include <vector>

#include "core/duration.h"
#include "core/status.h"
#include "core/time.h"

namespace nodesmith::cloud {

enum class InterruptionMessageKind {
  // A 2-minute warning: the spot instance will be reclaimed at action_time.
  kSpotInterruption,
  // The capacity reservation the instance runs in is being reclaimed.
  kCapacityReservationInterruption,
  // Scheduled maintenance (AWS Health scheduledChange): the instance should be replaced.
  kScheduledChange,
  // The instance is stopping, stopped, shutting down or terminated (`state` says which).
  kStateChange,
  // The instance is at elevated risk of interruption; informational only.
  kRebalanceRecommendation,
  // Anything nodesmith does not act on: other event types, states and services, or a body that
  // could not be parsed (`detail` says why). Deleted without further action.
  kUnknown,
};

// The states of kStateChange messages: the ones Karpenter acts on.
inline constexpr const char* kInstanceStateStopping = "stopping";
inline constexpr const char* kInstanceStateStopped = "stopped";
inline constexpr const char* kInstanceStateShuttingDown = "shutting-down";
inline constexpr const char* kInstanceStateTerminated = "terminated";

// One notice about one instance.
struct InterruptionMessage {
  // The queue's handle for Delete (an SQS receipt handle; the simulated cloud's sequence number).
  std::string id;
  InterruptionMessageKind kind = InterruptionMessageKind::kUnknown;
  // The cloud's instance id ("i-0123456789abcdef0", the last segment of a provider id); may be
  // empty for kUnknown.
  std::string instance_id;
  // kStateChange: one of the kInstanceState* values (lower case). Else whatever the notice said,
  // or "" (e.g. an ignored "pending" state arrives as kUnknown with state "pending").
  std::string state;
  // When the notice was sent, if it said.
  std::optional<core::Time> start_time;
  // When the cloud will act (a spot reclaim), if known.
  std::optional<core::Time> action_time;
  // For kUnknown: why it is not acted on; else empty.
  std::string detail;

  bool operator==(const InterruptionMessage&) const = default;
};

// A short name for logs and the `Interruption` event's `kind` field, in the Scenario's spelling
// where one exists: "spot", "capacityReservation", "scheduledChange", the state of a state
// change ("stopping", "stopped", "shutting-down", "terminated"), "rebalanceRecommendation",
// "unknown".
std::string InterruptionMessageKindName(const InterruptionMessage& message);

class InterruptionQueue {
 public:
  virtual ~InterruptionQueue() = default;
  // Up to `max_messages` messages not yet deleted and not received within the visibility
  // timeout, oldest first; empty when there are none. An error when the queue cannot be read
  // (it does not exist, access is denied).
  virtual core::Result<std::vector<InterruptionMessage>> Receive(int max_messages) = 0;
  // Removes the notice `message` came from. OK when it was already removed.
  virtual core::Status Delete(const InterruptionMessage& message) = 0;
  // A name for logs (the queue's name or URL).
  virtual std::string QueueName() const = 0;
};

// An offering (instance type, zone, capacity type) that should not be launched for a while.
struct UnavailableOffering {
  std::string instance_type;
  std::string zone;
  std::string capacity_type;
  // Why, for logs and metrics ("spot" for a spot interruption).
  std::string reason;
  // How long the offering stays unavailable (Karpenter's cache keeps entries 3 minutes).
  core::Duration ttl{};
};

class UnavailableOfferingsSink {
 public:
  virtual ~UnavailableOfferingsSink() = default;
  // From now until now + offering.ttl, launches skip the offering and the instance types
  // reported to the provisioner show it unavailable. A later mark of the same offering extends
  // the window, never shortens it.
  virtual void MarkOfferingUnavailable(const UnavailableOffering& offering) = 0;
};

}  // namespace nodesmith::cloud
