// RetryStrategy: the AWS SDKs' "standard" retry mode, shared by every call of one client.
//
// A failed attempt is retried when it is a connection error, a throttling or transient error
// code, HTTP 500/502/503/504, or a clock-skew error (once the skew is corrected), while attempts
// remain (AWS_MAX_ATTEMPTS, default 3) and the retry quota has tokens: 500 to start, 5 taken per
// retry (10 after a timeout), given back on success (1 for a success at the first try), so a
// failing endpoint is not hammered by every caller's retries at once. The wait before retry i
// is exponential with full jitter: random(0,1) * 2^i seconds, at most 20 s.
// Thread-safe. The random source is injected so tests see exact delays.
#pragma once

#include <functional>
#include <mutex>
#include <optional>

#include "core/time.h"

namespace nodesmith::aws {

struct RetryOptions {
  int max_attempts = 3;
  core::Duration max_backoff = std::chrono::seconds(20);
  int quota = 500;
};

enum class FailureKind {
  kNotRetryable,
  kThrottling,
  kTransient,   // 5xx, transient error codes, connection refused or reset
  kTimeout,     // no answer in time
  kClockSkew,
};

class RetryStrategy {
 public:
  // `random01` returns a uniform value in [0, 1).
  RetryStrategy(RetryOptions options, std::function<double()> random01);

  // After attempt number `attempt` (1-based) failed with `kind`: the wait before the next
  // attempt, or nothing when the call must give up. Takes the retry's cost from the quota.
  std::optional<core::Duration> RetryAfter(int attempt, FailureKind kind);
  // A call succeeded; `retried` when it took more than one attempt.
  void OnSuccess(bool retried, FailureKind last_failure);

  int quota_left() const;
  const RetryOptions& options() const { return options_; }

 private:
  RetryOptions options_;
  std::function<double()> random01_;
  mutable std::mutex mu_;
  int tokens_;
};

// RetryOptions from the environment as the SDKs read it (AWS_MAX_ATTEMPTS).
RetryOptions RetryOptionsFromEnvironment(
    const std::function<std::optional<std::string>(const std::string&)>& getenv);

}  // namespace nodesmith::aws
