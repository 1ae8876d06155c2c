// EventRecorder: where controllers (and the simulated world around them) report what they did.
//
// One Record call is one line of the controller log a person reads ("Found 5 provisionable
// pods") and, when `type` is set, one entry of the machine-readable timeline (`PodPending`,
// `NodeClaimCreated`, `DisruptionDecision`, ... — the CLI contract's event types) with the
// objects it concerns. The recorder stamps the time itself from its own clock, so callers never
// read one. Implementations: the simulator's timeline (sim/), a logger for the operator, and a
// recording fake for tests (RecordingEventRecorder below).
#pragma once

#include <string>
#include <utility>
#include <vector>

namespace nodesmith::runtime {

enum class LogLevel { kDebug, kInfo, kWarn, kError };

struct RecordedEvent {
  LogLevel level = LogLevel::kInfo;
  std::string logger;   // "controller.provisioner", "controller.disruption", "controller.termination", ...
  std::string message;  // the log line, e.g. "Launched instance: i-0abc..., type: c5.2xlarge, ..."
  std::string type;     // timeline type ("NodeClaimCreated"); "" for log-only lines
  // The objects and figures it concerns, in a fixed order: {"nodeClaim", "default-x2k4q"},
  // {"instanceType", "c5.2xlarge"}, {"pod", "default/inflate-1"}, ...
  std::vector<std::pair<std::string, std::string>> fields;
};

// A field that lists names ("n1,n2", as DisruptionDecision's "nodes"), split; spaces after a
// comma and empty items are dropped.
std::vector<std::string> SplitFieldList(const std::string& text);

class EventRecorder {
 public:
  virtual ~EventRecorder() = default;
  virtual void Record(RecordedEvent event) = 0;
};

// Keeps every event in order; for tests.
class RecordingEventRecorder : public EventRecorder {
 public:
  void Record(RecordedEvent event) override { events_.push_back(std::move(event)); }
  const std::vector<RecordedEvent>& events() const { return events_; }
  // Events of a timeline type, in order.
  std::vector<RecordedEvent> OfType(const std::string& type) const {
    std::vector<RecordedEvent> out;
    for (const auto& e : events_) if (e.type == type) out.push_back(e);
    return out;
  }

 private:
  std::vector<RecordedEvent> events_;
};

}  // namespace nodesmith::runtime
