// SimulatedInstance: one simulated EC2 instance, its lifecycle in virtual time and its bill.
//
// The lifecycle is stored as the instants at which each state begins, so the state at any time
// is a pure function of that time (no event has to fire for Get to be right):
//   pending --launch latency--> running --> [stopped] --> shutting-down --> terminated
// Later states may begin at the same instant as earlier ones (a delete with zero termination
// latency is shutting-down and terminated at once), and a state may be skipped (an instance that
// fails while pending never runs).
//
// Billing follows EC2's per-second billing: from `running` until the instance stops or starts
// shutting down, at the offering's hourly price, with EC2's 60-second minimum charge applied once
// billing has ended. A plain value type, owned by SimulatedCloud.
#pragma once

#include <optional>
#include <string>
#include <string_view>
#include <vector>

#include "api/nodeclaim.h"
#include "core/duration.h"
#include "core/time.h"

namespace nodesmith::cloud::sim {

// In lifecycle order (the order transitions happen in). Names are EC2's state names.
enum class InstanceState { kPending, kRunning, kStopped, kShuttingDown, kTerminated };

// "pending", "running", "stopped", "shutting-down", "terminated".
std::string_view InstanceStateName(InstanceState state);

struct SimulatedInstance {
  std::string provider_id;  // aws:///<zone>/i-...
  std::string instance_id;  // i-...
  std::string private_ip;   // 192.168.x.y, for the kubelet simulation's node names
  std::string node_claim_name;
  std::string instance_type;
  std::string zone;
  std::string capacity_type;
  double price_per_hour = 0;

  core::Time launch_time;   // when Create was called; the instance is pending from here
  core::Time running_time;  // launch_time + launch latency
  std::optional<core::Time> stopped_time;
  std::optional<core::Time> shutting_down_time;
  std::optional<core::Time> terminated_time;

  std::string drift_reason;   // set by SimulatedCloud::SetDrift
  api::NodeClaim node_claim;  // what Create returned

  InstanceState StateAt(core::Time t) const;
  // When the instance enters `state`, or nullopt if it never does (as things stand).
  std::optional<core::Time> TimeOf(InstanceState state) const;
  // When billing ends (stopped or shutting-down, whichever first), or nullopt while it runs on.
  std::optional<core::Time> BillingEnd() const;
  // Seconds the instance has been billable up to `t` (without the 60-second minimum).
  double RunningSecondsAt(core::Time t) const;
  // USD charged up to `t`: price × billed seconds / 3600, where billed seconds are the running
  // seconds, raised to 60 once billing has ended after a run of under a minute.
  double CostAt(core::Time t) const;
};

}  // namespace nodesmith::cloud::sim
