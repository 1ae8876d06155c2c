#include "sim/timeline.h"

#include <cstdio>

#include <nlohmann/json.hpp>

namespace nodesmith::sim {

void Timeline::Record(runtime::RecordedEvent event) {
  events_.push_back(TimelineEvent{clock_.Now(), std::move(event)});
  if (observer_) observer_(events_.back());
}

std::vector<TimelineEvent> Timeline::OfType(const std::string& type) const {
  std::vector<TimelineEvent> out;
  for (const auto& e : events_) {
    if (e.event.type == type) out.push_back(e);
  }
  return out;
}

std::string Timeline::Field(const runtime::RecordedEvent& event, const std::string& key) {
  for (const auto& [k, v] : event.fields) {
    if (k == key) return v;
  }
  return "";
}

std::string FormatLogTime(core::Time t) {
  // FormatRfc3339 prints fractions only when present; logs always show milliseconds.
  int64_t nanos = t.unix_nanos;
  int64_t millis = ((nanos % 1000000000) + 1000000000) % 1000000000 / 1000000;
  core::Time whole{nanos - (((nanos % 1000000000) + 1000000000) % 1000000000)};
  std::string s = core::FormatRfc3339(whole);  // "...:SSZ"
  char frac[8];
  std::snprintf(frac, sizeof(frac), ".%03lldZ", static_cast<long long>(millis));
  if (!s.empty() && s.back() == 'Z') s.pop_back();
  return s + frac;
}

const char* LogLevelName(runtime::LogLevel level) {
  switch (level) {
    case runtime::LogLevel::kDebug: return "DEBUG";
    case runtime::LogLevel::kInfo: return "INFO";
    case runtime::LogLevel::kWarn: return "WARN";
    case runtime::LogLevel::kError: return "ERROR";
  }
  return "INFO";
}

std::string FormatLogLine(const TimelineEvent& e) {
  std::string line = FormatLogTime(e.at) + " " + LogLevelName(e.event.level) + " " +
                     e.event.logger + " " + e.event.message;
  if (!e.event.fields.empty()) {
    nlohmann::ordered_json f = nlohmann::ordered_json::object();
    for (const auto& [k, v] : e.event.fields) {
      if (!f.contains(k)) f[k] = v;
    }
    line += " " + f.dump();
  }
  return line;
}

nlohmann::ordered_json TimelineEventJson(const TimelineEvent& e, core::Time start) {
  nlohmann::ordered_json j;
  j["t"] = static_cast<double>((e.at - start).count()) / 1e9;
  j["time"] = core::FormatRfc3339(e.at);
  j["type"] = e.event.type;
  for (const auto& [k, v] : e.event.fields) {
    if (k == "t" || k == "time" || k == "type" || k == "message") continue;
    if (!j.contains(k)) {
      j[k] = v;
    } else {
      if (!j[k].is_array()) j[k] = nlohmann::ordered_json::array({j[k]});
      j[k].push_back(v);
    }
  }
  j["message"] = e.event.message;
  return j;
}

nlohmann::ordered_json TimelineEventsJson(const Timeline& timeline) {
  auto out = nlohmann::ordered_json::array();
  for (const auto& e : timeline.events()) {
    if (!e.event.type.empty()) out.push_back(TimelineEventJson(e, timeline.start()));
  }
  return out;
}

}  // namespace nodesmith::sim
