// The Scenario document of `nodesmith simulate -f` on arbitrary text: loaded as the CLI loads
// manifests (api::LoadManifestsFromString), then the one Scenario decoded and checked against the
// inputs (sim::ScenarioFromInputs: durations, the sample and event limits, the events' actions,
// `apply` objects through the manifest decoder, the pods the workloads reach). The file's author
// chooses every byte. Both steps must end in a value or a clean error. A decoded scenario keeps
// the promises the simulated world relies on: a duration within kMaxScenarioDuration, a positive
// sample interval giving at most kMaxScenarioSamples samples, and events, within the limit, none
// after the end.
#include <cstddef>
#include <cstdint>
#include <string>
#include <string_view>

#include "api/manifest.h"
#include "core/duration.h"
#include "fuzz_check.h"
#include "sim/scenario.h"
#include "sim/scenario_limits.h"

extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size) {
  namespace sim = nodesmith::sim;
  using nodesmith::fuzz::Fail;
  const std::string_view text(reinterpret_cast<const char*>(data), size);
  auto inputs = nodesmith::api::LoadManifestsFromString(text, "scenario.yaml");
  if (!inputs.ok()) return 0;
  auto scenario = sim::ScenarioFromInputs(*inputs);
  if (!scenario.ok()) return 0;
  const nodesmith::core::Duration zero{0};
  if (!(scenario->duration > zero) || scenario->duration > sim::kMaxScenarioDuration)
    Fail("a scenario's duration out of bounds", nodesmith::core::FormatDuration(scenario->duration));
  if (!(scenario->sample_interval > zero) ||
      scenario->duration / scenario->sample_interval + 1 > sim::kMaxScenarioSamples)
    Fail("a scenario's sample interval out of bounds", nodesmith::core::FormatDuration(scenario->sample_interval));
  if (scenario->events.size() > sim::kMaxScenarioEvents) Fail("more events than the limit", std::to_string(scenario->events.size()));
  for (const sim::ScenarioEvent& e : scenario->events) {
    if (e.at < zero || e.at > scenario->duration) Fail("an event outside the scenario", e.path);
  }
  return 0;
}
