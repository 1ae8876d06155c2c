#include "controllers/disruption/candidates.h"

#include <algorithm>
#include <climits>
#include <cmath>
#include <map>

#include "cluster/disruption_budget.h"
#include "controllers/common/karpenter.h"
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
  return !IsTerminal(pod) && !IsOwnedByDaemonSet(pod) && !api::IsOwnedByNode(pod);
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

std::vector<Candidate> BuildCandidates(const core::Clock& clock, const cluster::ClusterApi& cluster,
                                       const cloud::CloudProvider& cloud,
                                       const Nominations* nominations) {
  const core::Time now = clock.Now();
  std::map<std::string, api::NodePool> pools;
  for (auto& p : cluster.List<api::NodePool>()) pools.emplace(p.metadata.name, std::move(p));
  // Only reschedulable pods are copied: this runs every poll over every pod of the cluster.
  struct NodePods {
    std::vector<std::string> keys;
    double eviction_cost = 0;
    bool blocked = false;  // a reschedulable pod says do-not-disrupt
  };
  std::map<std::string, NodePods> pods_by_node;
  cluster.ForEachObject(cluster::Kind::kPod, [&](const cluster::Object& o) {
    const auto& pod = std::get<api::Pod>(o);
    if (pod.spec.node_name.empty() || !IsReschedulable(pod)) return;
    NodePods& n = pods_by_node[pod.spec.node_name];
    n.blocked = n.blocked || HasDoNotDisrupt(pod.metadata);
    n.eviction_cost += EvictionCost(pod);
    n.keys.push_back(api::PodKey(pod));
  });
  std::map<std::string, cloud::InstanceTypes> types_by_pool;

  std::vector<Candidate> out;
  for (auto& claim : cluster.List<api::NodeClaim>()) {
    if (claim.metadata.deletion_timestamp || !claim.IsTrue(kConditionInitialized)) continue;
    if (HasDoNotDisrupt(claim.metadata)) continue;
    auto pool = pools.find(LabelOr(claim.metadata.labels, scheduling::kLabelNodePool));
    if (pool == pools.end()) continue;
    auto node = NodeForNodeClaim(cluster, claim);
    if (!node || node->metadata.deletion_timestamp || HasDoNotDisrupt(node->metadata)) continue;
    if (nominations && (nominations->IsNominated(claim.metadata.name) ||
                        nominations->IsNominated(node->metadata.name))) {
      continue;  // pods are on their way to it
    }

    Candidate c;
    double eviction_cost = 0;
    if (auto pods = pods_by_node.find(node->metadata.name); pods != pods_by_node.end()) {
      if (pods->second.blocked) continue;
      c.reschedulable_pods = std::move(pods->second.keys);
      eviction_cost = pods->second.eviction_cost;
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
      c.last_activity = claim.metadata.creation_timestamp.value_or(now);
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

core::Result<int> BudgetAllowance(const std::string& nodes, int total) {
  api::IntOrString v;
  if (!nodes.empty() && nodes.back() == '%') {
    v.is_string = true;
    v.str_value = nodes;
  } else {
    try {
      size_t used = 0;
      v.int_value = std::stoi(nodes, &used);
      if (used != nodes.size() || v.int_value < 0) throw std::invalid_argument(nodes);
    } catch (...) {
      return core::Status::Invalid("budget nodes \"" + nodes + "\" is neither an int nor a percentage");
    }
  }
  return cluster::ScaledValueFromIntOrPercent(v, total, /*round_up=*/true);
}

int AllowedDisruptions(const api::NodePool& pool, int total, const std::string& reason) {
  int allowed = INT_MAX;
  for (const auto& b : pool.disruption.budgets) {
    if (!b.reasons.empty() &&
        std::find(b.reasons.begin(), b.reasons.end(), reason) == b.reasons.end()) {
      continue;
    }
    // Scheduled budgets need a cron evaluator; until there is one they do not apply.
    if (b.schedule) continue;
    auto n = BudgetAllowance(b.nodes, total);
    allowed = std::min(allowed, n.ok() ? *n : 0);
  }
  return allowed;
}

BudgetMapping BuildBudgetMapping(const cluster::ClusterApi& cluster, const std::string& reason) {
  std::map<std::string, int> total, disrupting;
  for (const auto& claim : cluster.List<api::NodeClaim>()) {
    auto pool = claim.metadata.labels.find(scheduling::kLabelNodePool);
    if (pool == claim.metadata.labels.end() || !claim.IsTrue(kConditionInitialized)) continue;
    auto node = NodeForNodeClaim(cluster, claim);
    if (!node) continue;
    ++total[pool->second];
    if (!api::IsNodeReady(*node) || claim.metadata.deletion_timestamp ||
        node->metadata.deletion_timestamp) {
      ++disrupting[pool->second];
    }
  }
  BudgetMapping out;
  for (const auto& pool : cluster.List<api::NodePool>()) {
    const std::string& name = pool.metadata.name;
    int allowed = AllowedDisruptions(pool, total[name], reason);
    out[name] = std::max(0, allowed == INT_MAX ? INT_MAX : allowed - disrupting[name]);
  }
  return out;
}

}  // namespace nodesmith::controllers
