#include "controllers/disruption/candidates.h"

#include <algorithm>
#include <climits>
#include <cmath>
#include <map>
#include <unordered_map>
#include <variant>

#include "cluster/disruption_budget.h"
#include "controllers/common/karpenter.h"
#include "controllers/disruption/pods_by_node.h"
#include "scheduling/label_selector.h"
#include "scheduling/taints.h"
#include "scheduling/well_known_labels.h"

namespace nodesmith::controllers {
namespace {

std::string LabelOr(const api::Labels& labels, const char* key) {
  auto it = labels.find(key);
  return it == labels.end() ? "" : it->second;
}

// The fraction of the NodeClaim's expireAfter still ahead of it (1 when it never expires).
double LifetimeRemaining(core::Time now, const api::NodeClaim& claim) {
  if (claim.spec.expire_after.never() || !claim.metadata.creation_timestamp) return 1.0;
  const double total = std::chrono::duration<double>(*claim.spec.expire_after.value).count();
  if (total <= 0) return 0.0;
  const double age = std::chrono::duration<double>(now - *claim.metadata.creation_timestamp).count();
  return std::clamp((total - age) / total, 0.0, 1.0);
}

}  // namespace

bool IsReschedulable(const api::Pod& pod) {
  return (api::IsActive(pod) || (api::IsOwnedByStatefulSet(pod) && IsTerminating(pod))) &&
         !IsOwnedByDaemonSet(pod) && !api::IsOwnedByNode(pod);
}

double EvictionCost(const api::Pod& pod) {
  double cost = 1.0;
  auto it = pod.metadata.annotations.find("controller.kubernetes.io/pod-deletion-cost");
  if (it != pod.metadata.annotations.end()) {
    try {
      cost += std::stod(it->second) / std::pow(2.0, 27);
    } catch (...) {
      // An unparsable annotation is ignored, as upstream.
    }
  }
  if (pod.spec.priority) cost += static_cast<double>(*pod.spec.priority) / std::pow(2.0, 25);
  return std::clamp(cost, -10.0, 10.0);
}

std::optional<core::Time> DoNotDisruptUntil(const api::ObjectMeta& meta, core::Time since) {
  auto it = meta.annotations.find(kDoNotDisruptAnnotation);
  if (it == meta.annotations.end()) return std::nullopt;
  if (it->second == "true") return kForever;
  auto d = core::ParseDuration(it->second);
  if (!d.ok()) return std::nullopt;
  return since + *d;
}

namespace {

// The Eviction API's PDB verdicts for many pods at once. The PDBs' statuses are worked out when
// a pod they guard is first asked about, all in one walk over the pods (cluster::CheckEviction
// lists and computes per call): a pass over candidates whose pods no PDB guards reads no pod.
class EvictionGate {
 public:
  explicit EvictionGate(const cluster::ClusterApi& cluster) : cluster_(cluster) {
    cluster.ForEachObject(cluster::Kind::kPodDisruptionBudget, [&](const cluster::Object& o) {
      const auto& pdb = std::get<api::PodDisruptionBudget>(o);
      auto selector = scheduling::Selector::FromApi(pdb.selector);
      if (!selector.ok() || selector->Empty() || selector->IsNothing()) return;
      pdbs_.push_back({pdb, *std::move(selector)});
    });
  }

  // Whether any PodDisruptionBudget can refuse an eviction (else WhyNot is always "").
  bool Empty() const { return pdbs_.empty(); }

  // Why evicting `pod` would be refused now; "" when it would be admitted.
  std::string WhyNot(const api::Pod& pod) const {
    if (pdbs_.empty()) return "";
    const std::string& phase = pod.status.phase;
    if (phase == "Succeeded" || phase == "Failed" || phase == "Pending" || phase.empty() ||
        pod.metadata.deletion_timestamp) {
      return "";
    }
    const Entry* match = nullptr;
    for (const Entry& e : pdbs_) {
      if (e.pdb.metadata.namespace_ != pod.metadata.namespace_ ||
          !e.selector.Matches(pod.metadata.labels)) {
        continue;
      }
      if (match) return "pod " + api::PodKey(pod) + " has more than one PodDisruptionBudget";
      match = &e;
    }
    if (!match) return "";
    const auto& st = StatusOf(*match);
    if (!api::IsPodReady(pod) &&
        (match->pdb.unhealthy_pod_eviction_policy == "AlwaysAllow" ||
         (st.current_healthy >= st.desired_healthy && st.desired_healthy > 0))) {
      return "";
    }
    if (st.disruptions_allowed > 0) return "";
    return "pdb " + match->pdb.metadata.namespace_ + "/" + match->pdb.metadata.name +
           " prevents pod evictions (pod " + api::PodKey(pod) + ")";
  }

