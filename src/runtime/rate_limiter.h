// ExponentialBackoff: how long a failing request waits before its next try.
//
// client-go's ItemExponentialFailureRateLimiter, the per-item half of controller-runtime's
// default controller rate limiter: the n-th consecutive failure of a request waits
// base * 2^(n-1) (5 ms, 10 ms, 20 ms, ... by default), capped at max_delay (1000 s). Forget
// resets a request once it succeeds. The token-bucket half of the upstream limiter (10 qps,
// burst 100) only matters for wall-clock throughput and is not modelled.
#pragma once

#include <chrono>
#include <map>

#include "core/duration.h"
#include "runtime/controller.h"

namespace nodesmith::runtime {

class ExponentialBackoff {
 public:
  static constexpr core::Duration kDefaultBase = std::chrono::milliseconds(5);
  static constexpr core::Duration kDefaultMax = std::chrono::seconds(1000);

  explicit ExponentialBackoff(core::Duration base = kDefaultBase, core::Duration max = kDefaultMax)
      : base_(base), max_(max) {}

  // Records one more failure of `request` and returns how long it should wait.
  core::Duration When(const Request& request);
  // Clears the failure count of `request`.
  void Forget(const Request& request) { failures_.erase(request); }
  // Consecutive failures recorded for `request`.
  int NumRequeues(const Request& request) const;

 private:
  core::Duration base_;
  core::Duration max_;
  std::map<Request, int> failures_;
};

}  // namespace nodesmith::runtime
