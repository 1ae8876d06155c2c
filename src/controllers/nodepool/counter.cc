#include "controllers/nodepool/counter.h"

#include <optional>
#include <utility>

#include "api/node.h"
#include "api/nodeclaim.h"
#include "api/nodepool.h"
#include "controllers/common/karpenter.h"
#include "controllers/nodepool/conditions.h"
#include "scheduling/well_known_labels.h"

namespace nodesmith::controllers {
namespace {

// One node of the cluster as Karpenter's cluster state sees it: a NodeClaim, a Node, or both.
struct StateNode {
  const api::NodeClaim* claim = nullptr;
  const api::Node* node = nullptr;

  bool Initialized() const {
    if (claim == nullptr) return true;
    return node != nullptr &&
           LabelOf(node->metadata.labels, scheduling::kLabelNodeInitialized) == "true";
  }
  bool Registered() const {
    if (claim == nullptr) return true;
    return node != nullptr &&
           LabelOf(node->metadata.labels, scheduling::kLabelNodeRegistered) == "true";
  }
  std::string NodePool() const {
    const api::Labels& labels =
        node != nullptr && (claim == nullptr || Registered()) ? node->metadata.labels
                                                              : claim->metadata.labels;
    return LabelOf(labels, scheduling::kLabelNodePool);
  }
  bool MarkedForDeletion() const {
    if (claim == nullptr) return node->metadata.deletion_timestamp.has_value();
    return claim->metadata.deletion_timestamp.has_value() ||
           claim->IsTrue(kConditionInstanceTerminating) ||
           claim->FindCondition(kConditionDisruptionReason) != nullptr;
  }
  api::ResourceList Capacity() const {
    api::ResourceList out;
    if (Initialized()) {
      out = node->status.capacity;
    } else if (node == nullptr) {
      out = claim->status.capacity;
    } else {
      out = node->status.capacity;
      for (const auto& [name, quantity] : claim->status.capacity.items()) {
        if (out.Get(name).IsZero()) out.Set(name, quantity);
      }
    }
    out.Set(kResourceNodes, api::Quantity::FromInt(1));
    return out;
  }

  static std::string LabelOf(const api::Labels& labels, const std::string& key) {
    auto it = labels.find(key);
    return it == labels.end() ? "" : it->second;
  }
};

// The entries and values are the same (a zero entry differs from an absent one, as upstream
// compares the lists it writes).
bool SameCounts(const api::ResourceList& a, const api::ResourceList& b) {
  if (a.items().size() != b.items().size()) return false;
  for (const auto& [name, quantity] : a.items()) {
    if (!b.Has(name) || !(b.Get(name) == quantity)) return false;
  }
  return true;
}

}  // namespace

std::map<std::string, api::ResourceList> NodePoolResources(const cluster::ClusterApi& cluster) {
  const std::vector<api::NodeClaim> claims = cluster.List<api::NodeClaim>();
  const std::vector<api::Node> nodes = cluster.List<api::Node>();
  std::map<std::string, StateNode> by_provider_id;
  for (const auto& claim : claims) {
    if (!claim.status.provider_id.empty()) by_provider_id[claim.status.provider_id].claim = &claim;
  }
  for (const auto& node : nodes) {
    const bool labelled = node.metadata.labels.count(scheduling::kLabelNodePool) != 0;
    const bool initialized = node.metadata.labels.count(scheduling::kLabelNodeInitialized) != 0;
    std::string id = node.spec.provider_id;
    if (id.empty()) {
      if (labelled) continue;  // a managed Node is known by its providerID only
      id = node.metadata.name;
    }
    if (labelled && !initialized &&
        node.metadata.labels.count(scheduling::kLabelInstanceTypeStable) == 0) {
      continue;
    }
    by_provider_id[id].node = &node;
  }
  std::map<std::string, api::ResourceList> out;
  for (const auto& [id, state] : by_provider_id) {
    const std::string pool = state.NodePool();
    if (pool.empty() || state.MarkedForDeletion()) continue;
    out[pool].Add(state.Capacity());
  }
  return out;
}

NodePoolCounter::NodePoolCounter(cluster::ClusterApi& cluster) : cluster_(cluster) {}

core::Result<runtime::ReconcileResult> NodePoolCounter::Reconcile(const runtime::Request&) {
  const std::map<std::string, api::ResourceList> usage = NodePoolResources(cluster_);
  for (api::NodePool pool : cluster_.List<api::NodePool>()) {
    api::ResourceList counted;
    for (const char* name : {api::kResourceCpu, api::kResourceMemory, api::kResourcePods,
                             api::kResourceEphemeralStorage, kResourceNodes}) {
      counted.Set(name, api::Quantity::FromInt(0));
    }
    if (auto it = usage.find(pool.metadata.name); it != usage.end()) {
      for (const auto& [name, quantity] : it->second.items()) counted.Set(name, quantity);
    }
    const int64_t nodes = counted.Get(kResourceNodes).Value();
    if (pool.nodes == nodes && SameCounts(pool.resources, counted)) continue;
    pool.resources = std::move(counted);
    pool.nodes = nodes;
    NS_RETURN_IF_ERROR(WriteNodePool(cluster_, pool, "counting resources"));
  }
  return runtime::ReconcileResult::Done();
}

}  // namespace nodesmith::controllers
