#include "cloud/interruption_queue.h"

namespace nodesmith::cloud {

std::string InterruptionMessageKindName(const InterruptionMessage& message) {
  switch (message.kind) {
    case InterruptionMessageKind::kSpotInterruption:
      return "spot";
    case InterruptionMessageKind::kCapacityReservationInterruption:
      return "capacityReservation";
    case InterruptionMessageKind::kScheduledChange:
      return "scheduledChange";
    case InterruptionMessageKind::kStateChange:
      return message.state.empty() ? "stateChange" : message.state;
    case InterruptionMessageKind::kRebalanceRecommendation:
      return "rebalanceRecommendation";
    case InterruptionMessageKind::kUnknown:
      break;
  }
  return "unknown";
}

}  // namespace nodesmith::cloud
