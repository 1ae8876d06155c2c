// LeaderElector: one leader among the replicas of nodesmith, elected on a coordination.k8s.io/v1
// Lease as client-go's leaderelection package does it, so a nodesmith replica and a Karpenter
// replica configured alike take turns on the same Lease (`karpenter-leader-election`).
//
// The election record is the Lease's spec: holderIdentity, leaseDurationSeconds, acquireTime,
// renewTime (RFC 3339 MicroTime, "2026-12-01T10:00:00.000000Z") and leaseTransitions. Each round
// (TryAcquireOrRenew):
//   - the leader first renews optimistically: a PUT of the Lease it last wrote, with that
//     write's resourceVersion, setting renewTime;
//   - otherwise the Lease is read; absent, it is created with this elector as holder;
//   - a Lease held by someone else is left alone while it is valid: validity is judged on the
//     local monotonic clock, from the moment this elector last saw the record change, plus the
//     record's leaseDurationSeconds — never by comparing the holder's clock with ours;
//   - an expired or released (holderIdentity "") Lease is taken over with a PUT carrying the
//     resourceVersion just read, leaseTransitions + 1. A 409 answer means another candidate
//     won this round.
// Run() tries to acquire every retry period (with client-go's jitter factor 1.2) and, once
// leading, renews every retry period; when no renewal succeeds within the renew deadline,
// leadership is lost and Run() returns (the operator exits, as controller-runtime's manager does).
//
// The elector talks to the API server through a RestClient of its own, built from the RestConfig
// it is given, so it never waits behind the controllers' client-side rate limiter: a leader must
// not lose its Lease behind their writes during a large scale-up. Its requests go straight to
// that client's transport, one try each, with a timeout of what is left of the round (a round
// lasts at most the renew deadline): the election's own loop is the retry, and a hung API server
// cannot keep a leader believing it leads past the deadline.
//
// Thread-safety: IsLeader(), Leader() and identity() may be called from any thread. Run(),
// TryAcquireOrRenew() and Release() must not run concurrently with each other; Start()/Stop()
// run Run() on a thread the elector owns. Callbacks run on the thread that runs Run().
#pragma once

#include <atomic>
#include <chrono>
#include <condition_variable>
#include <functional>
#include <memory>
#include <mutex>
#include <random>
#include <string>
#include <thread>

#include "core/status.h"
#include "core/time.h"
#include "kube/rest_client.h"
#include "kube/rest_config.h"

namespace nodesmith::kube {

struct LeaderElectorOptions {
  std::string name = "karpenter-leader-election";
  // The Lease's namespace; "" : the RestConfig's namespace (the pod's, in a cluster), else
  // "default".
  std::string namespace_;
  // Who this replica is; "" : "<hostname>_<random uuid>", as controller-runtime makes it.
  std::string identity;

  // How long a non-leader waits, after it last saw the record change, before taking over.
  // Written to the Lease in whole seconds (at least 1).
  std::chrono::milliseconds lease_duration = std::chrono::seconds(15);
  // How long the leader keeps retrying a renewal before it gives leadership up.
  std::chrono::milliseconds renew_deadline = std::chrono::seconds(10);
  // How often candidates try to acquire and the leader renews.
  std::chrono::milliseconds retry_period = std::chrono::seconds(2);
  // Acquire attempts wait retry_period * (1 + random * jitter_factor), as client-go.
  double jitter_factor = 1.2;
  // When Run() ends while this elector holds the Lease (Stop(), or a lost renewal the server
  // still shows as ours), hand it over at once: see Release(). client-go's ReleaseOnCancel.
  bool release_on_cancel = true;

  // Called on the Run() thread when this elector becomes the leader. Must return promptly:
  // renewals wait for it. Start the controllers elsewhere.
  std::function<void()> on_started_leading;
  // Called on the Run() thread when leadership ends: renewal failed within the deadline, or
  // Stop() was called while leading. Called before the Lease is released (unlike client-go, which
  // releases first), so the work can stop before another replica may start it. Not called when
  // the elector never led.
  std::function<void()> on_stopped_leading;
  // Called on the Run() thread each time the observed holder changes to a non-empty identity
  // (including this elector's). Must return promptly.
  std::function<void(const std::string& identity)> on_new_leader;

