#include "metrics/karpenter_metrics.h"

#include <algorithm>
#include <cctype>
#include <chrono>

#include "core/version.h"

namespace nodesmith::metrics {

using core::Result;
using core::Status;

std::vector<double> KarpenterDurationBuckets() {
  return {0.005, 0.01, 0.025, 0.05, 0.1, 0.15, 0.2, 0.25, 0.3, 0.35, 0.4, 0.45, 0.5, 0.6, 0.7,
          0.8,   0.9,  1.0,   1.25, 1.5, 1.75, 2.0, 2.5,  3.0, 3.5,  4.0, 4.5,  5,   6,   7,
          8,     9,    10,    15,   20,  25,   30,  40,   50,  60,   120, 150,  300, 450, 600};
}

std::vector<double> KarpenterSummaryQuantiles() { return {0.0, 0.5, 0.9, 0.99, 1.0}; }

std::vector<std::string> KarpenterWellKnownLabelKeys() {
  return {"karpenter.sh/nodepool",
          "topology.kubernetes.io/zone",
          "topology.kubernetes.io/region",
          "node.kubernetes.io/instance-type",
          "kubernetes.io/arch",
          "kubernetes.io/os",
          "karpenter.sh/capacity-type",
          "node.kubernetes.io/windows-build"};
}

namespace {

std::string Lower(std::string_view s) {
  std::string out(s);
  for (char& c : out) c = static_cast<char>(std::tolower(static_cast<unsigned char>(c)));
  return out;
}

std::string ReplaceChars(std::string s, std::string_view from, char to) {
  for (char& c : s) {
    if (from.find(c) != std::string_view::npos) c = to;
  }
  return s;
}

// Go's GOARCH spelling of the architecture nodesmith was built for.
const char* GoArch() {
#if defined(__x86_64__)
  return "amd64";
#elif defined(__aarch64__)
  return "arm64";
#elif defined(__i386__)
  return "386";
#elif defined(__arm__)
  return "arm";
#else
  return "unknown";
#endif
}

// karpenter_build_info's goversion: there is no Go, so the compiler nodesmith was built with.
std::string CompilerVersion() {
#if defined(__clang__)
  return "clang " __clang_version__;
#elif defined(__GNUC__)
  return "gcc " __VERSION__;
#else
  return "unknown";
#endif
}

// Karpenter's node label names: resource gauges add resource_type.
constexpr const char* kNodeName = "node_name";
constexpr const char* kPhase = "phase";
constexpr const char* kManaged = "managed";
constexpr const char* kResourceType = "resource_type";

// Registers families into `registry` and keeps the first error.
class Registrar {
 public:
  explicit Registrar(Registry* registry) : registry_(registry) {}

  void Add(CounterFamily** out, std::string name, std::string help,
           std::vector<std::string> labels) {
    Keep(registry_->AddCounter({std::move(name), std::move(help), std::move(labels)}), out);
  }
  void Add(GaugeFamily** out, std::string name, std::string help, std::vector<std::string> labels) {
    Keep(registry_->AddGauge({std::move(name), std::move(help), std::move(labels)}), out);
  }
  void Add(HistogramFamily** out, std::string name, std::string help,
           std::vector<std::string> labels, std::vector<double> bounds) {
    Keep(registry_->AddHistogram({std::move(name), std::move(help), std::move(labels)},
                                 std::move(bounds)),
         out);
  }
  void Add(SummaryFamily** out, std::string name, std::string help, std::vector<std::string> labels,
           const SummaryOptions& summary) {
    Keep(registry_->AddSummary({std::move(name), std::move(help), std::move(labels)}, summary),
         out);
  }
  const Status& status() const { return status_; }

