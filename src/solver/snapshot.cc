#include "solver/snapshot.h"

#include <algorithm>
#include <limits>
#include <map>

#include "scheduling/requirements.h"
#include "scheduling/taints.h"

namespace nodesmith::solver {
namespace {

bool OwnedByDaemonSet(const api::Pod& pod) {
  for (const auto& ref : pod.metadata.owner_references) {
    if (ref.kind == "DaemonSet") return true;
  }
  return false;
}

bool Terminal(const api::Pod& pod) {
  return pod.status.phase == "Succeeded" || pod.status.phase == "Failed";
}

// Node taints Kubernetes adds while a node starts or is unhealthy; Karpenter ignores them when
// deciding whether pods fit on capacity that is coming up.
bool EphemeralTaint(const api::Taint& t) {
  for (const auto& e : scheduling::KnownEphemeralTaints()) {
    if (scheduling::TaintsMatch(e, t)) return true;
  }
  return t.key == scheduling::kTaintUnregistered;
}

// Entry-wise minimum over the allocatable (or capacity) of the named types: the least an
// in-flight NodeClaim that may become any of them is sure to offer.
api::ResourceList MinOver(const std::vector<const cloud::InstanceType*>& types, bool capacity) {
  api::ResourceList out;
  if (types.empty()) return out;
  out = capacity ? types[0]->capacity : types[0]->allocatable;
  for (size_t i = 1; i < types.size(); ++i) {
    const api::ResourceList& l = capacity ? types[i]->capacity : types[i]->allocatable;
    api::ResourceList next;
    for (const auto& [name, q] : out.items()) {
      api::Quantity other = l.Get(name);
      next.Set(name, other < q ? other : q);
    }
    out = next;
  }
  return out;
}

}  // namespace

bool IsPending(const api::Pod& pod) {
  return pod.spec.node_name.empty() && !pod.metadata.deletion_timestamp.has_value() &&
         !Terminal(pod) && !OwnedByDaemonSet(pod);
}

std::string PodKey(const api::Pod& pod) {
  std::string key;  // one allocation: the solver builds a key per pending pod
  key.reserve(pod.metadata.namespace_.size() + 1 + pod.metadata.name.size());
  key += pod.metadata.namespace_;
  key += '/';
  key += pod.metadata.name;
  return key;
}

core::Result<Snapshot> BuildSnapshot(api::ObjectSet objects,
                                     std::vector<api::Pod> workload_pods,
                                     cloud::InstanceTypes instance_types,
                                     scheduling::LabelKeySet well_known) {
  Snapshot s;
  s.well_known = std::move(well_known);
  s.instance_types = std::move(instance_types);
  cloud::SortByName(s.instance_types);
  std::map<std::string, const cloud::InstanceType*> type_by_name;
  for (const auto& t : s.instance_types) type_by_name[t->name] = t.get();

  // Nodes, by name.
  std::vector<const api::Node*> nodes;
  for (const auto& n : objects.nodes) nodes.push_back(&n.object);
  std::sort(nodes.begin(), nodes.end(),
            [](const api::Node* a, const api::Node* b) { return a->metadata.name < b->metadata.name; });
  std::map<std::string, int> existing_index;
  std::map<std::string, bool> provider_ids;
  for (const api::Node* n : nodes) {
    if (n->metadata.deletion_timestamp.has_value()) continue;
    ExistingCapacity e;
    e.name = n->metadata.name;
    e.labels = n->metadata.labels;
    auto pool = e.labels.find(scheduling::kLabelNodePool);
    if (pool != e.labels.end()) e.node_pool = pool->second;
    for (const auto& t : n->spec.taints) {
      if (!EphemeralTaint(t)) e.taints.push_back(t);
    }
    e.allocatable = n->status.allocatable.empty() ? n->status.capacity : n->status.allocatable;
    e.capacity = n->status.capacity.empty() ? e.allocatable : n->status.capacity;
    e.schedulable = !n->spec.unschedulable;
    if (!n->spec.provider_id.empty()) provider_ids[n->spec.provider_id] = true;
    existing_index[e.name] = static_cast<int>(s.existing.size());
    s.existing.push_back(std::move(e));
  }

  // In-flight NodeClaims (no Node yet), by name.
  std::vector<const api::NodeClaim*> claims;
  for (const auto& c : objects.node_claims) claims.push_back(&c.object);
  std::sort(claims.begin(), claims.end(), [](const api::NodeClaim* a, const api::NodeClaim* b) {
    return a->metadata.name < b->metadata.name;
  });
  for (const api::NodeClaim* c : claims) {
    if (c->metadata.deletion_timestamp.has_value()) continue;
    if (!c->status.node_name.empty() && existing_index.count(c->status.node_name)) continue;
    if (!c->status.provider_id.empty() && provider_ids.count(c->status.provider_id)) continue;
    ExistingCapacity e;
    e.name = c->metadata.name;
    e.in_flight = true;
    scheduling::Requirements reqs =
        scheduling::Requirements::FromNodeSelectorRequirements(c->spec.requirements);
    e.labels = c->metadata.labels;
    for (const auto& [k, v] : reqs.SingleValuedLabels()) e.labels.emplace(k, v);
    auto pool = e.labels.find(scheduling::kLabelNodePool);
    if (pool != e.labels.end()) e.node_pool = pool->second;
    e.taints = c->spec.taints;
    std::vector<const cloud::InstanceType*> candidates;
    if (const auto* it = reqs.Find(scheduling::kLabelInstanceTypeStable); it && !it->complement()) {
      for (const auto& name : it->Values()) {
        auto found = type_by_name.find(name);
        if (found != type_by_name.end()) candidates.push_back(found->second);
      }
    }
    e.allocatable = !c->status.allocatable.empty() ? c->status.allocatable : MinOver(candidates, false);
    e.capacity = !c->status.capacity.empty() ? c->status.capacity : MinOver(candidates, true);
    if (e.allocatable.empty()) continue;  // nothing known about its size: cannot plan onto it
    existing_index[e.name] = static_cast<int>(s.existing.size());
    s.existing.push_back(std::move(e));
  }

  // Pods: pending ones in input order, bound ones attached to their node.
  for (auto& sp : objects.pods) {
    api::Pod& p = sp.object;
    if (IsPending(p)) {
      s.pending_pods.push_back(std::move(p));
      continue;
    }
    if (p.spec.node_name.empty() || Terminal(p)) continue;
    auto e = existing_index.find(p.spec.node_name);
    if (e == existing_index.end()) continue;
    s.existing[e->second].bound_pods.push_back(static_cast<int>(s.bound_pods.size()));
    s.bound_pods.push_back(std::move(p));
  }
  for (auto& p : workload_pods) s.pending_pods.push_back(std::move(p));

  // NodePools not being deleted, highest weight first and equal weights by name descending, as
  // Karpenter's provisioner orders them (pkg/utils/nodepool OrderByWeight).
  for (const auto& np : objects.node_pools) {
    if (np.object.metadata.deletion_timestamp.has_value()) continue;
    s.node_pools.push_back(np.object);
  }
  std::stable_sort(s.node_pools.begin(), s.node_pools.end(),
                   [](const api::NodePool& a, const api::NodePool& b) {
                     int wa = a.weight.value_or(0), wb = b.weight.value_or(0);
                     if (wa != wb) return wa > wb;
                     return a.metadata.name > b.metadata.name;
                   });

  // DaemonSets: a pod from each template, as the DaemonSet controller would create it.
  for (const auto& ds : objects.daemon_sets) {
    api::Pod p;
    p.metadata = ds.object.template_.metadata;
    p.metadata.name = ds.object.metadata.name;
    p.metadata.namespace_ = ds.object.metadata.namespace_;
    p.metadata.owner_references.push_back(
        api::OwnerReference{"apps/v1", "DaemonSet", ds.object.metadata.name, ds.object.metadata.uid, true});
    p.spec = ds.object.template_.spec;
    s.daemon_set_pods.push_back(std::move(p));
  }
  std::stable_sort(s.daemon_set_pods.begin(), s.daemon_set_pods.end(),
                   [](const api::Pod& a, const api::Pod& b) { return PodKey(a) < PodKey(b); });

  for (const auto& c : objects.persistent_volume_claims) s.volume_topology.AddClaim(c.object);
  for (const auto& v : objects.persistent_volumes) s.volume_topology.AddVolume(v.object);
  for (const auto& sc : objects.storage_classes) s.volume_topology.AddStorageClass(sc.object);
  return s;
}

}  // namespace nodesmith::solver
