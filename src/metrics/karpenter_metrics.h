// KarpenterMetrics: every metric family nodesmith exports, under the names, types, label names
// and buckets Karpenter v1.14.1 uses (kubernetes-sigs/karpenter, the AWS provider's interruption
// and offering metrics, operatorpkg's status-condition metrics, controller-runtime's reconcile
// and leader-election metrics), so a Karpenter user's dashboards and alerts keep working; plus
// nodesmith's own families under the prefix `nodesmith_` (cost, certified lower bound, shadow
// mode).
//
// Create registers the families in a Registry and sets karpenter_build_info. Controllers get
// series from the families (`m.nodes_created_total->WithLabelValues({pool, zone}).Inc()`); the
// node helpers build the label set of the karpenter_nodes_* gauges from a node's labels.
// Thread-safety: as the families (registry.h). Ownership: the Registry owns the families and
// must outlive this struct.
#pragma once

#include <memory>
#include <string>
#include <string_view>
#include <vector>

#include "core/clock.h"
#include "core/status.h"
#include "metrics/registry.h"

namespace nodesmith::metrics {

// Karpenter's DurationBuckets(): controller-runtime's reconcile buckets extended to 600 s.
std::vector<double> KarpenterDurationBuckets();
// Karpenter's SummaryObjectives() quantiles: 0, 0.5, 0.9, 0.99, 1.
std::vector<double> KarpenterSummaryQuantiles();
// kubernetes-sigs/karpenter v1.WellKnownLabels without a cloud provider's additions.
std::vector<std::string> KarpenterWellKnownLabelKeys();

// The node-metric label name of a well-known label key: the part after '/', lower-cased, '-'
// replaced by '_' ("node.kubernetes.io/instance-type" -> "instance_type"); "" without a '/'.
std::string NodeMetricLabelName(std::string_view label_key);
// The resource_type label value of a resource name ("ephemeral-storage" -> "ephemeral_storage").
std::string ResourceTypeLabelValue(std::string_view resource_name);
// The status-condition label name of a label key: '/', '.' and '-' replaced by '_'
// ("karpenter.sh/nodepool" -> "karpenter_sh_nodepool"), as operatorpkg names them.
std::string StatusConditionLabelName(std::string_view label_key);

struct KarpenterMetricsOptions {
  // The well-known label keys whose derived names label the karpenter_nodes_* gauges. Karpenter
  // takes them from v1.WellKnownLabels with the cloud provider's additions (the AWS provider adds
  // instance_category, instance_family, zone_id, ...); pass the provider's set here.
  std::vector<std::string> node_well_known_label_keys = KarpenterWellKnownLabelKeys();
  // The NodeClass label keys (`<group>/<lower-case kind>`) of the cloud provider's node classes;
  // with karpenter.sh/nodepool they label operator_nodeclaim_status_condition_*.
  std::vector<std::string> node_class_label_keys = {"karpenter.k8s.aws/ec2nodeclass"};
  // karpenter_build_info's labels.
  std::string version;  // "" -> core::kVersion
  std::string commit = "unknown";
  // Ages the summaries' quantile windows; nullptr: quantiles over the latest observations.
  // REQUIRES: outlives the families; safe to call from any thread.
  const core::Clock* clock = nullptr;
};

struct KarpenterMetrics {
  // InvalidArgument/AlreadyExists when a family cannot be registered (a name already in
  // `registry`, or well-known keys whose derived names clash with node_name/phase/managed).
  // REQUIRES: `registry` outlives the result.
  static core::Result<std::unique_ptr<KarpenterMetrics>> Create(
      Registry* registry, const KarpenterMetricsOptions& options = {});

