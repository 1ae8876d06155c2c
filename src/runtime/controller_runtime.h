// SimulatedRuntime: drives Controllers on a discrete-event loop, as controller-runtime's
// manager drives them in a real cluster.
//
// For each registered controller the runtime keeps a WorkQueue (work_queue.h) and:
//  - watches the controller's kinds on the ClusterApi; every change enqueues a Request at Now()
//    (the changed object's key, or the empty Request for a singleton controller), which carries
//    to its reconcile when the latest such change of each kind was observed
//    (Request::changed_at). Objects that
//    exist at registration are enqueued once, like an informer's initial list; a singleton is
//    enqueued once at registration whatever exists, like Karpenter's singleton source;
//  - runs one Reconcile per EventLoop event, so reconciles of all controllers run one at a time
//    and interleave in event order; a reconcile takes no virtual time;
//  - after a reconcile: an error is passed to the controller's error hook (if any) and the
//    request retried with exponential backoff (5 ms doubling to 1000 s); RequeueAfter(d > 0)
//    resets the backoff and re-adds the request after d; RequeueAfter(d <= 0) is a plain
//    "requeue" and waits the backoff, as controller-runtime's Requeue: true; Done() forgets it.
// With a stopwatch (the threaded runtime's wall clock), reconciles take time, and the one thread
// is shared by it, as a fair scheduler shares a core: each controller counts the thread time its
// reconciles used, and when its turn comes while a controller that used less has work ready, it
// goes to the back of the line. A controller waking from idle is counted as having used no less
// than the least-served busy one minus one second, so idling banks no more than a second of
// priority. So a controller with slow reconciles (a disruption pass of seconds) gets about half
// of the thread while another has work, and all of it when none has; without the rule each of
// the others would get one reconcile per slow one. In virtual time reconciles take no time and
// nothing changes.
// The runtime owns neither the controllers, the loop nor the cluster. REQUIRES: all three
// outlive the runtime's use; watches and timers registered by a destroyed runtime do nothing.
#pragma once

#include <cstdint>
#include <functional>
#include <map>
#include <memory>
#include <string>
#include <vector>

#include "cluster/cluster_api.h"
#include "runtime/controller.h"
#include "runtime/event_loop.h"
#include "runtime/work_queue.h"

namespace nodesmith::runtime {

class SimulatedRuntime {
 public:
  // Called with the failed request and the controller's error, before the retry is queued.
  using ErrorHook = std::function<void(const Request&, const core::Status&)>;

  SimulatedRuntime(EventLoop& loop, cluster::ClusterApi& cluster);
  SimulatedRuntime(const SimulatedRuntime&) = delete;
  SimulatedRuntime& operator=(const SimulatedRuntime&) = delete;

  // Told of every reconcile, before and after it runs (metrics). `result` is "success",
  // "error", "requeue" (backoff) or "requeue_after", as controller-runtime's reconcile_total
  // labels them.
  using ReconcileObserver =
      std::function<void(const std::string& controller, const char* result)>;
  void SetObservers(std::function<void(const std::string& controller)> before,
                    ReconcileObserver after) {
    before_ = std::move(before);
    after_ = std::move(after);
  }

  // Measures how long each reconcile takes, for the fair share above; without it reconciles
  // take no time, as in the simulator.
  void SetStopwatch(std::function<core::Time()> now) { stopwatch_ = std::move(now); }

  // Starts driving `controller`. REQUIRES: its Name() is not registered yet.
  void Register(Controller& controller, ErrorHook on_error = nullptr);

  // Enqueues a request for the named controller now / after `delay` (e.g. a cloud event, or a
  // test poking a controller). Returns NotFound for an unknown controller.
  core::Status Enqueue(const std::string& controller, const Request& request);
  core::Status EnqueueAfter(const std::string& controller, const Request& request,
                            core::Duration delay);

  // Reconcile calls made / failed so far for the named controller (0 when unknown).
  int64_t ReconcileCount(const std::string& controller) const;
  int64_t ErrorCount(const std::string& controller) const;
  // Requests ready to run (not counting those waiting on a timer) for the named controller.
  size_t QueueLength(const std::string& controller) const;
  // Names of registered controllers, in registration order.
  std::vector<std::string> Controllers() const;

 private:
  struct Entry {
    Controller* controller = nullptr;
    std::string name;
    ErrorHook on_error;
    std::unique_ptr<WorkQueue> queue;
    bool scheduled = false;  // a RunOne event for this entry is on the loop
    int64_t reconciles = 0;
    int64_t errors = 0;
    core::Duration used{0};  // thread time its reconciles took, for the fair share
    // Per request waiting in the queue and per kind: when the latest change that asked for it
    // was observed (Request::changed_at), handed out with it.
    std::map<Request, std::map<cluster::Kind, core::Time>> changed_at;
  };

  Entry* Find(const std::string& name) const;
  // `waking`: the entry's queue has just got work (not: it goes on with more).
  void Schedule(Entry& entry, bool waking);
  void RunOne(Entry& entry);
  // True when another controller that used less of the thread than `entry` has work ready.
  bool ShouldYield(const Entry& entry) const;
  // Counts a reconcile of `entry` that took `took`.
  void Charge(Entry& entry, core::Duration took);
  static Request RequestFor(const Controller& controller, const std::string& ns,
                            const std::string& name);

  EventLoop& loop_;
  cluster::ClusterApi& cluster_;
  std::function<void(const std::string&)> before_;
  ReconcileObserver after_;
  std::function<core::Time()> stopwatch_;
  // The least thread time used among the controllers with work, as of the last reconcile; it
  // never decreases. Waking controllers are counted from a second below it.
  core::Duration least_used_{0};
  std::vector<std::unique_ptr<Entry>> entries_;
  std::map<std::string, Entry*> by_name_;
  // Watch callbacks and loop events hold a weak reference and do nothing once it expires.
  std::shared_ptr<bool> alive_ = std::make_shared<bool>(true);
};

}  // namespace nodesmith::runtime