 private:
  template <typename F>
  void Keep(Result<F*> r, F** out) {
    if (r.ok()) {
      *out = *r;
    } else if (status_.ok()) {
      status_ = r.status();
    }
  }
  Registry* registry_;
  Status status_;
};

std::vector<std::string> Concat(std::vector<std::string> a, const std::vector<std::string>& b) {
  a.insert(a.end(), b.begin(), b.end());
  return a;
}

}  // namespace

std::string NodeMetricLabelName(std::string_view label_key) {
  const size_t slash = label_key.find('/');
  if (slash == std::string_view::npos || label_key.find('/', slash + 1) != std::string_view::npos) {
    return "";
  }
  return ReplaceChars(Lower(label_key.substr(slash + 1)), "-", '_');
}

std::string ResourceTypeLabelValue(std::string_view resource_name) {
  return ReplaceChars(Lower(resource_name), "-", '_');
}

std::string StatusConditionLabelName(std::string_view label_key) {
  return ReplaceChars(std::string(label_key), "/.-", '_');
}

Result<std::unique_ptr<KarpenterMetrics>> KarpenterMetrics::Create(
    Registry* registry, const KarpenterMetricsOptions& options) {
  std::unique_ptr<KarpenterMetrics> m(new KarpenterMetrics());

  // Node label names: one per distinct derived name, then node_name, phase and managed.
  std::vector<std::string> keys = options.node_well_known_label_keys;
  std::sort(keys.begin(), keys.end());
  keys.erase(std::unique(keys.begin(), keys.end()), keys.end());
  for (const auto& k : keys) {
    std::string name = NodeMetricLabelName(k);
    if (name.empty()) continue;
    if (name == kNodeName || name == kPhase || name == kManaged || name == kResourceType) {
      return Status::Invalid("well-known label " + k + " would label node metrics with " + name +
                             ", which Karpenter's node metrics use for something else");
    }
    m->node_label_keys_.emplace_back(k, name);
    m->node_label_names_.push_back(std::move(name));
  }
  m->node_label_names_.insert(m->node_label_names_.end(), {kNodeName, kPhase, kManaged});
  std::sort(m->node_label_names_.begin(), m->node_label_names_.end());
  m->node_label_names_.erase(std::unique(m->node_label_names_.begin(), m->node_label_names_.end()),
                             m->node_label_names_.end());
  const std::vector<std::string> node = m->node_label_names_;
  const std::vector<std::string> node_resource = Concat(node, {kResourceType});

  std::vector<std::string> condition_extra;
  for (const auto& k : options.node_class_label_keys) {
    condition_extra.push_back(StatusConditionLabelName(k));
  }
  condition_extra.push_back(StatusConditionLabelName("karpenter.sh/nodepool"));

  SummaryOptions summary;
  summary.quantiles = KarpenterSummaryQuantiles();
  summary.clock = options.clock;

  Registrar r(registry);
  const auto duration = KarpenterDurationBuckets();

  r.Add(&m->build_info, "karpenter_build_info",
        "A metric with a constant '1' value labeled by version from which karpenter was built.",
        {"version", "goversion", "goarch", "commit"});

  r.Add(&m->nodeclaims_created_total, "karpenter_nodeclaims_created_total",
        "Number of nodeclaims created in total by Karpenter. Labeled by reason the nodeclaim was "
        "created, the owning nodepool, and if min values was relaxed for this nodeclaim.",
        {"reason", "nodepool", "min_values_relaxed"});
  r.Add(&m->nodeclaims_terminated_total, "karpenter_nodeclaims_terminated_total",
        "Number of nodeclaims terminated in total by Karpenter. Labeled by the owning nodepool, "
        "capacity type, and zone.",
        {"nodepool", "capacity_type", "zone"});
  r.Add(&m->nodeclaims_disrupted_total, "karpenter_nodeclaims_disrupted_total",
        "Number of nodeclaims disrupted in total by Karpenter. Labeled by reason the nodeclaim was "
        "disrupted and the owning nodepool.",
        {"reason", "nodepool", "capacity_type"});
  r.Add(&m->nodes_created_total, "karpenter_nodes_created_total",
        "Number of nodes created in total by Karpenter. Labeled by owning nodepool and zone.",
        {"nodepool", "zone"});
  r.Add(&m->nodes_terminated_total, "karpenter_nodes_terminated_total",
        "Number of nodes terminated in total by Karpenter. Labeled by owning nodepool and zone.",
        {"nodepool", "zone"});

  r.Add(&m->nodeclaims_instance_termination_duration_seconds,
        "karpenter_nodeclaims_instance_termination_duration_seconds",
        "Duration of CloudProvider Instance termination in seconds.", {"nodepool"},
        ExponentialBuckets(1, 2, 11));
  r.Add(&m->nodeclaims_termination_duration_seconds,
        "karpenter_nodeclaims_termination_duration_seconds",
        "Duration of NodeClaim termination in seconds.", {"nodepool"},
        ExponentialBuckets(1, 2, 12));

  r.Add(&m->nodes_allocatable, "karpenter_nodes_allocatable",
        "Node allocatable are the resources allocatable by nodes.", node_resource);
  r.Add(&m->nodes_total_pod_requests, "karpenter_nodes_total_pod_requests",
        "Node total pod requests are the resources requested by pods bound to nodes, including "
        "the DaemonSet pods.",
        node_resource);
  r.Add(&m->nodes_total_pod_limits, "karpenter_nodes_total_pod_limits",
        "Node total pod limits are the resources specified by pod limits, including the DaemonSet "
        "pods.",
        node_resource);
  r.Add(&m->nodes_total_daemon_requests, "karpenter_nodes_total_daemon_requests",
        "Node total daemon requests are the resource requested by DaemonSet pods bound to nodes.",
        node_resource);
  r.Add(&m->nodes_total_daemon_limits, "karpenter_nodes_total_daemon_limits",
        "Node total daemon limits are the resources specified by DaemonSet pod limits.",
        node_resource);
  r.Add(&m->nodes_system_overhead, "karpenter_nodes_system_overhead",
        "Node system daemon overhead are the resources reserved for system overhead, the "
        "difference between the node's capacity and allocatable values are reported by the "
        "status.",
        node_resource);
  r.Add(&m->nodes_current_lifetime_seconds, "karpenter_nodes_current_lifetime_seconds",
        "Node age in seconds", node);
  r.Add(&m->cluster_utilization_percent, "karpenter_cluster_utilization_percent",
        "Utilization of allocatable resources by pod requests", {kResourceType});

  r.Add(&m->nodes_termination_duration_seconds, "karpenter_nodes_termination_duration_seconds",
        "The time taken between a node's deletion request and the removal of its finalizer",
        {"nodepool"}, summary);
  r.Add(&m->nodes_drained_total, "karpenter_nodes_drained_total",
        "The total number of nodes drained by Karpenter", {"nodepool"});
  {
    constexpr double kMinute = 60, kHour = 3600, kDay = 86400;
    r.Add(&m->nodes_lifetime_duration_seconds, "karpenter_nodes_lifetime_duration_seconds",
          "The lifetime duration of the nodes since creation.", {"nodepool"},
          {15 * kMinute, 30 * kMinute, 45 * kMinute, kHour,      2 * kHour,  4 * kHour, 6 * kHour,
           8 * kHour,    10 * kHour,   12 * kHour,   16 * kHour, 20 * kHour, kDay,      2 * kDay,
           3 * kDay,     5 * kDay,     10 * kDay,    15 * kDay,  20 * kDay,  25 * kDay, 30 * kDay});
  }
  r.Add(&m->pods_eviction_requests_total, "karpenter_pods_eviction_requests_total",
        "The total number of pod eviction requests made by Karpenter, labeled by response code",
        {"code"});
  r.Add(&m->pods_drained_total, "karpenter_pods_drained_total",
        "The total number of pods drained during node termination by Karpenter, labeled by reason",
        {"reason"});

  r.Add(&m->nodepools_usage, "karpenter_nodepools_usage",
        "The amount of resources that have been provisioned for a nodepool. Labeled by nodepool "
        "name and resource type.",
        {kResourceType, "nodepool"});
  r.Add(&m->nodepools_limit, "karpenter_nodepools_limit",
        "Limits specified on the nodepool that restrict the quantity of resources provisioned. "
        "Labeled by nodepool name and resource type.",
        {kResourceType, "nodepool"});
  r.Add(&m->nodepools_cost_total, "karpenter_nodepools_cost_total",
        "Total cost of the nodepool from Karpenter's perspective. Units are determined by the "
        "cloud provider. Not an authoritative source for billing. Includes modifications due to "
        "NodeOverlays",
        {"nodepool"});
  r.Add(&m->nodepools_allowed_disruptions, "karpenter_nodepools_allowed_disruptions",
        "The number of nodes for a given NodePool that can be concurrently disrupting at a point "
        "in time. Labeled by NodePool. Note that allowed disruptions can change very rapidly, as "
        "new nodes may be created and others may be deleted at any point.",
        {"nodepool", "reason"});
  r.Add(&m->nodepools_nodes_consuming_budgets, "karpenter_nodepools_nodes_consuming_budgets",
        "The number of nodes consuming the budget of a nodepool at a point in time. Labeled by "
        "NodePool.",
        {"nodepool", "reason"});

  r.Add(&m->pods_state, "karpenter_pods_state",
        "Pod state is the current state of pods. This metric can be used several ways as it is "
        "labeled by the pod name, namespace, owner, node, nodepool name, zone, architecture, "
        "capacity type, instance type, pod phase, and pod readiness.",
        {"name", "namespace", "owner", "node", "scheduled", "nodepool", "zone", "arch",
         "capacity_type", "instance_type", "phase", "ready", "managed"});
  r.Add(&m->pods_startup_duration_seconds, "karpenter_pods_startup_duration_seconds",
        "The time from pod creation until the pod is running.", {}, summary);
  r.Add(&m->pods_bound_duration_seconds, "karpenter_pods_bound_duration_seconds",
        "The time from pod creation until the pod is bound.", {}, duration);
  r.Add(&m->pods_scheduling_decision_duration_seconds,
        "karpenter_pods_scheduling_decision_duration_seconds",
        "The time it takes for Karpenter to first try to schedule a pod after it's been seen.", {},
        duration);
  r.Add(&m->cluster_state_node_count, "karpenter_cluster_state_node_count",
        "Current count of nodes in cluster state", {});
  r.Add(&m->cluster_state_synced, "karpenter_cluster_state_synced",
        "Returns 1 if cluster state is synced and 0 otherwise. Synced checks that nodeclaims and "
        "nodes that are stored in the APIServer have the same representation as Karpenter's "
        "cluster state",
        {});
  r.Add(&m->cluster_state_unsynced_time_seconds, "karpenter_cluster_state_unsynced_time_seconds",
        "The time for which cluster state is not synced", {});

  r.Add(&m->scheduler_scheduling_duration_seconds,
        "karpenter_scheduler_scheduling_duration_seconds",
        "Duration of scheduling simulations used for deprovisioning and provisioning in seconds.",
        {"controller"}, duration);
  r.Add(&m->scheduler_queue_depth, "karpenter_scheduler_queue_depth",
        "The number of pods currently waiting to be scheduled.", {"controller", "scheduling_id"});
  r.Add(&m->scheduler_unschedulable_pods_count, "karpenter_scheduler_unschedulable_pods_count",
        "The number of unschedulable Pods.", {"controller"});
  r.Add(&m->scheduler_ignored_pods_count, "karpenter_scheduler_ignored_pods_count",
        "Number of pods ignored during scheduling by Karpenter", {});

  r.Add(&m->voluntary_disruption_decisions_total, "karpenter_voluntary_disruption_decisions_total",
        "Number of disruption decisions performed. Labeled by disruption decision, reason, and "
        "consolidation type.",
        {"decision", "reason", "consolidation_type"});
  r.Add(&m->voluntary_disruption_eligible_nodes, "karpenter_voluntary_disruption_eligible_nodes",
        "Number of nodes eligible for disruption by Karpenter. Labeled by disruption reason.",
        {"reason"});
  r.Add(&m->voluntary_disruption_decision_evaluation_duration_seconds,
        "karpenter_voluntary_disruption_decision_evaluation_duration_seconds",
        "Duration of the disruption decision evaluation process in seconds. Labeled by method and "
        "consolidation type.",
        {"reason", "consolidation_type"}, duration);
  r.Add(&m->voluntary_disruption_failed_validations_total,
        "karpenter_voluntary_disruption_failed_validations_total",
        "Number of candidates that were selected for disruption but failed validation. Labeled by "
        "consolidation type.",
        {"consolidation_type"});
  r.Add(&m->voluntary_disruption_consolidation_timeouts_total,
        "karpenter_voluntary_disruption_consolidation_timeouts_total",
        "Number of times the Consolidation algorithm has reached a timeout. Labeled by "
        "consolidation type.",
        {"consolidation_type"});

  r.Add(&m->cloudprovider_duration_seconds, "karpenter_cloudprovider_duration_seconds",
        "Duration of cloud provider method calls. Labeled by the controller, method name and "
        "provider.",
        {"controller", "method", "provider"}, DefaultBuckets());
  r.Add(&m->cloudprovider_errors_total, "karpenter_cloudprovider_errors_total",
        "Total number of errors returned from CloudProvider calls.",
        {"controller", "method", "provider", "error"});
  r.Add(&m->cloudprovider_instance_type_offering_price_estimate,
        "karpenter_cloudprovider_instance_type_offering_price_estimate",
        "Instance type offering estimated hourly price used when making informed decisions on node "
        "cost calculation, based on instance type, capacity type, and zone.",
        {"instance_type", "capacity_type", "zone"});
  r.Add(&m->cloudprovider_instance_type_offering_available,
        "karpenter_cloudprovider_instance_type_offering_available",
        "Instance type offering availability, based on instance type, capacity type, and zone",
        {"instance_type", "capacity_type", "zone"});

  r.Add(&m->interruption_received_messages_total, "karpenter_interruption_received_messages_total",
        "Count of messages received from the SQS queue. Broken down by message type and whether "
        "the message was actionable.",
        {"message_type"});
  r.Add(&m->interruption_deleted_messages_total, "karpenter_interruption_deleted_messages_total",
        "Count of messages deleted from the SQS queue.", {});
  r.Add(&m->interruption_message_queue_duration_seconds,
        "karpenter_interruption_message_queue_duration_seconds",
        "Amount of time an interruption message is on the queue before it is processed by "
        "karpenter.",
        {}, duration);

  r.Add(&m->nodeclaim_status_condition_transition_seconds,
        "operator_nodeclaim_status_condition_transition_seconds",
        "The amount of time a condition was in a given state before transitioning. e.g. Alarm := "
        "P99(Updated=False) > 5 minutes",
        Concat({"type", "status"}, condition_extra), ExponentialBuckets(0.5, 2, 15));
  r.Add(&m->nodeclaim_status_condition_count, "operator_nodeclaim_status_condition_count",
        "The number of a condition for a given object, type and status. e.g. Alarm := "
        "Available=False > 0",
        Concat({"namespace", "name", "type", "status", "reason"}, condition_extra));
  r.Add(&m->nodeclaim_status_condition_current_status_seconds,
        "operator_nodeclaim_status_condition_current_status_seconds",
        "The current amount of time in seconds that a status condition has been in a specific "
        "state. Alarm := P99(Updated=Unknown) > 5 minutes",
        Concat({"namespace", "name", "type", "status", "reason"}, condition_extra));
  r.Add(&m->nodeclaim_status_condition_transitions_total,
        "operator_nodeclaim_status_condition_transitions_total",
        "The count of transitions of a given object, type and status.",
        Concat({"type", "status", "reason"}, condition_extra));

  r.Add(&m->controller_runtime_reconcile_total, "controller_runtime_reconcile_total",
        "Total number of reconciliations per controller", {"controller", "result"});
  r.Add(&m->controller_runtime_reconcile_errors_total, "controller_runtime_reconcile_errors_total",
        "Total number of reconciliation errors per controller", {"controller"});
  {
    std::vector<double> reconcile = duration;  // controller-runtime's stop at 60 s
    reconcile.erase(std::upper_bound(reconcile.begin(), reconcile.end(), 60.0), reconcile.end());
    r.Add(&m->controller_runtime_reconcile_time_seconds,
          "controller_runtime_reconcile_time_seconds",
          "Length of time per reconciliation per controller", {"controller"}, reconcile);
  }
  r.Add(&m->controller_runtime_max_concurrent_reconciles,
        "controller_runtime_max_concurrent_reconciles",
        "Maximum number of concurrent reconciles per controller", {"controller"});
  r.Add(&m->controller_runtime_active_workers, "controller_runtime_active_workers",
        "Number of currently used workers per controller", {"controller"});
  r.Add(&m->leader_election_master_status, "leader_election_master_status",
        "Gauge of if the reporting system is master of the relevant lease, 0 indicates backup, 1 "
        "indicates master. 'name' is the string used to identify the lease. Please make sure to "
        "group by name.",
        {"name"});

  r.Add(&m->nodepool_cost_per_hour, "nodesmith_nodepool_cost_per_hour",
        "The price per hour of the nodes of a nodepool, from the cloud provider's offerings. "
        "Labeled by nodepool.",
        {"nodepool"});
  r.Add(&m->pending_pods_cost_lower_bound_per_hour,
        "nodesmith_pending_pods_cost_lower_bound_per_hour",
        "A certified lower bound of the price per hour of any set of new nodes that fits the "
        "pending pods.",
        {});
  r.Add(&m->shadow_nodeclaims_would_create_total, "nodesmith_shadow_nodeclaims_would_create_total",
        "Number of nodeclaims nodesmith would have created in shadow mode. Labeled by nodepool, "
        "instance type, capacity type and zone.",
        {"nodepool", "instance_type", "capacity_type", "zone"});
  r.Add(&m->shadow_nodes_would_delete_total, "nodesmith_shadow_nodes_would_delete_total",
        "Number of nodes nodesmith would have deleted in shadow mode. Labeled by nodepool and "
        "disruption reason.",
        {"nodepool", "reason"});
  r.Add(&m->shadow_cost_difference_per_hour, "nodesmith_shadow_cost_difference_per_hour",
        "In shadow mode, the price per hour of the nodes nodesmith would run minus the price per "
        "hour of the nodes that exist.",
        {});

  NS_RETURN_IF_ERROR(r.status());

  m->build_info
      ->WithLabelValues({options.version.empty() ? core::kVersion : options.version,
                         CompilerVersion(), GoArch(), options.commit})
      .Set(1);
  // The provisioner reports unschedulable pods when their number changes from the last (0 at
  // start); the series is there from the start, as Karpenter's is after its first round.
  m->scheduler_unschedulable_pods_count->WithLabelValues({"provisioner"}).Set(0);
  // Karpenter starts both consolidation timeout counters at zero.
  for (const char* type : {"multi", "single"}) {
    m->voluntary_disruption_consolidation_timeouts_total->WithLabelValues({type}).Add(0);
  }
  return m;
}

Labels KarpenterMetrics::NodeLabels(std::string_view node_name, std::string_view phase,
                                    bool managed, const Labels& node_labels) const {
  Labels out;
  for (const auto& [key, name] : node_label_keys_) {
    auto it = node_labels.find(key);
    auto& v = out[name];  // "" unless the node has one of the keys for this name
    if (v.empty() && it != node_labels.end()) v = it->second;
  }
  out[kNodeName] = std::string(node_name);
  out[kPhase] = std::string(phase);
  out[kManaged] = managed ? "true" : "false";
  return out;
}

Labels KarpenterMetrics::NodeResourceLabels(std::string_view node_name, std::string_view phase,
                                            bool managed, const Labels& node_labels,
                                            std::string_view resource_name) const {
  Labels out = NodeLabels(node_name, phase, managed, node_labels);
  out[kResourceType] = ResourceTypeLabelValue(resource_name);
  return out;
}

void KarpenterMetrics::DeleteNode(std::string_view node_name) const {
  const Labels match = {{kNodeName, std::string(node_name)}};
  for (GaugeFamily* f : {nodes_allocatable, nodes_total_pod_requests, nodes_total_pod_limits,
                         nodes_total_daemon_requests, nodes_total_daemon_limits,
                         nodes_system_overhead, nodes_current_lifetime_seconds}) {
    f->DeleteMatching(match);
  }
}

}  // namespace nodesmith::metrics
