#include "cloud/aws/retry_strategy.h"

#include <algorithm>
#include <cmath>
#include <string>

namespace nodesmith::aws {

namespace {
constexpr int kRetryCost = 5;
constexpr int kTimeoutRetryCost = 10;
constexpr int kNoRetryIncrement = 1;
}  // namespace

RetryStrategy::RetryStrategy(RetryOptions options, std::function<double()> random01)
    : options_(options), random01_(std::move(random01)), tokens_(options.quota) {}

std::optional<core::Duration> RetryStrategy::RetryAfter(int attempt, FailureKind kind) {
  if (kind == FailureKind::kNotRetryable || attempt >= options_.max_attempts) return std::nullopt;
  int cost = kind == FailureKind::kTimeout ? kTimeoutRetryCost : kRetryCost;
  {
    std::lock_guard<std::mutex> lock(mu_);
    if (tokens_ < cost) return std::nullopt;
    tokens_ -= cost;
  }
  // A corrected clock needs no wait.
  if (kind == FailureKind::kClockSkew) return core::Duration(0);
  double seconds = random01_() * std::ldexp(1.0, std::min(attempt, 30));
  auto delay = std::chrono::duration_cast<core::Duration>(std::chrono::duration<double>(seconds));
  return std::min(delay, options_.max_backoff);
}

void RetryStrategy::OnSuccess(bool retried, FailureKind last_failure) {
  std::lock_guard<std::mutex> lock(mu_);
  int refund = !retried ? kNoRetryIncrement
                        : (last_failure == FailureKind::kTimeout ? kTimeoutRetryCost : kRetryCost);
  tokens_ = std::min(options_.quota, tokens_ + refund);
}

int RetryStrategy::quota_left() const {
  std::lock_guard<std::mutex> lock(mu_);
  return tokens_;
}

RetryOptions RetryOptionsFromEnvironment(
    const std::function<std::optional<std::string>(const std::string&)>& getenv) {
  RetryOptions options;
  if (getenv) {
    if (auto v = getenv("AWS_MAX_ATTEMPTS"); v && !v->empty()) {
      try {
        int n = std::stoi(*v);
        if (n >= 1) options.max_attempts = n;
      } catch (...) {
        // An unreadable value keeps the default, as the SDKs do.
      }
    }
  }
  return options;
}

}  // namespace nodesmith::aws