  // Monotonic time for lease validity and the renew deadline; steady_clock::now when empty.
  // Waits between rounds are always real time.
  std::function<std::chrono::steady_clock::time_point()> now;
  // Wall time written to acquireTime and renewTime; the system clock when empty.
  std::function<core::Time()> wall_now;
  // Where the elector says what happened (acquired, lost, failed requests); nowhere when empty.
  std::function<void(const std::string&)> log;
};

// Where the election record lives. The production one reads and writes a Lease through the
// elector's own RestClient; tests substitute fakes. Each call gets the time left in the round (as
// client-go gives each request the renew deadline's context) and must answer within it, with
// a kDeadlineExceeded status if need be. Implementations need not be thread-safe: the elector
// calls them from one thread at a time.
class LeaseLock {
 public:
  using Timeout = std::chrono::nanoseconds;
  virtual ~LeaseLock() = default;
  // The Lease; a kNotFound status when there is none.
  virtual core::Result<Json> Get(const std::string& ns, const std::string& name,
                                 Timeout timeout) = 0;
  // Creates it; kAlreadyExists when someone else did first.
  virtual core::Result<Json> Create(const std::string& ns, const Json& lease, Timeout timeout) = 0;
  // Replaces it; `lease`'s metadata.resourceVersion is the precondition (a stale one is a
  // kConflict "conflict: ...").
  virtual core::Result<Json> Update(const std::string& ns, const std::string& name,
                                    const Json& lease, Timeout timeout) = 0;
};

// The spec of a Lease as the election reads it.
struct LeaderElectionRecord {
  std::string holder_identity;
  int lease_duration_seconds = 0;
  std::string acquire_time;  // MicroTime text
  std::string renew_time;
  int lease_transitions = 0;
};

class LeaderElector {
 public:
  // An elector with a RestClient of its own made from `config` (copied; its user agent gets
  // "/leader-election" appended).
  // Fails when the durations are inconsistent: each must be positive, lease_duration at least
  // 1 s and greater than renew_deadline, and renew_deadline greater than
  // jitter_factor * retry_period (client-go's rules).
  static core::Result<std::unique_ptr<LeaderElector>> Create(const RestConfig& config,
                                                             LeaderElectorOptions options = {});
  // The same over `lock` (tests). Namespace "" means "default".
  static core::Result<std::unique_ptr<LeaderElector>> Create(std::unique_ptr<LeaseLock> lock,
                                                             LeaderElectorOptions options = {});
  // Stops the thread Start() began (releasing the Lease as Stop() does).
  ~LeaderElector();
  LeaderElector(const LeaderElector&) = delete;
  LeaderElector& operator=(const LeaderElector&) = delete;

  // Blocks: acquires the Lease, calls on_started_leading, renews until the renew deadline passes
  // without a renewal or Stop() is called, calls on_stopped_leading, and releases the Lease when
  // release_on_cancel. Returns OK when stopped, kUnavailable when leadership was lost.
  // REQUIRES: not already running; not called again after it returned.
  core::Status Run();
  // Runs Run() on a thread of the elector's own. REQUIRES: neither Start() nor Run() before.
  void Start();
  // Ends Run() (waking it from any wait) and, when Start() began it, joins its thread; a
  // request in flight finishes first (at most the renew deadline). Idempotent. Must not be
  // called from a callback.
  void Stop();
  // What Run() returned on the thread Start() began; OK until it returned.
  core::Status run_status() const;

  // Hands the Lease over if this elector holds it, as client-go's ReleaseOnCancel: holderIdentity
  // "", leaseDurationSeconds 1, acquireTime and renewTime now, leaseTransitions and every other
  // field kept, so a standby takes over at its next attempt. The Lease is read first; one held
  // by someone else is left alone. REQUIRES: Run() is not running.
  core::Status Release();

  // One round of the election as Run() does it (see the file comment); true when this elector
  // holds the Lease afterwards. Also reports a new holder to on_new_leader. For tests that drive
  // the election without a thread. REQUIRES: Run() is not running.
  bool TryAcquireOrRenew();

  // True between on_started_leading and on_stopped_leading.
  bool IsLeader() const { return leading_.load(); }
  // The holder the elector last observed ("" before its first round, or when released).
  std::string Leader() const;
  const std::string& identity() const { return options_.identity; }
  const std::string& lease_namespace() const { return options_.namespace_; }
  const std::string& lease_name() const { return options_.name; }

 private:
  LeaderElector(std::unique_ptr<RestClient> client, std::unique_ptr<LeaseLock> lock,
                LeaderElectorOptions options);
  static core::Status Validate(const LeaderElectorOptions& options);

  // One round that gives up at `deadline`.
  bool Round(std::chrono::steady_clock::time_point deadline);
  // Whether the observed record names this elector, and whether it is still valid at `now`.
  // REQUIRES: mu_ held.
  bool HoldsObserved() const;
  bool LeaseValid(std::chrono::steady_clock::time_point now) const;
  void SetObserved(const LeaderElectionRecord& record, std::string raw);
  void ReportTransition();
  // Waits `d` of real time; false when Stop() was called.
  bool Wait(std::chrono::nanoseconds d);
  std::chrono::nanoseconds Jittered(std::chrono::nanoseconds d);
  void Log(const std::string& message) const;
  std::string Describe() const;

  std::unique_ptr<RestClient> client_;  // may be null (an injected lock)
  std::unique_ptr<LeaseLock> lock_;
  LeaderElectorOptions options_;
  const int lease_duration_seconds_;
  std::mt19937_64 rng_;

  // Guarded by mu_: the stop request, what was last observed of the record (and when, on the
  // monotonic clock), and what Run() returned.
  mutable std::mutex mu_;
  std::condition_variable cv_;
  bool stop_ = false;
  LeaderElectionRecord observed_;
  std::string observed_raw_;
  std::chrono::steady_clock::time_point observed_time_{};
  core::Status run_status_;

  // Used by the thread running the election only.
  Json lease_;  // the Lease as last read or written (its resourceVersion is the precondition)
  std::string reported_leader_;

  std::atomic<bool> leading_{false};
  std::thread thread_;
};

// Formats as a Kubernetes MicroTime: RFC 3339 in UTC with exactly six fractional digits.
std::string FormatMicroTime(core::Time t);

}  // namespace nodesmith::kube
