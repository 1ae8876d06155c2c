#include "runtime/event_loop.h"

#include <cassert>
#include <utility>

namespace nodesmith::runtime {

void EventLoop::At(core::Time at, std::function<void()> fn) {
  // An event in the past would move the clock backwards; run it "now" instead, after every event
  // already due now (its sequence number is larger).
  if (at < clock_.Now()) at = clock_.Now();
  queue_.push(Event{at, next_seq_++, std::move(fn)});
}

bool EventLoop::RunNext() {
  if (queue_.empty()) return false;
  // Take the event out before running it: the callback may schedule more events, which
  // reorders queue_.
  Event event = queue_.top();
  queue_.pop();
  if (event.at > clock_.Now()) clock_.Set(event.at);
  event.fn();
  return true;
}

bool EventLoop::RunNextDue(core::Time now) {
  if (queue_.empty() || queue_.top().at > now) return false;
  if (now > clock_.Now()) clock_.Set(now);
  return RunNext();
}

void EventLoop::RunUntil(core::Time end) {
  while (!queue_.empty() && queue_.top().at <= end) RunNext();
  if (clock_.Now() < end) clock_.Set(end);
}

core::Time EventLoop::NextEventTime() const {
  assert(!queue_.empty());
  return queue_.top().at;
}

}  // namespace nodesmith::runtime
