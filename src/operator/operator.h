// Operator: `nodesmith controller` — the one place (with src/cli/) that picks the real
// implementations: the Kubernetes client and its informers as the ClusterApi, the chosen cloud
// provider, the threaded runtime on the wall clock, leader election, Events, the JSON log. The
// controllers are the same objects the simulator and the unit tests run.
//
// Run():
//   1. resolves the REST config (--kubeconfig/--context, KUBECONFIG, in-cluster, ~/.kube/config)
//      with KUBE_CLIENT_QPS/BURST, and starts the informers; until every cache has synced (the
//      NodePool and NodeClaim CRDs served, RBAC allowing), it says why in the log every 30 s;
//   2. runs the threaded runtime (before leadership it only drains the informers' news);
//   3. elects a leader on the Lease LEADER_ELECTION_NAMESPACE/LEADER_ELECTION_NAME (unless
//      DISABLE_LEADER_ELECTION); once leading and synced, registers every controller;
//   4. returns on Shutdown() — after the reconcile in flight finished, the Events were flushed
//      and the Lease was released — with 0, or with 1 when leadership was lost or the
//      configuration cannot work (no API server, no cloud).
// Ready() (for /readyz) is true once the caches synced, whatever the leadership; Leading() for
// the leader_election_master_status metric.
//
// Thread-safety: Shutdown(), Ready(), Leading() from any thread; Run() once.
#pragma once

#include <atomic>
#include <condition_variable>
#include <functional>
#include <memory>
#include <mutex>
#include <string>
#include <vector>

#include "operator/json_logger.h"
#include "operator/options.h"

namespace nodesmith::op {

class Operator {
 public:
  Operator(Options options, JsonLogger& logger);
  ~Operator();
  Operator(const Operator&) = delete;
  Operator& operator=(const Operator&) = delete;

  int Run();
  void Shutdown();

  bool Ready() const { return ready_.load(); }
  bool Leading() const { return leading_.load(); }
  // Called once the controllers run (tests and the metrics wiring hook in here).
  void OnLeading(std::function<void()> fn) { on_leading_ = std::move(fn); }

 private:
  void Log(LogSeverity severity, const std::string& message,
           const nlohmann::ordered_json& fields = {});
  // Waits up to `timeout`; true when Shutdown() was called.
  bool WaitForShutdown(std::chrono::milliseconds timeout);

  Options options_;
  JsonLogger& logger_;
  std::function<void()> on_leading_;

  std::atomic<bool> ready_{false};
  std::atomic<bool> leading_{false};
  std::mutex mu_;
  std::condition_variable cv_;
  bool shutdown_ = false;
  bool lost_leadership_ = false;
  bool became_leader_ = false;
  // Periodic tasks posted on the runtime; they stop rescheduling once released here.
  std::vector<std::shared_ptr<std::function<void()>>> collectors_;
};

}  // namespace nodesmith::op
