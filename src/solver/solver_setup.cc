// Solver's setup (solver_state.h): the state of a solve built from the Snapshot, and kept up to
// date when a relaxed pod changes its class or topology.
#include <algorithm>
#include <cstdint>
#include <memory>
#include <set>
#include <string>
#include <utility>
#include <vector>

#include "api/resource_list.h"
#include "scheduling/well_known_labels.h"
#include "solver/instance_type_filter.h"
#include "solver/solver_state.h"
#include "solver/topology_domain_group.h"

namespace nodesmith::solver::internal {
namespace {

// Every required node-affinity term of the pod as text: two pods whose signatures match can
// still differ in the terms after the first, which relaxation may reach.
std::string TermKey(const api::Pod& pod) {
  std::string key;
  if (!pod.spec.affinity || !pod.spec.affinity->node_affinity ||
      !pod.spec.affinity->node_affinity->required) {
    return key;
  }
  for (const auto& term : pod.spec.affinity->node_affinity->required->node_selector_terms) {
    key += scheduling::Requirements::FromNodeSelectorRequirements(term.match_expressions).String();
    key += "||";
  }
  return key;
}

}  // namespace

void Solver::BuildIndex() {
  pending_requests_.reserve(s_.pending_pods.size());
  RequestLists lists;
  const api::ResourceList* registered = nullptr;  // shared lists come in runs: registered once
  for (const auto& p : s_.pending_pods) {
    pending_requests_.push_back(lists.For(p));
    if (pending_requests_.back().get() == registered) continue;
    registered = pending_requests_.back().get();
    index_.Register(*registered);
  }
  for (const auto& p : s_.bound_pods) index_.Register(PodRequestsWithPodCount(p));
  for (const auto& p : s_.daemon_set_pods) index_.Register(PodRequestsWithPodCount(p));
  for (const auto& t : s_.instance_types) {
    index_.Register(t->allocatable);
    index_.Register(t->capacity);
  }
  for (const auto& e : s_.existing) {
    index_.Register(e.allocatable);
    index_.Register(e.capacity);
  }
  for (const auto& np : s_.node_pools) index_.Register(np.limits);
  index_.Freeze();
}

void Solver::BuildTypes() {
  // A NodePool's `nodes` limit: every node counts as one node of capacity (Karpenter's
  // StateNode.Capacity), so a new NodeClaim needs one node left, and takes it.
  const int nodes = index_.Find(api::kResourceNodes);
  for (const auto& t : s_.instance_types) {
    types_.push_back(TypeInfo{t.get(), index_.ToVector(t->allocatable), index_.ToVector(t->capacity)});
    if (nodes >= 0) types_.back().capacity[nodes] = kOneNode;
    for (const auto& r : t->requirements) type_keys_.insert(r.key());
    for (const auto& o : t->offerings) {
      for (const auto& r : o.requirements) type_keys_.insert(r.key());
    }
  }
}

void Solver::BuildTemplates() {
  for (const auto& np : s_.node_pools) {
    Template t;
    t.pool = &np;
    t.name = np.metadata.name;
    t.requirements =
        scheduling::Requirements::FromNodeSelectorRequirements(np.template_.spec.requirements);
    api::Labels labels = np.template_.labels;
    labels[scheduling::kLabelNodePool] = t.name;
    t.requirements.Add(scheduling::Requirements::FromLabels(labels));
    t.taints = np.template_.spec.taints;
    for (size_t i = 0; i < types_.size(); ++i) {
      const cloud::InstanceType& it = *types_[i].type;
      if (!t.requirements.IsCompatible(it.requirements, allow_)) continue;
      if (!HasCompatibleOffering(it, t.requirements, allow_)) continue;
      t.types.push_back(static_cast<int>(i));
      t.type_ptrs.push_back(s_.instance_types[i]);
    }
    BuildDaemonOverhead(t);
    t.remaining = ResourceVector(index_.size(), kUnlimited);
    for (const auto& [name, q] : np.limits.items()) {
      int i = index_.Find(name);
      if (i < 0) continue;
      t.remaining[i] = q.MilliValue();
      t.has_limits = true;
    }
    if (t.has_limits) {
      // Capacity already launched for this pool counts against its limits.
      for (const auto& e : s_.existing) {
        if (e.node_pool != t.name) continue;
        ResourceVector cap = index_.ToVector(e.capacity);
        if (const int nodes = index_.Find(api::kResourceNodes); nodes >= 0) cap[nodes] = kOneNode;
        for (int r = 0; r < index_.size(); ++r) {
          if (t.remaining[r] != kUnlimited) t.remaining[r] -= cap[r];
        }
      }
    }
    templates_.push_back(std::move(t));
  }
}

void Solver::BuildDaemonOverhead(Template& t) {
  std::vector<const cloud::InstanceType*> types;
  types.reserve(t.types.size());
  for (int i : t.types) types.push_back(types_[i].type);
  DaemonOverheadGroups groups =
      GroupDaemonOverhead(t.requirements, t.taints, types, s_.daemon_set_pods, allow_);
  t.daemon_groups = std::move(groups.groups);
  for (const auto& g : t.daemon_groups) {
    t.daemon_overhead.push_back(index_.ToVector(g.overhead));
    t.daemon_ports = t.daemon_ports || !g.host_ports.empty();
  }
  t.daemon_group.assign(types_.size(), -1);
  for (size_t j = 0; j < t.types.size(); ++j) t.daemon_group[t.types[j]] = groups.group_of[j];
  // The template's rows of room_: types outside t.types keep their allocatable (never read).
  for (size_t i = 0; i < types_.size(); ++i) {
    const int g = t.daemon_group[i];
    for (int r = 0; r < index_.size(); ++r) {
      room_.push_back(types_[i].allocatable[r] - (g >= 0 ? t.daemon_overhead[g][r] : 0));
    }
  }
}

bool Solver::DaemonPortsConflict(int tmpl, int type, const HostPortUsage& ports) const {
  const Template& tm = templates_[tmpl];
  if (!tm.daemon_ports || ports.empty()) return false;
  const int g = tm.daemon_group[type];
  return g >= 0 && ports.Conflict(tm.daemon_groups[g].host_ports) != nullptr;
}

void Solver::BuildExisting() {
  for (const auto& e : s_.existing) {
    ExistingState st;
    st.in = &e;
    api::Labels labels = e.labels;
    labels.emplace(scheduling::kLabelHostname, e.name);
    st.requirements = scheduling::Requirements::FromLabels(labels);
    st.available = index_.ToVector(e.allocatable);
    std::set<std::string> daemons_present;
    for (int b : e.bound_pods) {
      const api::Pod& p = s_.bound_pods[b];
      SubtractFrom(st.available, index_.ToVector(PodRequestsWithPodCount(p)));
      st.ports.Add(PodHostPorts(p));
      for (const auto& ref : p.metadata.owner_references) {
        if (ref.kind == "DaemonSet") daemons_present.insert(p.metadata.namespace_ + "/" + ref.name);
      }
    }
    // DaemonSet pods that would run here but are not bound yet will take their share.
    for (const auto& d : s_.daemon_set_pods) {
      if (daemons_present.count(d.metadata.namespace_ + "/" + d.metadata.name)) continue;
      if (!DaemonPodRunsOnNode(d, st.requirements, e.taints)) continue;
      SubtractFrom(st.available, index_.ToVector(PodRequestsWithPodCount(d)));
    }
    st.initial_available = st.available;
    existing_.push_back(std::move(st));
  }
}

void Solver::Refresh(int p) {
  PodState& ps = pods_[p];
  ps.info = MakePodInfo(*ps.pod, index_, std::move(ps.info.request_list));
  // Looked up before inserting: emplace would build a node (and copy the signature) per pod.
  auto base = class_by_signature_.find(ps.info.signature);
  if (base == class_by_signature_.end()) {
    base = class_by_signature_.emplace(ps.info.signature, static_cast<int>(classes_.size())).first;
    classes_.emplace_back();
    class_signature_.push_back(&base->first);
  }
  ps.base_cls = base->second;
}

void Solver::BuildPods() {
  pods_.reserve(s_.pending_pods.size());
  for (size_t i = 0; i < s_.pending_pods.size(); ++i) {
    const api::Pod& p = s_.pending_pods[i];
    PodState& ps = pods_.emplace_back();  // built in place: no move of the whole state
    ps.pod = &p;
    ps.info.request_list = std::move(pending_requests_[i]);
    const bool strip = opts_.ignore_preferences &&
                       (p.spec.affinity.has_value() || !p.spec.topology_spread_constraints.empty());
    if (strip || !p.spec.volumes.empty()) {
      ps.prepared = std::make_unique<api::Pod>(p);
      if (strip) StripPreferences(*ps.prepared);
      core::Status st = s_.volume_topology.Inject(*ps.prepared);
      if (!st.ok()) {
        ps.fatal = true;
        ps.error = st.message();
      }
      ps.pod = ps.prepared.get();
    }
    ps.original = ps.pod;
    any_topology_ = any_topology_ || HasTopologyConstraints(*ps.pod);
  }
  pending_requests_.clear();
  for (const auto& p : s_.bound_pods) any_topology_ = any_topology_ || HasRequiredAntiAffinity(p);
  for (size_t i = 0; i < pods_.size(); ++i) {
    PodState& ps = pods_[i];
    const PodState* prev = i > 0 ? &pods_[i - 1] : nullptr;
    if (prev != nullptr && !ps.fatal && !prev->fatal && prev->info.request_list == ps.info.request_list &&
        SamePlacementSpec(*prev->pod, *ps.pod)) {
      // Same PodInfo as the pod before it but for the key: copied, not recomputed (pods of one
      // template arrive in runs). The signature stays with the class (class_signature_).
      ps.info.key = PodKey(*ps.pod);
      ps.info.requests = prev->info.requests;
      ps.info.requirements = prev->info.requirements;
      ps.info.strict_requirements = prev->info.strict_requirements;
      ps.info.host_ports = prev->info.host_ports;
      ps.base_cls = prev->base_cls;
    } else {
      Refresh(static_cast<int>(i));
    }
    // Only the lower bound reads it.
    if (opts_.compute_lower_bound) {
      ps.lb_key = *class_signature_[ps.base_cls] + "#" + TermKey(*ps.pod);
    }
  }
}

core::Status Solver::BuildTopology() {
  if (!any_topology_) return core::Status::Ok();
  std::vector<DomainSource> sources;
  for (const auto& t : templates_) sources.push_back(DomainSource{t.pool, &t.type_ptrs});
  TopologyCluster cluster;
  for (const auto& e : s_.existing) {
    cluster.nodes.push_back(TopologyNode{e.name, e.labels, e.taints, e.in_flight});
  }
  for (const auto& p : s_.bound_pods) cluster.bound_pods.push_back(&p);
  cluster.namespace_labels = s_.namespace_labels;
  std::vector<const api::Pod*> pending;
  for (const auto& ps : pods_) pending.push_back(ps.pod);
  auto topo = Topology::Create(cluster, BuildDomainGroups(sources), pending);
  if (!topo.ok()) return topo.status();
  topology_ = std::move(topo).value();
  for (size_t i = 0; i < pods_.size(); ++i) RefreshTopology(static_cast<int>(i));
  return core::Status::Ok();
}

void Solver::UpdateMemoKeys(PodState& ps) {
  ps.memo_keys = topology_->ConstraintKeys(*ps.pod);
  ps.memo_epoch = topology_epoch_;
  ps.memo_ids = nullptr;
  if (std::find(ps.memo_keys.begin(), ps.memo_keys.end(), scheduling::kLabelHostname) !=
      ps.memo_keys.end()) {
    return;
  }
  std::string joined;
  for (const auto& key : ps.memo_keys) {
    joined += key;
    joined += '\n';
  }
  ps.memo_ids = &memo_cache_[joined];
}

void Solver::RecordTopology(PodState& ps, const std::vector<api::Taint>& taints,
                            const scheduling::Requirements& requirements) {
  if (ps.selecting_epoch != topology_epoch_) {
    ps.selecting = topology_->SelectingGroups(*ps.pod);
    ps.selecting_epoch = topology_epoch_;
  }
  topology_->Record(*ps.pod, taints, requirements, ps.selecting);
}

void Solver::RefreshTopology(int p) {
  PodState& ps = pods_[p];
  ps.topology = topology_->MayConstrain(*ps.pod);
  ps.counts = topology_->Counts(*ps.pod);
  // While topology still remembers this pod (one-entry cache of Topology's lookups).
  if (ps.topology) UpdateMemoKeys(ps);
  ps.host_exclusion = -1;
  std::vector<int64_t> key = topology_->HostExclusionKey(*ps.pod);
  if (key.empty()) return;
  auto [it, inserted] =
      exclusion_by_key_.emplace(std::move(key), static_cast<int>(excluded_.size()));
  if (inserted) excluded_.emplace_back();
  ps.host_exclusion = it->second;
}

}  // namespace nodesmith::solver::internal
