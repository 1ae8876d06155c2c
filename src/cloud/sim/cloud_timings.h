// CloudTimings: how long the simulated cloud and the simulated kubelet take, in virtual time.
//
// One struct so a Scenario's `cloud:` block ({launchLatency, registrationDelay, readyDelay, ...})
// maps onto it field for field. SimulatedCloud reads launch_latency, termination_latency and
// spot_interruption_warning; the kubelet simulation (src/sim/) reads registration_delay and
// ready_delay. A plain value type.
#pragma once

#include <chrono>

#include "core/duration.h"

namespace nodesmith::cloud::sim {

struct CloudTimings {
  // Defaults are typical measured figures, not published guarantees (EC2 and EKS state no SLA
  // for them): an EC2 instance requested through CreateFleet reaches `running` a few seconds
  // after the request returns; an EKS-optimized Linux AMI's kubelet registers the Node roughly
  // 20 s later and reports Ready about 10 s after that. Together they give the ~30-35 s from
  // launch to a Ready Linux node commonly reported for EKS clusters scaled by Karpenter (AWS
  // containers blog and Karpenter scale-test write-ups). Scenarios override them per run.

  // pending -> running: the instance is billed from `running` on.
  core::Duration launch_latency = std::chrono::seconds(3);
  // running -> Node object registered (kubelet simulation).
  core::Duration registration_delay = std::chrono::seconds(20);
  // registered -> Node Ready (kubelet simulation).
  core::Duration ready_delay = std::chrono::seconds(10);
  // shutting-down -> terminated. Zero makes a delete terminate at once; billing stops at
  // shutting-down either way (EC2 stops charging when an instance enters shutting-down).
  core::Duration termination_latency = core::Duration(0);
  // Time between an EC2 Spot Instance interruption notice and the reclaim; EC2 documents a
  // two-minute warning ("Spot Instance interruption notices", EC2 User Guide).
  core::Duration spot_interruption_warning = std::chrono::minutes(2);
};

}  // namespace nodesmith::cloud::sim
