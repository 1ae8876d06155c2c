#include "operator/operator_metrics.h"

#include <set>

#include "api/node_status.h"
#include "controllers/disruption/disruption_controller.h"
#include "controllers/provisioning/provisioner.h"
#include "metrics/exposition.h"
#include "operator/karpenter_log.h"
#include "scheduling/well_known_labels.h"

namespace nodesmith::op {

namespace {

std::string LabelOr(const api::Labels& labels, const std::string& key) {
  auto it = labels.find(key);
  return it == labels.end() ? "" : it->second;
}

// Karpenter's reason label values are lower case ("empty", "underutilized", "drifted").
std::string Lower(std::string s) {
  for (char& c : s) c = static_cast<char>(std::tolower(static_cast<unsigned char>(c)));
  return s;
}

}  // namespace

std::optional<double> PriceOfLabels(const cloud::Catalog& catalog, const api::Labels& labels) {
  const std::string type = LabelOr(labels, scheduling::kLabelInstanceTypeStable);
  const std::string zone = LabelOr(labels, scheduling::kLabelTopologyZone);
  const std::string capacity = LabelOr(labels, scheduling::kLabelCapacityType);
  for (const auto& t : catalog.instance_types) {
    if (t->name != type) continue;
    for (const auto& o : t->offerings) {
      if (o.zone == zone && o.capacity_type == capacity) return o.price;
    }
  }
  return std::nullopt;
}

core::Result<std::unique_ptr<OperatorMetrics>> OperatorMetrics::Create(
    OperatorMetricsOptions options) {
  std::unique_ptr<OperatorMetrics> m(new OperatorMetrics(std::move(options)));
  metrics::KarpenterMetricsOptions k;
  k.commit = m->options_.commit.empty() ? "unknown" : m->options_.commit;
  if (!m->options_.node_class_label_keys.empty()) {
    k.node_class_label_keys = m->options_.node_class_label_keys;
  }
  auto families = metrics::KarpenterMetrics::Create(&m->registry_, k);
  if (!families.ok()) return families.status();
  m->families_ = std::move(*families);
  auto requests = m->registry_.AddCounter(
      {"nodesmith_kube_client_requests_total",
       "Requests the controllers' Kubernetes client sent to the API server.",
       {}});
  if (!requests.ok()) return requests.status();
  m->client_requests_ = *requests;
  m->SetLeader(false);
  m->SetSynced(false);
  return m;
}

std::string OperatorMetrics::Expose() const {
  if (options_.client_requests) {
    std::lock_guard<std::mutex> lock(client_mu_);
    const uint64_t now = options_.client_requests();
    client_requests_->WithLabelValues({}).Add(static_cast<double>(now - client_requests_seen_));
    client_requests_seen_ = now;
  }
  return metrics::TextFormat(registry_);
}

void OperatorMetrics::BeforeReconcile(const std::string& controller) {
  started_[controller] = std::chrono::steady_clock::now();
}

core::Duration OperatorMetrics::AfterReconcile(const std::string& controller,
                                              const char* result) {
  core::Duration took{0};
  const auto started = started_.find(controller);
  if (started != started_.end()) {
    took = std::chrono::duration_cast<core::Duration>(std::chrono::steady_clock::now() -
                                                      started->second);
    families_->controller_runtime_reconcile_time_seconds->WithLabelValues({controller})
        .Observe(std::chrono::duration<double>(took).count());
  }
  families_->controller_runtime_reconcile_total->WithLabelValues({controller, result}).Inc();
  if (std::string(result) == "error") {
    families_->controller_runtime_reconcile_errors_total->WithLabelValues({controller}).Inc();
  }
  return took;
}

void OperatorMetrics::SetLeader(bool leading) {
  families_->leader_election_master_status->WithLabelValues({options_.leader_election_name})
      .Set(leading ? 1 : 0);
}

void OperatorMetrics::SetSynced(bool synced) {
  families_->cluster_state_synced->WithLabelValues({}).Set(synced ? 1 : 0);
}

void OperatorMetrics::OnRecorded(const runtime::RecordedEvent& event,
                                 const cluster::ClusterApi& cluster) {
  const metrics::KarpenterMetrics& f = *families_;
  auto claim_labels = [&](const std::string& name) -> api::Labels {
    auto claim = cluster.Get<api::NodeClaim>("", name);
    return claim.ok() ? claim->metadata.labels : api::Labels{};
  };
  if (event.type == "NodeClaimCreated") {
    if (options_.shadow) return;  // counted once launched, when its offering is known
    const std::string reason =
        event.logger == "controller.disruption.queue" ? "disruption" : "provisioning";
    f.nodeclaims_created_total->With({{"reason", reason},
                                      {"nodepool", FieldOf(event, "nodePool")},
                                      {"min_values_relaxed", "false"}})
        .Inc();
  } else if (event.type == "NodeClaimLaunched" && options_.shadow) {
    const api::Labels labels = claim_labels(FieldOf(event, "nodeClaim"));
    f.shadow_nodeclaims_would_create_total
        ->With({{"nodepool", LabelOr(labels, "karpenter.sh/nodepool")},
                {"instance_type", FieldOf(event, "instanceType")},
                {"capacity_type", FieldOf(event, "capacityType")},
                {"zone", FieldOf(event, "zone")}})
        .Inc();
  } else if (event.logger == "controller.disruption" &&
             !FieldOf(event, controllers::kConsolidationTimeoutField).empty()) {
    // Karpenter counts a consolidation that ran out of time; nodesmith's ran out of its pass's
    // share of simulation work: single-node goes on in the next pass, multi-node acts on the
    // best command it found.
    f.voluntary_disruption_consolidation_timeouts_total
        ->With({{"consolidation_type", FieldOf(event, "consolidationType")}})
        .Inc();
  } else if (event.logger == "controller.provisioner" &&
             !FieldOf(event, controllers::kUnschedulablePodsField).empty()) {
    // As Karpenter's: the pods the last provisioning simulation could place nowhere, not those
    // kube-scheduler has marked unschedulable (most of which a new node is about to take).
    f.scheduler_unschedulable_pods_count->With({{"controller", "provisioner"}})
        .Set(std::stod(FieldOf(event, controllers::kUnschedulablePodsField)));
  } else if (event.logger == "controller.interruption" &&
             event.message.rfind("Received interruption message ", 0) == 0) {
    f.interruption_received_messages_total
        ->With({{"message_type", InterruptionMessageType(FieldOf(event, "kind"))}})
        .Inc();
  } else if (event.logger == "controller.interruption" &&
             event.message.rfind("Deleted interruption message ", 0) == 0) {
    f.interruption_deleted_messages_total->WithLabelValues({}).Inc();
    const std::string waited = FieldOf(event, "queueSeconds");
    if (!waited.empty()) {
      f.interruption_message_queue_duration_seconds->WithLabelValues({}).Observe(std::stod(waited));
    }
  } else if (event.type == "NodeRegistered" && !options_.shadow) {
    const api::Labels labels = claim_labels(FieldOf(event, "nodeClaim"));
    f.nodes_created_total
        ->With({{"nodepool", LabelOr(labels, "karpenter.sh/nodepool")},
                {"zone", LabelOr(labels, scheduling::kLabelTopologyZone)}})
        .Inc();
  } else if (event.type == "NodeClaimDeleted" && !options_.shadow) {
    const api::Labels labels = claim_labels(FieldOf(event, "nodeClaim"));
    f.nodeclaims_terminated_total
        ->With({{"nodepool", LabelOr(labels, "karpenter.sh/nodepool")},
                {"capacity_type", LabelOr(labels, scheduling::kLabelCapacityType)},
                {"zone", LabelOr(labels, scheduling::kLabelTopologyZone)}})
        .Inc();
  } else if (event.type == "DisruptionDecision") {
    const std::string reason = Lower(FieldOf(event, "reason"));
    const std::string method = FieldOf(event, "method");
    const std::string consolidation_type =
        method == "multi-node" ? "multi" : method == "single-node" ? "single" : "";
    f.voluntary_disruption_decisions_total
        ->With({{"decision", "delete"}, {"reason", reason}, {"consolidation_type", consolidation_type}})
        .Inc();
    for (const std::string& claim : SplitFieldList(FieldOf(event, "nodeClaims"))) {
      const api::Labels labels = claim_labels(claim);
      const std::string pool = LabelOr(labels, "karpenter.sh/nodepool");
      if (options_.shadow) {
        f.shadow_nodes_would_delete_total->With({{"nodepool", pool}, {"reason", reason}}).Inc();
      } else {
        f.nodeclaims_disrupted_total
            ->With({{"reason", reason},
                    {"nodepool", pool},
                    {"capacity_type", LabelOr(labels, scheduling::kLabelCapacityType)}})
            .Inc();
      }
    }
  }
}

void OperatorMetrics::Collect(const cluster::ClusterApi& view, const cluster::ClusterApi& live,
                              const cloud::Catalog& catalog) {
  const metrics::KarpenterMetrics& f = *families_;

  // NodePools: usage (capacity of their NodeClaims), limits, $/h.
  std::map<std::string, api::ResourceList> usage;
  std::map<std::string, double> cost;
  std::map<std::string, int> nodes;
  view.ForEachObject(cluster::Kind::kNodeClaim, [&](const cluster::Object& o) {
    const auto& claim = std::get<api::NodeClaim>(o);
    const std::string pool = LabelOr(claim.metadata.labels, "karpenter.sh/nodepool");
    if (pool.empty()) return;
    usage[pool].Add(claim.status.capacity);
    ++nodes[pool];
    if (auto price = PriceOfLabels(catalog, claim.metadata.labels)) cost[pool] += *price;
  });
  view.ForEachObject(cluster::Kind::kNodePool, [&](const cluster::Object& o) {
    const auto& pool = std::get<api::NodePool>(o);
    const std::string& name = pool.metadata.name;
    for (const char* r : {"cpu", "memory", "pods", "ephemeral-storage"}) {
      f.nodepools_usage
          ->With({{"nodepool", name}, {"resource_type", metrics::ResourceTypeLabelValue(r)}})
          .Set(usage[name].Get(r).AsDouble());
    }
    f.nodepools_usage->With({{"nodepool", name}, {"resource_type", "nodes"}})
        .Set(nodes[name]);
    for (const auto& [r, q] : pool.limits.items()) {
      f.nodepools_limit
          ->With({{"nodepool", name}, {"resource_type", metrics::ResourceTypeLabelValue(r)}})
          .Set(q.AsDouble());
    }
    f.nodepool_cost_per_hour->With({{"nodepool", name}}).Set(cost[name]);
  });

  // Nodes: their count, and allocatable per resource; series of nodes gone are removed. The
  // walk counts them: a list would copy every Node (with 10,000 Nodes, a third of this call).
  std::set<std::string> present;
  view.ForEachObject(cluster::Kind::kNode, [&](const cluster::Object& o) {
    const auto& node = std::get<api::Node>(o);
    const bool managed = node.metadata.labels.count("karpenter.sh/nodepool") != 0;
    const std::string phase = api::IsNodeReady(node) ? "Running" : "Pending";
    present.insert(node.metadata.name);
    for (const auto& [r, q] : node.status.allocatable.items()) {
      f.nodes_allocatable
          ->With(f.NodeResourceLabels(node.metadata.name, phase, managed, node.metadata.labels, r))
          .Set(q.AsDouble());
    }
  });
  f.cluster_state_node_count->WithLabelValues({}).Set(static_cast<double>(present.size()));
  {
    std::lock_guard<std::mutex> lock(nodes_mu_);
    for (const std::string& n : nodes_exported_) {
      if (!present.count(n)) f.DeleteNode(n);
    }
    nodes_exported_ = present;
  }

  if (options_.shadow) {
    auto node_cost = [&](const cluster::ClusterApi& c) {
      double total = 0;
      c.ForEachObject(cluster::Kind::kNode, [&](const cluster::Object& o) {
        const auto& node = std::get<api::Node>(o);
        if (node.metadata.deletion_timestamp) return;
        if (auto price = PriceOfLabels(catalog, node.metadata.labels)) total += *price;
      });
      return total;
    };
    f.shadow_cost_difference_per_hour->WithLabelValues({}).Set(node_cost(view) - node_cost(live));
  }
}

}  // namespace nodesmith::op
