#include "kube/token_bucket.h"

#include <gtest/gtest.h>

namespace nodesmith::kube {
namespace {

using Clock = TokenBucket::Clock;
using std::chrono::milliseconds;

// A bucket on a fake clock whose "sleep" moves the clock.
struct FakeTime {
  Clock::time_point now{};
  Clock::duration slept{};
  std::function<Clock::time_point()> Now() { return [this] { return now; }; }
  std::function<void(Clock::duration)> Sleep() {
    return [this](Clock::duration d) { slept += d; now += d; };
  }
};

TEST(TokenBucketTest, BurstIsServedAtOnceThenRequestsArriveAtTheQpsRate) {
  FakeTime t;
  TokenBucket bucket(200, 300, t.Now(), t.Sleep());
  for (int i = 0; i < 300; ++i) EXPECT_EQ(bucket.Acquire(), Clock::duration::zero());
  // The 301st waits one token's time, 5 ms at 200 qps; the next one 5 ms more.
  EXPECT_EQ(std::chrono::duration_cast<milliseconds>(bucket.Acquire()), milliseconds(5));
  EXPECT_EQ(std::chrono::duration_cast<milliseconds>(bucket.Acquire()), milliseconds(5));
  EXPECT_EQ(std::chrono::duration_cast<milliseconds>(t.slept), milliseconds(10));
}

TEST(TokenBucketTest, IdleTimeRefillsUpToTheBurstOnly) {
  FakeTime t;
  TokenBucket bucket(10, 2, t.Now(), t.Sleep());
  EXPECT_TRUE(bucket.TryAcquire());
  EXPECT_TRUE(bucket.TryAcquire());
  EXPECT_FALSE(bucket.TryAcquire());
  t.now += std::chrono::seconds(60);  // a minute idle saves only the burst
  EXPECT_TRUE(bucket.TryAcquire());
  EXPECT_TRUE(bucket.TryAcquire());
  EXPECT_FALSE(bucket.TryAcquire());
  t.now += milliseconds(100);  // one token at 10 qps
  EXPECT_TRUE(bucket.TryAcquire());
}

TEST(TokenBucketTest, ZeroQpsMeansUnlimited) {
  FakeTime t;
  TokenBucket bucket(0, 1, t.Now(), t.Sleep());
  for (int i = 0; i < 1000; ++i) EXPECT_EQ(bucket.Acquire(), Clock::duration::zero());
}

}  // namespace
}  // namespace nodesmith::kube
