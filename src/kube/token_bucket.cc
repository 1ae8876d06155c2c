#include "kube/token_bucket.h"

#include <thread>

namespace nodesmith::kube {

TokenBucket::TokenBucket(double qps, int burst, std::function<Clock::time_point()> now,
                         std::function<void(Clock::duration)> sleep)
    : qps_(qps),
      burst_(burst < 1 ? 1 : burst),
      now_(now ? std::move(now) : [] { return Clock::now(); }),
      sleep_(sleep ? std::move(sleep) : [](Clock::duration d) { std::this_thread::sleep_for(d); }),
      tokens_(burst_),
      last_(now_()) {}

TokenBucket::Clock::time_point TokenBucket::Reserve(Clock::time_point now) {
  double elapsed = std::chrono::duration<double>(now - last_).count();
  if (elapsed > 0) {
    tokens_ += elapsed * qps_;
    if (tokens_ > burst_) tokens_ = burst_;
    last_ = now;
  }
  tokens_ -= 1;
  if (tokens_ >= 0) return now;
  // The caller's token arrives once the deficit has been refilled.
  auto wait = std::chrono::duration<double>(-tokens_ / qps_);
  return now + std::chrono::duration_cast<Clock::duration>(wait);
}

TokenBucket::Clock::duration TokenBucket::Acquire() {
  if (qps_ <= 0) return Clock::duration::zero();
  Clock::time_point now, ready;
  {
    std::lock_guard<std::mutex> lock(mu_);
    now = now_();
    ready = Reserve(now);
  }
  if (ready <= now) return Clock::duration::zero();
  sleep_(ready - now);
  return ready - now;
}

bool TokenBucket::TryAcquire() {
  if (qps_ <= 0) return true;
  std::lock_guard<std::mutex> lock(mu_);
  Clock::time_point now = now_();
  double elapsed = std::chrono::duration<double>(now - last_).count();
  double available = tokens_ + (elapsed > 0 ? elapsed * qps_ : 0);
  if (available > burst_) available = burst_;
  if (available < 1) return false;
  Reserve(now);
  return true;
}

}  // namespace nodesmith::kube
