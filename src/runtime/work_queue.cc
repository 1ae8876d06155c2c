#include "runtime/work_queue.h"

#include <utility>

namespace nodesmith::runtime {

WorkQueue::WorkQueue(EventLoop& loop, std::function<void()> on_ready, ExponentialBackoff backoff)
    : loop_(loop), on_ready_(std::move(on_ready)), backoff_(std::move(backoff)) {}

void WorkQueue::Add(const Request& request) {
  if (dirty_.contains(request)) return;
  dirty_.insert(request);
  // Requeued by Done once the running reconcile ends.
  if (processing_.contains(request)) return;
  queue_.push_back(request);
  if (on_ready_) on_ready_();
}

void WorkQueue::AddAfter(const Request& request, core::Duration delay) {
  if (delay <= core::Duration::zero()) {
    Add(request);
    return;
  }
  core::Time ready = loop_.Now() + delay;
  auto it = waiting_.find(request);
  if (it != waiting_.end() && it->second <= ready) return;  // the earlier timer stands
  waiting_[request] = ready;
  std::weak_ptr<bool> alive = alive_;
  loop_.At(ready, [this, alive, request, ready] {
    if (alive.expired()) return;  // the queue is gone
    auto w = waiting_.find(request);
    // Superseded by an earlier AddAfter that already fired or was rescheduled.
    if (w == waiting_.end() || w->second != ready) return;
    waiting_.erase(w);
    Add(request);
  });
}

void WorkQueue::AddRateLimited(const Request& request) {
  AddAfter(request, backoff_.When(request));
}

std::optional<Request> WorkQueue::Get() {
  if (queue_.empty()) return std::nullopt;
  Request request = std::move(queue_.front());
  queue_.pop_front();
  dirty_.erase(request);
  processing_.insert(request);
  return request;
}

void WorkQueue::Done(const Request& request) {
  processing_.erase(request);
  if (dirty_.contains(request)) {
    queue_.push_back(request);
    if (on_ready_) on_ready_();
  }
}

}  // namespace nodesmith::runtime
