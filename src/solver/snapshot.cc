#include "solver/snapshot.h"

#include <algorithm>
#include <limits>
#include <map>
#include <set>

#include "api/conditions.h"
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

// The taints pods must tolerate on existing capacity (state/statenode.go Taints): a managed node
// not yet registered is known by its NodeClaim's taints; until a managed node is initialized,
// the taints every starting node carries and its NodeClaim's startupTaints are expected to go,
// so they are ignored. An initialized node keeps every taint: a not-ready taint then means it
// went unhealthy. `claim` is null for a node nodesmith does not manage.
std::vector<api::Taint> SchedulingTaints(const std::vector<api::Taint>& node_taints,
                                         const api::NodeClaim* claim, bool registered,
                                         bool initialized) {
  const std::vector<api::Taint>& taints =
      claim != nullptr && !registered ? claim->spec.taints : node_taints;
  if (claim == nullptr || initialized) return taints;
  std::vector<api::Taint> out;
  for (const api::Taint& t : taints) {
    if (scheduling::IsKnownEphemeralTaint(t)) continue;
    if (std::any_of(claim->spec.startup_taints.begin(), claim->spec.startup_taints.end(),
                    [&](const api::Taint& st) { return scheduling::TaintsMatch(st, t); })) {
      continue;
    }
    out.push_back(t);
  }
  return out;
}

// The DaemonSet owner reference that controls `pod`, or null.
const api::OwnerReference* ControllingDaemonSet(const api::Pod& pod) {
  for (const auto& ref : pod.metadata.owner_references) {
    if (ref.kind == "DaemonSet" && ref.controller) return &ref;
  }
  return nullptr;
}

bool CreatedAfter(const api::Pod& a, const api::Pod& b) {
  const core::Time never{};
  return a.metadata.creation_timestamp.value_or(never) >
         b.metadata.creation_timestamp.value_or(never);
}

// A pod from the DaemonSet's template, as the DaemonSet controller would create it.
api::Pod DaemonSetPodFromTemplate(const api::DaemonSet& ds) {
  api::Pod p;
  p.metadata = ds.template_.metadata;
  p.metadata.name = ds.metadata.name;
  p.metadata.namespace_ = ds.metadata.namespace_;
  p.metadata.owner_references.push_back(
      api::OwnerReference{"apps/v1", "DaemonSet", ds.metadata.name, ds.metadata.uid, true});
  p.spec = ds.template_.spec;
  return p;
}

// An existing pod of the DaemonSet as the pod it would add to a new node: unbound, and with the
// template's required node affinity in place of the one the DaemonSet controller wrote for the
// pod's own node (a term pinning metadata.name).
api::Pod DaemonSetPodFromPod(const api::Pod& pod, const api::DaemonSet& ds) {
  api::Pod p;
  p.metadata = pod.metadata;
  p.spec = pod.spec;
  p.spec.node_name.clear();
  std::optional<api::NodeSelector> required;
  const auto& template_affinity = ds.template_.spec.affinity;
  if (template_affinity && template_affinity->node_affinity) {
    required = template_affinity->node_affinity->required;
  }
  if (p.spec.affinity && p.spec.affinity->node_affinity) {
    p.spec.affinity->node_affinity->required = std::move(required);
  } else if (required) {
    if (!p.spec.affinity) p.spec.affinity.emplace();
    p.spec.affinity->node_affinity.emplace();
    p.spec.affinity->node_affinity->required = std::move(required);
  }
  return p;
}

