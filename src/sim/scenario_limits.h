// What one Scenario may ask of `nodesmith simulate`. Every figure is far beyond a useful run
// (the example day, diurnal.yaml, is 24h with 289 samples and 33 events), and each stops input
// that would otherwise exhaust memory or never finish: a 1ns sampleInterval asks for trillions of
// samples, a duration of ten years for years of controller ticks, a replicas typo for billions of
// pods. Refusals name the file, the Scenario and the field, as every input error does.
#pragma once

#include <chrono>
#include <cstddef>
#include <cstdint>

#include "api/object_set.h"
#include "core/duration.h"
#include "core/status.h"
#include "sim/scenario.h"

namespace nodesmith::sim {

// spec.duration: a month, enough to watch expireAfter's default of 720h pass (diurnal.yaml
// stretched to 744h runs in about four minutes on the 2-core development machine).
inline constexpr core::Duration kMaxScenarioDuration = std::chrono::hours(31 * 24);
// Samples taken over the run: the one at the start and one per spec.sampleInterval.
inline constexpr int64_t kMaxScenarioSamples = 100000;
// Entries of spec.events.
inline constexpr size_t kMaxScenarioEvents = 10000;

// Pods at once. Lower than what plan and disrupt accept (api::kMaxPods): the simulator runs every
// pod through its scheduler and kubelet, and cost grows faster than the pod count (on the 2-core
// development machine 10,000 pods take under a minute, 20,000 about two and a half minutes).
inline constexpr int64_t kMaxScenarioPods = 100000;

// The pods the scenario's workloads want at the busiest moment — the inputs' pods and workloads,
// then each scale, apply and delete event in the order the world runs them — must stay within
// kMaxScenarioPods. InvalidArgument naming the input workload or the event field that passes it.
core::Status CheckScenarioPods(const Scenario& scenario, const api::ObjectSet& inputs);

}  // namespace nodesmith::sim
