#include "runtime/rate_limiter.h"

namespace nodesmith::runtime {

core::Duration ExponentialBackoff::When(const Request& request) {
  int exp = failures_[request]++;
  // Double step by step so a long failure streak saturates at max_ instead of overflowing.
  core::Duration delay = base_;
  for (int i = 0; i < exp && delay < max_; ++i) delay *= 2;
  return delay < max_ ? delay : max_;
}

int ExponentialBackoff::NumRequeues(const Request& request) const {
  auto it = failures_.find(request);
  return it == failures_.end() ? 0 : it->second;
}

}  // namespace nodesmith::runtime
