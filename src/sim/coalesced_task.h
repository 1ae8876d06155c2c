// CoalescedTask: "run this soon" for the simulated Kubernetes components. Any number of
// Request() calls at one instant become a single run, scheduled on the EventLoop at Now()
// (after whatever is already due), as an informer-driven controller handles a burst of watch
// events in one pass. Watch callbacks call Request() instead of changing the cluster
// themselves, so every change happens in a loop event, in a fixed order.
// REQUIRES: the loop outlives the task, and the task outlives every event it scheduled (the
// world owns both and drops the loop's events with it).
#pragma once

#include <functional>
#include <utility>

#include "runtime/event_loop.h"

namespace nodesmith::sim {

class CoalescedTask {
 public:
  CoalescedTask(runtime::EventLoop& loop, std::function<void()> fn)
      : loop_(loop), fn_(std::move(fn)) {}
  CoalescedTask(const CoalescedTask&) = delete;
  CoalescedTask& operator=(const CoalescedTask&) = delete;

  void Request() {
    if (scheduled_) return;
    scheduled_ = true;
    loop_.At(loop_.Now(), [this] {
      scheduled_ = false;
      fn_();
    });
  }

 private:
  runtime::EventLoop& loop_;
  std::function<void()> fn_;
  bool scheduled_ = false;
};

}  // namespace nodesmith::sim
