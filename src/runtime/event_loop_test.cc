#include "runtime/event_loop.h"

#include <gmock/gmock.h>
#include <gtest/gtest.h>

#include <string>
#include <vector>

namespace nodesmith::runtime {
namespace {

using std::chrono::seconds;
using ::testing::ElementsAre;

constexpr core::Time kStart{1'700'000'000'000'000'000};

TEST(EventLoopTest, AnEmptyLoopHasNothingToRun) {
  core::FakeClock clock(kStart);
  EventLoop loop(clock);
  EXPECT_TRUE(loop.empty());
  EXPECT_FALSE(loop.RunNext());
  EXPECT_EQ(clock.Now(), kStart);
}

TEST(EventLoopTest, EventsRunInTimeOrderAndMoveTheClock) {
  core::FakeClock clock(kStart);
  EventLoop loop(clock);
  std::vector<std::string> ran;
  std::vector<core::Time> at;
  loop.After(seconds(3), [&] {
    ran.push_back("c");
    at.push_back(clock.Now());
  });
  loop.After(seconds(1), [&] {
    ran.push_back("a");
    at.push_back(clock.Now());
  });
  loop.After(seconds(2), [&] {
    ran.push_back("b");
    at.push_back(clock.Now());
  });
  EXPECT_EQ(loop.pending(), 3u);
  EXPECT_EQ(loop.NextEventTime(), kStart + seconds(1));
  while (loop.RunNext()) {
  }
  EXPECT_THAT(ran, ElementsAre("a", "b", "c"));
  EXPECT_THAT(at, ElementsAre(kStart + seconds(1), kStart + seconds(2), kStart + seconds(3)));
}

TEST(EventLoopTest, EventsAtTheSameInstantRunInInsertionOrder) {
  core::FakeClock clock(kStart);
  EventLoop loop(clock);
  std::vector<int> ran;
  for (int i = 0; i < 20; ++i) loop.At(kStart + seconds(5), [&ran, i] { ran.push_back(i); });
  while (loop.RunNext()) {
  }
  ASSERT_EQ(ran.size(), 20u);
  for (int i = 0; i < 20; ++i) EXPECT_EQ(ran[i], i);
}

TEST(EventLoopTest, CallbacksMayScheduleMoreEvents) {
  core::FakeClock clock(kStart);
  EventLoop loop(clock);
  std::vector<std::string> ran;
  loop.After(seconds(1), [&] {
    ran.push_back("first");
    // Due now: runs after everything already due now, before later events.
    loop.After(seconds(0), [&] { ran.push_back("first+0"); });
    loop.After(seconds(10), [&] { ran.push_back("first+10"); });
  });
  loop.After(seconds(1), [&] { ran.push_back("second"); });
  loop.After(seconds(2), [&] { ran.push_back("third"); });
  while (loop.RunNext()) {
  }
  EXPECT_THAT(ran, ElementsAre("first", "second", "first+0", "third", "first+10"));
  EXPECT_EQ(clock.Now(), kStart + seconds(11));
}

TEST(EventLoopTest, AnEventInThePastRunsNowWithoutMovingTheClockBack) {
  core::FakeClock clock(kStart);
  EventLoop loop(clock);
  core::Time seen{};
  loop.At(kStart - seconds(30), [&] { seen = clock.Now(); });
  EXPECT_EQ(loop.NextEventTime(), kStart);
  ASSERT_TRUE(loop.RunNext());
  EXPECT_EQ(seen, kStart);
}

TEST(EventLoopTest, RunUntilRunsDueEventsThenSetsTheClockToTheEnd) {
  core::FakeClock clock(kStart);
  EventLoop loop(clock);
  std::vector<std::string> ran;
  loop.After(seconds(1), [&] { ran.push_back("1s"); });
  loop.After(seconds(5), [&] { ran.push_back("5s"); });
  loop.After(seconds(6), [&] { ran.push_back("6s"); });
  loop.RunUntil(kStart + seconds(5));
  EXPECT_THAT(ran, ElementsAre("1s", "5s"));
  EXPECT_EQ(clock.Now(), kStart + seconds(5));
  EXPECT_EQ(loop.pending(), 1u);
  loop.RunUntil(kStart + seconds(60));
  EXPECT_THAT(ran, ElementsAre("1s", "5s", "6s"));
  EXPECT_EQ(clock.Now(), kStart + seconds(60));
}

TEST(EventLoopTest, RunUntilRunsEventsScheduledByCallbacksWithinTheWindow) {
  core::FakeClock clock(kStart);
  EventLoop loop(clock);
  int ticks = 0;
  // A timer that re-arms itself every second.
  std::function<void()> tick = [&] {
    ++ticks;
    loop.After(seconds(1), tick);
  };
  loop.After(seconds(1), tick);
  loop.RunUntil(kStart + seconds(10));
  EXPECT_EQ(ticks, 10);
  EXPECT_EQ(loop.NextEventTime(), kStart + seconds(11));
}

TEST(EventLoopTest, RunUntilAnEarlierInstantDoesNotMoveTheClockBack) {
  core::FakeClock clock(kStart + seconds(100));
  EventLoop loop(clock);
  loop.RunUntil(kStart);
  EXPECT_EQ(clock.Now(), kStart + seconds(100));
}

}  // namespace
}  // namespace nodesmith::runtime
