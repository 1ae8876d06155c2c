#include "runtime/work_queue.h"

#include <gmock/gmock.h>
#include <gtest/gtest.h>

#include <vector>

namespace nodesmith::runtime {
namespace {

using std::chrono::milliseconds;
using std::chrono::seconds;

constexpr core::Time kStart{1'700'000'000'000'000'000};

class WorkQueueTest : public ::testing::Test {
 protected:
  core::FakeClock clock_{kStart};
  EventLoop loop_{clock_};
  int ready_signals_ = 0;
  WorkQueue queue_{loop_, [this] { ++ready_signals_; }};
};

TEST_F(WorkQueueTest, HandsOutRequestsInFifoOrder) {
  queue_.Add({"ns", "b"});
  queue_.Add({"ns", "a"});
  queue_.Add({"ns", "c"});
  EXPECT_EQ(queue_.Len(), 3u);
  EXPECT_EQ(queue_.Get()->name, "b");
  EXPECT_EQ(queue_.Get()->name, "a");
  EXPECT_EQ(queue_.Get()->name, "c");
  EXPECT_FALSE(queue_.Get().has_value());
}

TEST_F(WorkQueueTest, ARequestAlreadyQueuedIsNotQueuedTwice) {
  queue_.Add({"ns", "a"});
  queue_.Add({"ns", "a"});
  queue_.Add({"ns", "a"});
  EXPECT_EQ(queue_.Len(), 1u);
  EXPECT_EQ(ready_signals_, 1);
}

TEST_F(WorkQueueTest, ARequestAddedWhileProcessingIsQueuedAgainOnDone) {
  queue_.Add({"ns", "a"});
  Request r = *queue_.Get();
  queue_.Add(r);
  queue_.Add(r);
  // Not handed out twice at once.
  EXPECT_EQ(queue_.Len(), 0u);
  EXPECT_FALSE(queue_.Get().has_value());
  queue_.Done(r);
  EXPECT_EQ(queue_.Len(), 1u);
  EXPECT_EQ(*queue_.Get(), r);
}

TEST_F(WorkQueueTest, DoneWithoutAReAddLeavesTheQueueEmpty) {
  queue_.Add({"ns", "a"});
  Request r = *queue_.Get();
  queue_.Done(r);
  EXPECT_EQ(queue_.Len(), 0u);
}

TEST_F(WorkQueueTest, AddAfterMakesTheRequestReadyWhenTheTimerFires) {
  queue_.AddAfter({"ns", "a"}, seconds(10));
  EXPECT_EQ(queue_.Len(), 0u);
  EXPECT_EQ(queue_.Waiting(), 1u);
  loop_.RunUntil(kStart + seconds(9));
  EXPECT_EQ(queue_.Len(), 0u);
  loop_.RunUntil(kStart + seconds(10));
  EXPECT_EQ(queue_.Len(), 1u);
  EXPECT_EQ(queue_.Waiting(), 0u);
}

TEST_F(WorkQueueTest, ALaterAddAfterDoesNotPostponeAnEarlierOne) {
  queue_.AddAfter({"ns", "a"}, seconds(10));
  queue_.AddAfter({"ns", "a"}, seconds(60));
  loop_.RunUntil(kStart + seconds(10));
  EXPECT_EQ(queue_.Len(), 1u);
  queue_.Get();
  loop_.RunUntil(kStart + seconds(120));
  EXPECT_EQ(queue_.Len(), 0u) << "the 60s requeue was absorbed by the 10s one";
}

TEST_F(WorkQueueTest, AnEarlierAddAfterReplacesALaterOne) {
  queue_.AddAfter({"ns", "a"}, seconds(60));
  queue_.AddAfter({"ns", "a"}, seconds(10));
  loop_.RunUntil(kStart + seconds(10));
  EXPECT_EQ(queue_.Len(), 1u);
  queue_.Get();
  loop_.RunUntil(kStart + seconds(120));
  EXPECT_EQ(queue_.Len(), 0u);
}

TEST_F(WorkQueueTest, AddAfterWithoutDelayIsAnAdd) {
  queue_.AddAfter({"ns", "a"}, seconds(0));
  EXPECT_EQ(queue_.Len(), 1u);
}

TEST_F(WorkQueueTest, AddRateLimitedWaitsTheBackoff) {
  Request r{"ns", "a"};
  queue_.AddRateLimited(r);  // 5ms
  loop_.RunUntil(kStart + milliseconds(4));
  EXPECT_EQ(queue_.Len(), 0u);
  loop_.RunUntil(kStart + milliseconds(5));
  EXPECT_EQ(queue_.Len(), 1u);
  queue_.Done(*queue_.Get());
  queue_.AddRateLimited(r);  // 10ms more
  loop_.RunUntil(kStart + milliseconds(14));
  EXPECT_EQ(queue_.Len(), 0u);
  loop_.RunUntil(kStart + milliseconds(15));
  EXPECT_EQ(queue_.Len(), 1u);
  EXPECT_EQ(queue_.NumRequeues(r), 2);
  queue_.Forget(r);
  EXPECT_EQ(queue_.NumRequeues(r), 0);
}

TEST(WorkQueueLifetimeTest, TimersOfADestroyedQueueDoNothing) {
  core::FakeClock clock(kStart);
  EventLoop loop(clock);
  int ready = 0;
  {
    WorkQueue queue(loop, [&] { ++ready; });
    queue.AddAfter({"ns", "a"}, seconds(1));
  }
  loop.RunUntil(kStart + seconds(5));
  EXPECT_EQ(ready, 0);
}

}  // namespace
}  // namespace nodesmith::runtime