  // The label set of the karpenter_nodes_* gauges without resource_type: every well-known
  // label name (the node's value, or "" when it lacks the label; of keys that map to one name
  // the first in sorted order that the node has wins), node_name, phase and managed.
  Labels NodeLabels(std::string_view node_name, std::string_view phase, bool managed,
                    const Labels& node_labels) const;
  // NodeLabels plus resource_type = ResourceTypeLabelValue(resource_name).
  Labels NodeResourceLabels(std::string_view node_name, std::string_view phase, bool managed,
                            const Labels& node_labels, std::string_view resource_name) const;
  // Removes every karpenter_nodes_* gauge series of this node (when the node is gone).
  void DeleteNode(std::string_view node_name) const;
  // The label names of the node gauges (without resource_type), sorted.
  const std::vector<std::string>& node_label_names() const { return node_label_names_; }

  // --- kubernetes-sigs/karpenter pkg/operator ---
  GaugeFamily* build_info = nullptr;  // version, goversion, goarch, commit

  // --- pkg/metrics ---
  CounterFamily* nodeclaims_created_total = nullptr;     // reason, nodepool, min_values_relaxed
  CounterFamily* nodeclaims_terminated_total = nullptr;  // nodepool, capacity_type, zone
  CounterFamily* nodeclaims_disrupted_total = nullptr;   // reason, nodepool, capacity_type
  CounterFamily* nodes_created_total = nullptr;          // nodepool, zone
  CounterFamily* nodes_terminated_total = nullptr;       // nodepool, zone

  // --- pkg/controllers/nodeclaim/lifecycle ---
  HistogramFamily* nodeclaims_instance_termination_duration_seconds = nullptr;  // nodepool
  HistogramFamily* nodeclaims_termination_duration_seconds = nullptr;           // nodepool

  // --- pkg/controllers/metrics/node (node labels, see NodeLabels) ---
  GaugeFamily* nodes_allocatable = nullptr;            // + resource_type
  GaugeFamily* nodes_total_pod_requests = nullptr;     // + resource_type
  GaugeFamily* nodes_total_pod_limits = nullptr;       // + resource_type
  GaugeFamily* nodes_total_daemon_requests = nullptr;  // + resource_type
  GaugeFamily* nodes_total_daemon_limits = nullptr;    // + resource_type
  GaugeFamily* nodes_system_overhead = nullptr;        // + resource_type
  GaugeFamily* nodes_current_lifetime_seconds = nullptr;
  GaugeFamily* cluster_utilization_percent = nullptr;  // resource_type

  // --- pkg/controllers/node/termination ---
  SummaryFamily* nodes_termination_duration_seconds = nullptr;  // nodepool
  CounterFamily* nodes_drained_total = nullptr;                 // nodepool
  HistogramFamily* nodes_lifetime_duration_seconds = nullptr;   // nodepool
  CounterFamily* pods_eviction_requests_total = nullptr;        // code
  CounterFamily* pods_drained_total = nullptr;                  // reason

  // --- pkg/controllers/metrics/nodepool, pkg/controllers/disruption ---
  GaugeFamily* nodepools_usage = nullptr;                    // resource_type, nodepool
  GaugeFamily* nodepools_limit = nullptr;                    // resource_type, nodepool
  GaugeFamily* nodepools_cost_total = nullptr;               // nodepool
  GaugeFamily* nodepools_allowed_disruptions = nullptr;      // nodepool, reason
  GaugeFamily* nodepools_nodes_consuming_budgets = nullptr;  // nodepool, reason

  // --- pkg/controllers/metrics/pod, pkg/controllers/state ---
  GaugeFamily* pods_state = nullptr;  // name, namespace, owner, node, scheduled, nodepool, zone,
                                      // arch, capacity_type, instance_type, phase, ready, managed
  SummaryFamily* pods_startup_duration_seconds = nullptr;
  HistogramFamily* pods_bound_duration_seconds = nullptr;
  HistogramFamily* pods_scheduling_decision_duration_seconds = nullptr;
  GaugeFamily* cluster_state_node_count = nullptr;
  GaugeFamily* cluster_state_synced = nullptr;
  GaugeFamily* cluster_state_unsynced_time_seconds = nullptr;

