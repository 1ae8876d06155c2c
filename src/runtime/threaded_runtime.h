// ThreadedRuntime: drives Controllers in a real cluster, on the wall clock, with exactly the
// semantics of the discrete-event runtime (controller_runtime.h) — the same work queues,
// de-duplication, RequeueAfter and backoff — because it is that runtime, over an EventLoop that
// follows the wall clock instead of jumping through virtual time.
//
// One thread (Run) owns the loop and calls every reconcile, one at a time: ClusterApi and the
// state controllers share (nominations, the cluster snapshot) are single-threaded by contract,
// and a reconcile here takes milliseconds. Each turn of Run:
//   1. runs the functions Post()ed from other threads;
//   2. calls `pump` (KubeCluster::DispatchEvents): changes the informers queued are announced
//      to the watchers, which enqueue requests;
//   3. runs every loop event due by the wall clock, setting the clock the controllers read to
//      the wall time before each one (never backwards), pumping again between events so a long
//      reconcile does not delay news;
//   4. sleeps until the next loop event, a Wake() (an informer queued a change), a Post(), or
//      Stop().
// Reconciles are timed on the wall clock, so the one thread is shared fairly among the
// controllers (see SimulatedRuntime: a slow reconcile does not buy a turn per fast one).
// Stop() lets the reconcile in flight finish — its writes complete or fail as they would — and
// makes Run return before the next one starts.
//
// The clock() handed to controllers is only read on the runtime thread. Wake(), Post() and
// Stop() are thread-safe; everything else must be called before Start() or on the runtime
// thread. REQUIRES: the cluster outlives the runtime.
#pragma once

#include <condition_variable>
#include <functional>
#include <memory>
#include <mutex>
#include <thread>
#include <vector>

#include "cluster/cluster_api.h"
#include "core/clock.h"
#include "runtime/controller_runtime.h"
#include "runtime/event_loop.h"

namespace nodesmith::runtime {

struct ThreadedRuntimeOptions {
  // Announces changes other threads queued for the cluster's watchers; returns how many.
  std::function<size_t()> pump;
  // The wall clock; the system clock when empty (tests pass their own).
  std::function<core::Time()> now;
  // The longest Run sleeps without looking at the pump, in case a Wake() was missed.
  core::Duration max_sleep = std::chrono::milliseconds(200);
};

class ThreadedRuntime {
 public:
  ThreadedRuntime(cluster::ClusterApi& cluster, ThreadedRuntimeOptions options);
  // Stop() and join.
  ~ThreadedRuntime();
  ThreadedRuntime(const ThreadedRuntime&) = delete;
  ThreadedRuntime& operator=(const ThreadedRuntime&) = delete;

  // The clock controllers are given: the wall time as of the current step of the loop.
  const core::Clock& clock() const { return clock_; }
  EventLoop& loop() { return loop_; }
  // Register controllers here (before Start(), or from a Post()ed function).
  SimulatedRuntime& controllers() { return runtime_; }

  // Runs the loop on the calling thread until Stop(). REQUIRES: not already running.
  void Run();
  // Runs Run() on a thread of its own.
  void Start();
  // Ends Run() after the reconcile in flight, and joins the thread Start() began. Idempotent.
  // Must not be called from the runtime thread.
  void Stop();
  // Asks Run() to look at the pump now.
  void Wake();
  // Runs `fn` on the runtime thread at its next turn.
  void Post(std::function<void()> fn);
  // Runs `fn` on the runtime thread and waits for it; false when the runtime stopped first.
  bool RunSync(std::function<void()> fn);

  bool running() const;
  // Loop events run so far (reconciles, timers).
  uint64_t steps() const;

 private:
  core::Time WallNow() const;
  void Pump();

  ThreadedRuntimeOptions options_;
  core::FakeClock clock_;
  EventLoop loop_;
  SimulatedRuntime runtime_;

  mutable std::mutex mu_;
  std::condition_variable cv_;
  bool stop_ = false;
  bool woken_ = false;
  bool running_ = false;
  uint64_t steps_ = 0;
  std::vector<std::function<void()>> posted_;
  std::thread thread_;
};

}  // namespace nodesmith::runtime