 private:
  struct Entry {
    api::PodDisruptionBudget pdb;
    scheduling::Selector selector;
  };

  const cluster::DisruptionBudgetStatus& StatusOf(const Entry& e) const {
    if (statuses_.empty()) {
      std::vector<const api::PodDisruptionBudget*> all;
      for (const Entry& each : pdbs_) all.push_back(&each.pdb);
      statuses_ = cluster::ComputeDisruptionBudgetStatuses(cluster_, all);
    }
    return statuses_[&e - pdbs_.data()];
  }

  const cluster::ClusterApi& cluster_;
  std::vector<Entry> pdbs_;
  mutable std::vector<cluster::DisruptionBudgetStatus> statuses_;  // pdbs_' order, once asked
};

bool HasDisruptedTaint(const api::Node& node) {
  for (const auto& t : node.spec.taints) {
    if (t.key == scheduling::kTaintDisrupted) return true;
  }
  return false;
}

std::string DescribeUntil(core::Time until) {
  return until == kForever ? "" : " until " + core::FormatRfc3339(until);
}

// Why a reschedulable `pod` holds its node now: karpenter.sh/do-not-disrupt still in force, or an
// eviction its PodDisruptionBudget refuses; "" when it does not.
std::string PodBlocker(const api::Pod& pod, const EvictionGate& gate, core::Time now) {
  const core::Time started =
      pod.status.start_time.value_or(pod.metadata.creation_timestamp.value_or(now));
  if (auto until = DoNotDisruptUntil(pod.metadata, started); until && *until > now) {
    return "pod " + api::PodKey(pod) + " has " + kDoNotDisruptAnnotation + DescribeUntil(*until);
  }
  return gate.WhyNot(pod);
}

}  // namespace

std::vector<Candidate> BuildCandidates(const core::Clock& clock, const cluster::ClusterApi& cluster,
                                       const cloud::CloudProvider& cloud,
                                       const Nominations* nominations,
                                       std::vector<BlockedNode>* excluded,
                                       const PodsByNode* index) {
  const core::Time now = clock.Now();
  auto exclude = [&](const std::string& node, std::string reason) {
    if (excluded) excluded->push_back({node, std::move(reason)});
  };
  std::map<std::string, api::NodePool> pools;
  for (auto& p : cluster.List<api::NodePool>()) pools.emplace(p.metadata.name, std::move(p));
  const EvictionGate gate(cluster);
  // Only keys of reschedulable pods are kept: this runs every poll over every pod of the cluster.
  struct NodePods {
    std::vector<std::string> keys;
    double eviction_cost = 0;
    double positive_eviction_cost = 0;
    std::string blocked;  // the first pod that holds the node, and why
  };
  // Hashed: every pod of the cluster looks its node up here; with 10,000 nodes an ordered map
  // compares ~14 node names per pod.
  std::unordered_map<std::string, NodePods> pods_by_node;
  auto add = [&](NodePods& n, const api::Pod& pod) {
    if (n.blocked.empty()) n.blocked = PodBlocker(pod, gate, now);
    const double cost = EvictionCost(pod);
    n.eviction_cost += cost;
    n.positive_eviction_cost += std::max(cost, 0.0);
    n.keys.push_back(api::PodKey(pod));
  };
  // A store that indexes pods by node is asked per candidate; else one scan of every pod.
  const bool per_node = !index && cluster.IndexesPodsByNode();
  if (!index && !per_node) {
    cluster.ForEachObject(cluster::Kind::kPod, [&](const cluster::Object& o) {
      const auto& pod = std::get<api::Pod>(o);
      if (pod.spec.node_name.empty() || !IsReschedulable(pod)) return;
      add(pods_by_node[pod.spec.node_name], pod);
    });
  }
  // The node's pods as the scan above finds them; from the index, only the blockers are worked
  // out now (they depend on the time and on the budgets), and only where some pod can block.
  auto pods_of = [&](const std::string& node) -> std::optional<NodePods> {
    if (per_node) {
      NodePods n;
      cluster.ForEachPodOn(node, [&](const api::Pod& pod) {
        if (IsReschedulable(pod)) add(n, pod);
      });
      if (n.keys.empty()) return std::nullopt;
      return n;
    }
    if (!index) {
      auto it = pods_by_node.find(node);
      if (it == pods_by_node.end()) return std::nullopt;
      return std::move(it->second);
    }
    const PodsByNode::Summary* summary = index->SummaryOf(node);
    if (!summary || summary->keys.empty()) return std::nullopt;
    NodePods n{summary->keys, summary->eviction_cost, summary->positive_eviction_cost, ""};
    if (summary->any_do_not_disrupt || !gate.Empty()) {
      for (const auto& [key, object] : *index->PodsOn(node)) {
        const auto& pod = std::get<api::Pod>(*object);
        if (!IsReschedulable(pod)) continue;
        n.blocked = PodBlocker(pod, gate, now);
        if (!n.blocked.empty()) break;
      }
    }
    return n;
  };
  std::map<std::string, cloud::InstanceTypes> types_by_pool;

  std::vector<Candidate> out;
  for (auto& claim : cluster.List<api::NodeClaim>()) {
    auto node = NodeForNodeClaim(cluster, claim);
    const std::string node_name = node ? node->metadata.name : claim.status.node_name;
    const std::string label = node_name.empty() ? "nodeclaim " + claim.metadata.name : node_name;
    if (!node) {
      exclude(label, "nodeclaim " + claim.metadata.name + " has no node yet");
      continue;
    }
    if (claim.metadata.deletion_timestamp || node->metadata.deletion_timestamp) {
      exclude(label, "is being deleted");
      continue;
    }
    if (!claim.IsTrue(kConditionInitialized)) {
      exclude(label, "nodeclaim " + claim.metadata.name + " is not initialized");
      continue;
    }
    auto pool = pools.find(LabelOr(claim.metadata.labels, scheduling::kLabelNodePool));
    if (pool == pools.end()) {
      exclude(label, "nodepool \"" + LabelOr(claim.metadata.labels, scheduling::kLabelNodePool) +
                         "\" not found");
      continue;
    }
    if (HasDisruptedTaint(*node)) {
      exclude(label, "a disruption is already in progress on it");
      continue;
    }
    if (nominations && (nominations->IsNominated(claim.metadata.name) ||
                        nominations->IsNominated(node->metadata.name))) {
      exclude(label, "pending pods are nominated to it");
      continue;
    }

    Candidate c;
    double eviction_cost = 0;
    const core::Time created = claim.metadata.creation_timestamp.value_or(now);
    if (auto until = DoNotDisruptUntil(node->metadata, node->metadata.creation_timestamp.value_or(created));
        until && *until > now) {
      c.blocked = std::string("node has ") + kDoNotDisruptAnnotation + DescribeUntil(*until);
    } else if (auto claim_until = DoNotDisruptUntil(claim.metadata, created);
               claim_until && *claim_until > now) {
      c.blocked = "nodeclaim " + claim.metadata.name + " has " + kDoNotDisruptAnnotation +
                  DescribeUntil(*claim_until);
    }
    if (auto pods = pods_of(node->metadata.name)) {
      if (c.blocked.empty()) c.blocked = pods->blocked;
      c.reschedulable_pods = std::move(pods->keys);
      eviction_cost = pods->eviction_cost;
      c.reschedule_disruption_cost += pods->positive_eviction_cost;
    }
    c.instance_type = LabelOr(node->metadata.labels, scheduling::kLabelInstanceTypeStable);
    c.zone = LabelOr(node->metadata.labels, scheduling::kLabelTopologyZone);
    c.capacity_type = LabelOr(node->metadata.labels, scheduling::kLabelCapacityType);
    auto types = types_by_pool.find(pool->first);
    if (types == types_by_pool.end()) {
      auto r = cloud.GetInstanceTypes(pool->second);
      types = types_by_pool.emplace(pool->first, r.ok() ? *r : cloud::InstanceTypes{}).first;
    }
    for (const auto& t : types->second) {
      if (t->name != c.instance_type) continue;
      for (const auto& o : t->offerings) {
        if (o.zone == c.zone && o.capacity_type == c.capacity_type) c.price_per_hour = o.price;
      }
    }
    c.disruption_cost = eviction_cost * LifetimeRemaining(now, claim);
    if (claim.status.last_pod_event_time) {
      c.last_activity = *claim.status.last_pod_event_time;
    } else if (const api::Condition* init = claim.FindCondition(kConditionInitialized);
               init && init->last_transition_time) {
      c.last_activity = *init->last_transition_time;
    } else {
      c.last_activity = created;
    }
    c.node = std::move(*node);
    c.node_claim = std::move(claim);
    c.node_pool = pool->second;
    out.push_back(std::move(c));
  }
  std::stable_sort(out.begin(), out.end(), [](const Candidate& a, const Candidate& b) {
    if (a.disruption_cost != b.disruption_cost) return a.disruption_cost < b.disruption_cost;
    return a.name() < b.name();
  });
  return out;
}

}  // namespace nodesmith::controllers
