#include "cloud/sim/interruption.h"

namespace nodesmith::cloud::sim {

namespace {

struct KindName {
  InterruptionKind kind;
  std::string_view name;
};

constexpr KindName kKindNames[] = {
    {InterruptionKind::kSpotInterruption, "spot"},
    {InterruptionKind::kScheduledChange, "scheduledChange"},
    {InterruptionKind::kStopping, "stopping"},
    {InterruptionKind::kTerminated, "terminated"},
};

}  // namespace

std::string_view InterruptionKindName(InterruptionKind kind) {
  for (const KindName& k : kKindNames) {
    if (k.kind == kind) return k.name;
  }
  return "unknown";
}

std::optional<InterruptionKind> ParseInterruptionKind(std::string_view name) {
  for (const KindName& k : kKindNames) {
    if (k.name == name) return k.kind;
  }
  return std::nullopt;
}

}  // namespace nodesmith::cloud::sim
