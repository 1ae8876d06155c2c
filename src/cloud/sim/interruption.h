// Interruption notices the simulated cloud emits, the messages Karpenter's interruption
// controller reads from its SQS queue (EventBridge rules for spot interruption warnings, AWS
// Health scheduled changes and EC2 instance state changes).
#pragma once

#include <optional>
#include <string>
#include <string_view>

#include "core/time.h"

namespace nodesmith::cloud::sim {

enum class InterruptionKind {
  kSpotInterruption,  // "spot": a 2-minute warning, then EC2 reclaims the instance
  kScheduledChange,   // "scheduledChange": AWS Health maintenance; the instance keeps running
  kStopping,          // "stopping": the instance is being stopped
  kTerminated,        // "terminated": the instance is gone
};

// The Scenario spelling: "spot", "scheduledChange", "stopping", "terminated".
std::string_view InterruptionKindName(InterruptionKind kind);
// The kind spelled `name` (Scenario spelling), nullopt when unknown.
std::optional<InterruptionKind> ParseInterruptionKind(std::string_view name);

// One notice: which instance, what kind, when it was sent.
struct InterruptionEvent {
  std::string provider_id;
  InterruptionKind kind = InterruptionKind::kSpotInterruption;
  core::Time at;
  // For spot interruptions, when EC2 will reclaim the instance (at + the warning); else nullopt.
  std::optional<core::Time> action_time;

  bool operator==(const InterruptionEvent&) const = default;
};

}  // namespace nodesmith::cloud::sim
