// Timeline: the simulator's EventRecorder. It stamps every event with the virtual time it was
// recorded at and keeps them in order, so the run can be printed as the controller log a person
// reads (text) and as the SimulationResult's `events` (JSON).
//
// Controllers and the simulated world share one Timeline through the EventRecorder interface;
// only the Clock decides the stamps, so the same run gives the same timeline.
// Not thread-safe. REQUIRES: the clock outlives the timeline.
#pragma once

#include <functional>
#include <iosfwd>
#include <string>
#include <vector>

#include <nlohmann/json_fwd.hpp>

#include "core/clock.h"
#include "runtime/event_recorder.h"

namespace nodesmith::sim {

struct TimelineEvent {
  core::Time at;
  runtime::RecordedEvent event;
};

class Timeline : public runtime::EventRecorder {
 public:
  // `start` is t = 0 for the `t` field.
  Timeline(const core::Clock& clock, core::Time start) : clock_(clock), start_(start) {}

  void Record(runtime::RecordedEvent event) override;

  // Called for every event as it is recorded (after it is stored); e.g. the world learns which
  // NodeClaim a pod was nominated to. At most one observer.
  void SetObserver(std::function<void(const TimelineEvent&)> observer) {
    observer_ = std::move(observer);
  }

  const std::vector<TimelineEvent>& events() const { return events_; }
  core::Time start() const { return start_; }
  // Events of a timeline type, in order.
  std::vector<TimelineEvent> OfType(const std::string& type) const;
  // The value of the first field named `key` of `event`, or "".
  static std::string Field(const runtime::RecordedEvent& event, const std::string& key);

 private:
  const core::Clock& clock_;
  core::Time start_;
  std::vector<TimelineEvent> events_;
  std::function<void(const TimelineEvent&)> observer_;
};

// "2025-01-01T00:00:01.000Z": RFC 3339 UTC with milliseconds, as Karpenter's logs print time.
std::string FormatLogTime(core::Time t);
// "INFO", "DEBUG", ...
const char* LogLevelName(runtime::LogLevel level);
// One log line without newline:
//   2025-01-01T00:00:01.000Z INFO controller.provisioner Found 5 provisionable pods {"pods": "5"}
std::string FormatLogLine(const TimelineEvent& e);
// Every event with a timeline type as the contract's JSON event:
//   {"t": 61.0, "time": "2025-01-01T00:01:01Z", "type": "...", "<field>": "...", "message": "..."}
// A field name that repeats becomes a list of its values, in order.
nlohmann::ordered_json TimelineEventsJson(const Timeline& timeline);
nlohmann::ordered_json TimelineEventJson(const TimelineEvent& e, core::Time start);

}  // namespace nodesmith::sim
