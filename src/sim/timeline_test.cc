#include "sim/timeline.h"

#include <gtest/gtest.h>
#include <nlohmann/json.hpp>

namespace nodesmith::sim {
namespace {

using namespace std::chrono_literals;

core::Time Start() { return *core::ParseRfc3339("2025-01-01T00:00:00Z"); }

TEST(Timeline, StampsEachEventWithTheClocksTimeAndKeepsThemInOrder) {
  core::FakeClock clock(Start());
  Timeline timeline(clock, Start());
  timeline.Record({runtime::LogLevel::kInfo, "controller.provisioner", "Found 5 provisionable pods", "", {}});
  clock.Step(61s);
  timeline.Record({runtime::LogLevel::kInfo, "kube-scheduler", "Bound pod default/a to node n",
                   "PodBound", {{"pod", "default/a"}, {"node", "n"}}});
  ASSERT_EQ(timeline.events().size(), 2u);
  EXPECT_EQ(timeline.events()[0].at, Start());
  EXPECT_EQ(timeline.events()[1].at, Start() + 61s);
  ASSERT_EQ(timeline.OfType("PodBound").size(), 1u);
  EXPECT_EQ(Timeline::Field(timeline.OfType("PodBound")[0].event, "node"), "n");
}

TEST(Timeline, LogLinesCarryMillisecondTimestampsLevelLoggerAndFields) {
  TimelineEvent e{Start() + 1s,
                  {runtime::LogLevel::kInfo, "controller.provisioner", "Found 5 provisionable pods",
                   "", {}}};
  EXPECT_EQ(FormatLogLine(e),
            "2025-01-01T00:00:01.000Z INFO controller.provisioner Found 5 provisionable pods");
  e.at = Start() + 1500ms;
  e.event.fields = {{"pods", "5"}};
  e.event.level = runtime::LogLevel::kDebug;
  EXPECT_EQ(FormatLogLine(e),
            "2025-01-01T00:00:01.500Z DEBUG controller.provisioner Found 5 provisionable pods "
            "{\"pods\":\"5\"}");
}

TEST(Timeline, JsonEventsHaveSecondsSinceStartTimeTypeFieldsAndMessage) {
  TimelineEvent e{Start() + 61s,
                  {runtime::LogLevel::kInfo, "kube-scheduler", "Bound", "PodBound",
                   {{"pod", "default/a"}, {"node", "n"}}}};
  EXPECT_EQ(TimelineEventJson(e, Start()).dump(),
            R"({"t":61.0,"time":"2025-01-01T00:01:01Z","type":"PodBound","pod":"default/a","node":"n","message":"Bound"})");
}

TEST(Timeline, ARepeatedFieldBecomesAList) {
  TimelineEvent e{Start(), {runtime::LogLevel::kInfo, "x", "m", "T", {{"pod", "a"}, {"pod", "b"}}}};
  EXPECT_EQ(TimelineEventJson(e, Start())["pod"], nlohmann::ordered_json::array({"a", "b"}));
}

TEST(Timeline, OnlyTypedEventsReachTheJsonTimeline) {
  core::FakeClock clock(Start());
  Timeline timeline(clock, Start());
  timeline.Record({runtime::LogLevel::kInfo, "x", "log only", "", {}});
  timeline.Record({runtime::LogLevel::kInfo, "x", "typed", "PodPending", {{"pod", "default/a"}}});
  auto events = TimelineEventsJson(timeline);
  ASSERT_EQ(events.size(), 1u);
  EXPECT_EQ(events[0]["type"], "PodPending");
}

TEST(Timeline, TheObserverSeesEveryEventAsItIsRecorded) {
  core::FakeClock clock(Start());
  Timeline timeline(clock, Start());
  std::vector<std::string> seen;
  timeline.SetObserver([&](const TimelineEvent& e) { seen.push_back(e.event.message); });
  timeline.Record({runtime::LogLevel::kInfo, "x", "one", "", {}});
  timeline.Record({runtime::LogLevel::kInfo, "x", "two", "T", {}});
  EXPECT_EQ(seen, (std::vector<std::string>{"one", "two"}));
}

}  // namespace
}  // namespace nodesmith::sim
