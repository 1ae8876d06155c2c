// OperatorMetrics: what `nodesmith controller` exports on /metrics, under Karpenter's names
// (metrics/karpenter_metrics.h), and how it fills them:
//   - reconcile observers of the runtime: controller_runtime_reconcile_{total,errors_total,
//     time_seconds};
//   - the controllers' reports (runtime::RecordedEvent): nodeclaims created/terminated/disrupted,
//     nodes created/terminated, disruption decisions; in shadow mode the would-create and
//     would-delete counters instead;
//   - a periodic look at the cluster (Collect, on the runtime thread): cluster state, NodePool
//     usage and limits, node allocatable, unschedulable pods, $/h per NodePool, and in shadow
//     mode the $/h of what nodesmith would run minus the $/h of the nodes that run;
//   - leadership: leader_election_master_status.
// Thread-safety: every method may be called from any thread (the families are thread-safe);
// Collect and the reconcile observers from the runtime thread only.
#pragma once

#include <chrono>
#include <functional>
#include <map>
#include <memory>
#include <mutex>
#include <optional>
#include <set>
#include <string>

#include "cloud/catalog.h"
#include "cluster/cluster_api.h"
#include "core/duration.h"
#include "metrics/karpenter_metrics.h"
#include "metrics/registry.h"
#include "runtime/event_recorder.h"

namespace nodesmith::op {

struct OperatorMetricsOptions {
  std::string commit;
  std::string leader_election_name = "karpenter-leader-election";
  // The node class label keys of the cloud provider ("karpenter.kwok.sh/kwoknodeclass").
  std::vector<std::string> node_class_label_keys;
  bool shadow = false;
  // Requests the controllers' Kubernetes client sent so far (kube::RestClient::requests_sent),
  // exported as nodesmith_kube_client_requests_total; none when empty.
  std::function<uint64_t()> client_requests;
};

class OperatorMetrics {
 public:
  static core::Result<std::unique_ptr<OperatorMetrics>> Create(OperatorMetricsOptions options);

  metrics::Registry& registry() { return registry_; }
  const metrics::KarpenterMetrics& families() const { return *families_; }
  // The exposition text of every family.
  std::string Expose() const;

  void BeforeReconcile(const std::string& controller);
  // Counts the reconcile and observes its time; returns that time (zero when BeforeReconcile
  // was not called for `controller`).
  core::Duration AfterReconcile(const std::string& controller, const char* result);
  void OnRecorded(const runtime::RecordedEvent& event, const cluster::ClusterApi& cluster);
  void SetLeader(bool leading);
  void SetSynced(bool synced);
  // `view` is what the controllers see (the shadow overlay in shadow mode), `live` the cluster.
  void Collect(const cluster::ClusterApi& view, const cluster::ClusterApi& live,
               const cloud::Catalog& catalog);

 private:
  OperatorMetrics(OperatorMetricsOptions options) : options_(std::move(options)) {}

  OperatorMetricsOptions options_;
  metrics::Registry registry_;
  std::unique_ptr<metrics::KarpenterMetrics> families_;
  metrics::CounterFamily* client_requests_ = nullptr;
  mutable std::mutex client_mu_;
  mutable uint64_t client_requests_seen_ = 0;
  std::map<std::string, std::chrono::steady_clock::time_point> started_;  // runtime thread
  std::mutex nodes_mu_;
  std::set<std::string> nodes_exported_;  // node gauges to delete once the node is gone
};

// The hourly price of a node or NodeClaim from its labels (instance type, zone, capacity type)
// in `catalog`; nullopt when the catalog does not offer it.
std::optional<double> PriceOfLabels(const cloud::Catalog& catalog, const api::Labels& labels);

}  // namespace nodesmith::op