bool LabelIsTrue(const api::Labels& labels, const char* key) {
  auto it = labels.find(key);
  return it != labels.end() && it->second == "true";
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

  // The NodeClaim behind each Node: the one with the Node's provider ID, else the one naming it.
  std::map<std::string, const api::NodeClaim*> claim_by_provider_id, claim_by_node_name;
  for (const auto& c : objects.node_claims) {
    if (!c.object.status.provider_id.empty()) claim_by_provider_id[c.object.status.provider_id] = &c.object;
    if (!c.object.status.node_name.empty()) claim_by_node_name[c.object.status.node_name] = &c.object;
  }
  auto claim_of = [&](const api::Node& n) -> const api::NodeClaim* {
    if (!n.spec.provider_id.empty()) {
      auto it = claim_by_provider_id.find(n.spec.provider_id);
      if (it != claim_by_provider_id.end()) return it->second;
    }
    auto it = claim_by_node_name.find(n.metadata.name);
    return it == claim_by_node_name.end() ? nullptr : it->second;
  };

  // Nodes.
  std::set<std::string> node_names;
  std::set<std::string> provider_ids;
  for (const auto& sn : objects.nodes) {
    const api::Node* n = &sn.object;
    if (n->metadata.deletion_timestamp.has_value()) continue;
    const api::NodeClaim* claim = claim_of(*n);
    ExistingCapacity e;
    e.name = n->metadata.name;
    e.labels = n->metadata.labels;
    auto pool = e.labels.find(scheduling::kLabelNodePool);
    if (pool != e.labels.end()) e.node_pool = pool->second;
    // Nodes nobody manages count as registered and initialized, as upstream.
    e.initialized = claim == nullptr || LabelIsTrue(e.labels, scheduling::kLabelNodeInitialized);
    const bool registered = claim == nullptr || LabelIsTrue(e.labels, scheduling::kLabelNodeRegistered);
    e.taints = SchedulingTaints(n->spec.taints, claim, registered, e.initialized);
    e.allocatable = n->status.allocatable.empty() ? n->status.capacity : n->status.allocatable;
    e.capacity = n->status.capacity.empty() ? e.allocatable : n->status.capacity;
    e.schedulable = !n->spec.unschedulable;
    if (!n->spec.provider_id.empty()) provider_ids.insert(n->spec.provider_id);
    node_names.insert(e.name);
    s.existing.push_back(std::move(e));
  }

  // In-flight NodeClaims (no Node yet): uninitialized capacity.
  for (const auto& sc : objects.node_claims) {
    const api::NodeClaim* c = &sc.object;
    if (c->metadata.deletion_timestamp.has_value()) continue;
    if (!c->status.node_name.empty() && node_names.count(c->status.node_name)) continue;
    if (!c->status.provider_id.empty() && provider_ids.count(c->status.provider_id)) continue;
    ExistingCapacity e;
    e.name = c->metadata.name;
    e.in_flight = true;
    e.initialized = false;
    scheduling::Requirements reqs =
        scheduling::Requirements::FromNodeSelectorRequirements(c->spec.requirements);
    e.labels = c->metadata.labels;
    for (const auto& [k, v] : reqs.SingleValuedLabels()) e.labels.emplace(k, v);
    auto pool = e.labels.find(scheduling::kLabelNodePool);
    if (pool != e.labels.end()) e.node_pool = pool->second;
    e.taints = SchedulingTaints(c->spec.taints, c, /*registered=*/false, /*initialized=*/false);
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
    s.existing.push_back(std::move(e));
  }

  // Initialized capacity first, then by name (scheduler.go sortExistingNodes): consolidation
  // should move pods onto capacity that is up before capacity that is still coming.
  std::stable_sort(s.existing.begin(), s.existing.end(),
            [](const ExistingCapacity& a, const ExistingCapacity& b) {
              if (a.initialized != b.initialized) return a.initialized;
              return a.name < b.name;
            });
  std::map<std::string, int> existing_index;
  for (size_t i = 0; i < s.existing.size(); ++i) existing_index[s.existing[i].name] = static_cast<int>(i);

  // Pods: pending ones in input order, bound ones attached to their node. Room is made first:
  // each of the ~17 reallocations of a vector growing to 150,000 pods moves every pod in it.
  size_t bound = 0;
  for (const auto& sp : objects.pods) bound += !sp.object.spec.node_name.empty();
  s.bound_pods.reserve(bound);
  s.pending_pods.reserve(objects.pods.size() - bound + workload_pods.size());
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

  // NodePools that may launch, highest weight first and equal weights by name descending, as
  // Karpenter's provisioner orders them (pkg/utils/nodepool OrderByWeight). A NodePool being
  // deleted may not; nor may one whose Ready condition says it is not ready (its node class is
  // missing or failing). One without the condition (a user's manifest, no controller has
  // looked at it yet) counts as ready.
  for (const auto& np : objects.node_pools) {
    if (np.object.metadata.deletion_timestamp.has_value()) continue;
    const api::Condition* ready = api::FindCondition(np.object.conditions, api::kNodePoolConditionReady);
    if (ready != nullptr && ready->status != "True") continue;
    s.node_pools.push_back(np.object);
  }
  std::stable_sort(s.node_pools.begin(), s.node_pools.end(),
                   [](const api::NodePool& a, const api::NodePool& b) {
                     int wa = a.weight.value_or(0), wb = b.weight.value_or(0);
                     if (wa != wb) return wa > wb;
                     return a.metadata.name > b.metadata.name;
                   });

  // DaemonSets: the pod each would add to a new node. That is its newest existing pod when it
  // has one, since admission (LimitRanger, a VPA) may have changed what the template asks for,
  // else a pod from its template (provisioner.go getDaemonSetPods, state/cluster.go).
  std::map<std::string, std::vector<const api::Pod*>> daemon_pods;  // by "namespace/name"
  for (const auto& sp : objects.pods) {
    const api::OwnerReference* owner = ControllingDaemonSet(sp.object);
    if (owner != nullptr) daemon_pods[sp.object.metadata.namespace_ + "/" + owner->name].push_back(&sp.object);
  }
  for (const auto& ds : objects.daemon_sets) {
    const api::DaemonSet& d = ds.object;
    const api::Pod* newest = nullptr;
    auto pods = daemon_pods.find(d.metadata.namespace_ + "/" + d.metadata.name);
    if (pods != daemon_pods.end()) {
      for (const api::Pod* p : pods->second) {
        // Not a pod of an earlier DaemonSet of the same name.
        if (!d.metadata.uid.empty() && ControllingDaemonSet(*p)->uid != d.metadata.uid) continue;
        if (newest == nullptr || CreatedAfter(*p, *newest)) newest = p;
      }
    }
    s.daemon_set_pods.push_back(newest != nullptr ? DaemonSetPodFromPod(*newest, d)
                                                  : DaemonSetPodFromTemplate(d));
  }
  std::stable_sort(s.daemon_set_pods.begin(), s.daemon_set_pods.end(),
                   [](const api::Pod& a, const api::Pod& b) { return PodKey(a) < PodKey(b); });

  for (const auto& c : objects.persistent_volume_claims) s.volume_topology.AddClaim(c.object);
  for (const auto& v : objects.persistent_volumes) s.volume_topology.AddVolume(v.object);
  for (const auto& sc : objects.storage_classes) s.volume_topology.AddStorageClass(sc.object);
  return s;
}

}  // namespace nodesmith::solver
