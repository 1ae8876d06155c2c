// WorkQueue: one controller's queue of reconcile requests in virtual time, with the semantics
// of client-go's rate-limited delaying workqueue.
//
//  - Add de-duplicates: a request already waiting to run is not queued twice. A request added
//    while it is being reconciled is queued again once Done is called (so no change is lost and
//    one request never runs twice at once).
//  - AddAfter(d) makes the request ready at Now() + d by an EventLoop timer; an earlier pending
//    AddAfter of the same request is never postponed by a later one.
//  - AddRateLimited waits the request's exponential backoff (rate_limiter.h); Forget resets it.
// Ready requests come out of Get in FIFO order. `on_ready` is called each time a request
// becomes ready so the owner can schedule work; it must not call back into the queue.
// Timers scheduled on the loop are ignored once the queue is destroyed.
#pragma once

#include <deque>
#include <functional>
#include <map>
#include <memory>
#include <optional>
#include <set>

#include "runtime/controller.h"
#include "runtime/event_loop.h"
#include "runtime/rate_limiter.h"

namespace nodesmith::runtime {

class WorkQueue {
 public:
  WorkQueue(EventLoop& loop, std::function<void()> on_ready,
            ExponentialBackoff backoff = ExponentialBackoff());
  WorkQueue(const WorkQueue&) = delete;
  WorkQueue& operator=(const WorkQueue&) = delete;

  void Add(const Request& request);
  void AddAfter(const Request& request, core::Duration delay);
  void AddRateLimited(const Request& request);
  void Forget(const Request& request) { backoff_.Forget(request); }
  int NumRequeues(const Request& request) const { return backoff_.NumRequeues(request); }

  // Takes the oldest ready request and marks it in progress; nullopt when none is ready.
  std::optional<Request> Get();
  // Ends processing of a request taken by Get. REQUIRES: request came from Get.
  void Done(const Request& request);

  // Requests ready to run.
  size_t Len() const { return queue_.size(); }
  // Requests waiting for an AddAfter/AddRateLimited timer.
  size_t Waiting() const { return waiting_.size(); }

 private:
  EventLoop& loop_;
  std::function<void()> on_ready_;
  ExponentialBackoff backoff_;
  std::deque<Request> queue_;              // ready, in order
  std::set<Request> dirty_;                // ready or re-added while processing
  std::set<Request> processing_;           // taken by Get, not yet Done
  std::map<Request, core::Time> waiting_;  // earliest pending AddAfter per request
  // Timers hold a weak reference: they do nothing once the queue is destroyed.
  std::shared_ptr<bool> alive_ = std::make_shared<bool>(true);
};

}  // namespace nodesmith::runtime
