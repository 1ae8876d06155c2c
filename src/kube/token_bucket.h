// TokenBucket: client-side rate limiting of API requests, as client-go's flowcontrol token
// bucket (KUBE_CLIENT_QPS tokens a second, up to KUBE_CLIENT_BURST saved up).
//
// Acquire() takes one token, blocking the calling thread until one is there; requests are
// served in arrival order. The bucket starts full. Thread-safe. A qps <= 0 means unlimited.
#pragma once

#include <chrono>
#include <functional>
#include <mutex>

namespace nodesmith::kube {

class TokenBucket {
 public:
  using Clock = std::chrono::steady_clock;
  // `now` and `sleep` default to the steady clock and this_thread::sleep_for (tests inject both).
  TokenBucket(double qps, int burst, std::function<Clock::time_point()> now = nullptr,
              std::function<void(Clock::duration)> sleep = nullptr);

  // Takes a token, waiting as long as needed. Returns how long the caller waited.
  Clock::duration Acquire();
  // Takes a token only if one is available now.
  bool TryAcquire();

 private:
  // Reserves a token; returns when it becomes usable. REQUIRES: mu_ held.
  Clock::time_point Reserve(Clock::time_point now);

  const double qps_;
  const double burst_;
  std::function<Clock::time_point()> now_;
  std::function<void(Clock::duration)> sleep_;
  std::mutex mu_;
  double tokens_;              // may go negative: tokens promised to waiting callers
  Clock::time_point last_;
};

}  // namespace nodesmith::kube
