#include "cloud/sim/instance.h"

#include <algorithm>

namespace nodesmith::cloud::sim {

namespace {

// EC2 per-second billing charges at least one minute (Linux, on-demand and spot alike).
constexpr double kMinimumBilledSeconds = 60;

}  // namespace

std::string_view InstanceStateName(InstanceState state) {
  switch (state) {
    case InstanceState::kPending:
      return "pending";
    case InstanceState::kRunning:
      return "running";
    case InstanceState::kStopped:
      return "stopped";
    case InstanceState::kShuttingDown:
      return "shutting-down";
    case InstanceState::kTerminated:
      return "terminated";
  }
  return "unknown";
}

std::optional<core::Time> SimulatedInstance::TimeOf(InstanceState state) const {
  // A state is skipped when a later one begins no later than it does: the instance went
  // straight past it.
  auto skipped_by = [](core::Time begins, const std::optional<core::Time>& later) {
    return later.has_value() && *later <= begins;
  };
  switch (state) {
    case InstanceState::kPending:
      return launch_time;
    case InstanceState::kRunning:
      if (skipped_by(running_time, stopped_time) || skipped_by(running_time, shutting_down_time) ||
          skipped_by(running_time, terminated_time)) {
        return std::nullopt;
      }
      return running_time;
    case InstanceState::kStopped:
      if (!stopped_time || skipped_by(*stopped_time, shutting_down_time) ||
          skipped_by(*stopped_time, terminated_time)) {
        return std::nullopt;
      }
      return stopped_time;
    case InstanceState::kShuttingDown:
      return shutting_down_time;
    case InstanceState::kTerminated:
      return terminated_time;
  }
  return std::nullopt;
}

InstanceState SimulatedInstance::StateAt(core::Time t) const {
  if (terminated_time && *terminated_time <= t) return InstanceState::kTerminated;
  if (shutting_down_time && *shutting_down_time <= t) return InstanceState::kShuttingDown;
  if (stopped_time && *stopped_time <= t) return InstanceState::kStopped;
  if (running_time <= t) return InstanceState::kRunning;
  return InstanceState::kPending;
}

std::optional<core::Time> SimulatedInstance::BillingEnd() const {
  std::optional<core::Time> end = stopped_time;
  for (const auto& t : {shutting_down_time, terminated_time}) {
    if (t && (!end || *t < *end)) end = t;
  }
  return end;
}

double SimulatedInstance::RunningSecondsAt(core::Time t) const {
  core::Time end = t;
  if (auto billing_end = BillingEnd(); billing_end && *billing_end < end) end = *billing_end;
  if (end <= running_time) return 0;
  return std::chrono::duration<double>(end - running_time).count();
}

double SimulatedInstance::CostAt(core::Time t) const {
  double seconds = RunningSecondsAt(t);
  const std::optional<core::Time> billing_end = BillingEnd();
  if (seconds > 0 && billing_end && *billing_end <= t) {
    seconds = std::max(seconds, kMinimumBilledSeconds);
  }
  return price_per_hour * seconds / 3600.0;
}

}  // namespace nodesmith::cloud::sim
