#include "runtime/rate_limiter.h"

#include <gtest/gtest.h>

namespace nodesmith::runtime {
namespace {

using std::chrono::milliseconds;
using std::chrono::seconds;

TEST(ExponentialBackoffTest, DoublesFromFiveMillisecondsPerConsecutiveFailure) {
  ExponentialBackoff backoff;
  Request r{"default", "web"};
  EXPECT_EQ(backoff.When(r), milliseconds(5));
  EXPECT_EQ(backoff.When(r), milliseconds(10));
  EXPECT_EQ(backoff.When(r), milliseconds(20));
  EXPECT_EQ(backoff.When(r), milliseconds(40));
  EXPECT_EQ(backoff.NumRequeues(r), 4);
}

TEST(ExponentialBackoffTest, CapsAtOneThousandSeconds) {
  ExponentialBackoff backoff;
  Request r{};
  core::Duration last{};
  // 5ms * 2^17 = 655.36s, 5ms * 2^18 = 1310.72s > 1000s.
  for (int i = 0; i < 18; ++i) last = backoff.When(r);
  EXPECT_EQ(last, milliseconds(655'360));
  EXPECT_EQ(backoff.When(r), seconds(1000));
  for (int i = 0; i < 100; ++i) last = backoff.When(r);
  EXPECT_EQ(last, seconds(1000));
}

TEST(ExponentialBackoffTest, CountsEachRequestSeparatelyAndForgetResets) {
  ExponentialBackoff backoff;
  Request a{"default", "a"};
  Request b{"default", "b"};
  backoff.When(a);
  backoff.When(a);
  EXPECT_EQ(backoff.When(b), milliseconds(5));
  EXPECT_EQ(backoff.When(a), milliseconds(20));
  backoff.Forget(a);
  EXPECT_EQ(backoff.NumRequeues(a), 0);
  EXPECT_EQ(backoff.When(a), milliseconds(5));
}

TEST(ExponentialBackoffTest, HonoursACustomBaseAndCap) {
  ExponentialBackoff backoff(seconds(1), seconds(3));
  Request r{};
  EXPECT_EQ(backoff.When(r), seconds(1));
  EXPECT_EQ(backoff.When(r), seconds(2));
  EXPECT_EQ(backoff.When(r), seconds(3));
  EXPECT_EQ(backoff.When(r), seconds(3));
}

}  // namespace
}  // namespace nodesmith::runtime