  // --- pkg/controllers/provisioning/scheduling ---
  HistogramFamily* scheduler_scheduling_duration_seconds = nullptr;  // controller
  GaugeFamily* scheduler_queue_depth = nullptr;                      // controller, scheduling_id
  GaugeFamily* scheduler_unschedulable_pods_count = nullptr;         // controller
  GaugeFamily* scheduler_ignored_pods_count = nullptr;

  // --- pkg/controllers/disruption ---
  // decision, reason, consolidation_type
  CounterFamily* voluntary_disruption_decisions_total = nullptr;
  GaugeFamily* voluntary_disruption_eligible_nodes = nullptr;  // reason
  // reason, consolidation_type
  HistogramFamily* voluntary_disruption_decision_evaluation_duration_seconds = nullptr;
  // consolidation_type (both)
  CounterFamily* voluntary_disruption_failed_validations_total = nullptr;
  CounterFamily* voluntary_disruption_consolidation_timeouts_total = nullptr;

  // --- pkg/cloudprovider/metrics; the AWS provider's pkg/controllers/metrics ---
  HistogramFamily* cloudprovider_duration_seconds = nullptr;  // controller, method, provider
  CounterFamily* cloudprovider_errors_total = nullptr;        // controller, method, provider, error
  // instance_type, capacity_type, zone (both)
  GaugeFamily* cloudprovider_instance_type_offering_price_estimate = nullptr;
  GaugeFamily* cloudprovider_instance_type_offering_available = nullptr;

  // --- the AWS provider's pkg/controllers/interruption ---
  CounterFamily* interruption_received_messages_total = nullptr;  // message_type
  CounterFamily* interruption_deleted_messages_total = nullptr;
  HistogramFamily* interruption_message_queue_duration_seconds = nullptr;

  // --- operatorpkg status controller for NodeClaims (extra labels: the node class keys and
  //     karpenter.sh/nodepool through StatusConditionLabelName) ---
  HistogramFamily* nodeclaim_status_condition_transition_seconds = nullptr;  // type, status
  GaugeFamily* nodeclaim_status_condition_count = nullptr;  // namespace, name, type, status, reason
  GaugeFamily* nodeclaim_status_condition_current_status_seconds = nullptr;  // (same)
  CounterFamily* nodeclaim_status_condition_transitions_total = nullptr;     // type, status, reason

  // --- controller-runtime ---
  CounterFamily* controller_runtime_reconcile_total = nullptr;           // controller, result
  CounterFamily* controller_runtime_reconcile_errors_total = nullptr;    // controller
  HistogramFamily* controller_runtime_reconcile_time_seconds = nullptr;  // controller
  GaugeFamily* controller_runtime_max_concurrent_reconciles = nullptr;   // controller
  GaugeFamily* controller_runtime_active_workers = nullptr;              // controller
  GaugeFamily* leader_election_master_status = nullptr;                  // name

  // --- nodesmith ---
  GaugeFamily* nodepool_cost_per_hour = nullptr;  // nodepool: $/h of the NodePool's nodes
  // The certified lower bound of the $/h any plan for the pending pods needs.
  GaugeFamily* pending_pods_cost_lower_bound_per_hour = nullptr;
  // Shadow mode (--dry-run): what nodesmith would do.
  // nodepool, instance_type, capacity_type, zone
  CounterFamily* shadow_nodeclaims_would_create_total = nullptr;
  CounterFamily* shadow_nodes_would_delete_total = nullptr;  // nodepool, reason
  // $/h of what nodesmith would run minus the $/h of the nodes that exist.
  GaugeFamily* shadow_cost_difference_per_hour = nullptr;

 private:
  KarpenterMetrics() = default;
  // Well-known keys sorted, each with its derived label name.
  std::vector<std::pair<std::string, std::string>> node_label_keys_;
  std::vector<std::string> node_label_names_;
};

}  // namespace nodesmith::metrics
