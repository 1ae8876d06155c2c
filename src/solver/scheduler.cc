#include "solver/scheduler.h"

#include <algorithm>
#include <cmath>
#include <cstdio>
#include <cstdint>
#include <limits>
#include <map>
#include <memory>
#include <numeric>
#include <optional>
#include <set>
#include <string>
#include <unordered_map>
#include <unordered_set>
#include <utility>
#include <vector>

#include "scheduling/well_known_labels.h"
#include "solver/host_ports.h"
#include "solver/instance_type_filter.h"
#include "solver/lower_bound.h"
#include "solver/nodeclaim_name.h"
#include "solver/pod_info.h"
#include "solver/preferences.h"
#include "solver/queue.h"
#include "solver/repack.h"
#include "solver/resource_vector.h"
#include "solver/topology.h"
#include "solver/topology_domain_group.h"

namespace nodesmith::solver {
namespace {

constexpr int64_t kUnlimited = std::numeric_limits<int64_t>::max();
constexpr int64_t kOneNode = 1000;  // the milli-value of one node against a `nodes` limit

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

// The requirement sets a pod may be scheduled under, whatever relaxation does: one per
// required node-affinity term (terms are ORed), preferences dropped.
std::vector<scheduling::Requirements> LooseRequirements(const api::Pod& pod) {
  std::vector<scheduling::Requirements> out;
  const bool has_terms = pod.spec.affinity && pod.spec.affinity->node_affinity &&
                         pod.spec.affinity->node_affinity->required &&
                         pod.spec.affinity->node_affinity->required->node_selector_terms.size() > 1;
  if (!has_terms) {
    out.push_back(scheduling::Requirements::FromPodStrict(pod));
    return out;
  }
  for (const auto& term : pod.spec.affinity->node_affinity->required->node_selector_terms) {
    api::Pod copy = pod;
    copy.spec.affinity->node_affinity->required->node_selector_terms = {term};
    out.push_back(scheduling::Requirements::FromPodStrict(copy));
  }
  return out;
}

// Taints a pod could ever be scheduled past: PreferNoSchedule is relaxable, so ignored here.
bool ToleratesHard(const std::vector<api::Taint>& taints, const api::Pod& pod) {
  std::vector<api::Taint> hard;
  for (const auto& t : taints) {
    if (t.effect != "PreferNoSchedule") hard.push_back(t);
  }
  return !FirstUntoleratedTaint(hard, pod).has_value();
}

// Every detail of a requirement that offering compatibility can depend on, as text.
void AppendCanonical(const scheduling::Requirement& r, std::string& out) {
  AppendCanonicalText(r, /*with_min_values=*/false, out);
}

std::string CanonicalKey(const scheduling::Requirements& reqs) {
  std::string out;
  for (const auto& r : reqs) AppendCanonical(r, out);
  return out;
}

// Fits, against a row of Solver::type_allocatable_.
inline bool FitsRow(const ResourceVector& request, const int64_t* capacity) {
  const size_t n = request.size();
  for (size_t i = 0; i < n; ++i) {
    if (request[i] > capacity[i]) return false;
  }
  return true;
}

struct TypeInfo {
  const cloud::InstanceType* type = nullptr;
  ResourceVector allocatable;
  ResourceVector capacity;
};

// A NodePool as a source of NodeClaims (Karpenter's NodeClaimTemplate).
struct Template {
  const api::NodePool* pool = nullptr;
  std::string name;
  scheduling::Requirements requirements;  // spec requirements + template labels + nodepool label
  std::vector<api::Taint> taints;
  std::vector<int> types;                 // compatible with `requirements`, with an offering
  cloud::InstanceTypes type_ptrs;         // the same, for topology domains
  ResourceVector daemon;                  // DaemonSet overhead on its nodes
  api::ResourceList daemon_list;
  ResourceVector remaining;               // limits left; kUnlimited where none
  bool has_limits = false;
};

struct ExistingState {
  const ExistingCapacity* in = nullptr;
  scheduling::Requirements requirements;  // labels + hostname
  ResourceVector available;
  ResourceVector initial_available;
  HostPortUsage ports;
  std::vector<int> pods;
};

// A NodeClaim being built (Karpenter's scheduling.NodeClaim).
struct ClaimState {
  int tmpl = 0;
  std::string hostname;
  scheduling::Requirements requirements;
  std::vector<int> pods;
  ResourceVector requests;       // daemon overhead + pods
  std::vector<int> options;      // type indices, still fitting everything
  ResourceVector max_allocatable;  // entry-wise max over options
  HostPortUsage ports;
};

struct PodState {
  // The pod's current spec: the snapshot's own, or a private copy once something had to change
  // (preferences stripped, volume zones injected, relaxation). Copying only then keeps a solve
  // over tens of thousands of pods from copying every spec.
  const api::Pod* pod = nullptr;
  std::unique_ptr<api::Pod> prepared;  // stripped / injected, before any relaxation
  std::unique_ptr<api::Pod> owned;     // relaxed
  const api::Pod* original = nullptr;  // after stripping and injection, before relaxation
  api::Pod& Mutable() {
    if (!owned) {
      owned = std::make_unique<api::Pod>(*pod);
      pod = owned.get();
    }
    return *owned;
  }
  // info.signature is left empty when the pod took its PodInfo from the pod before it
  // (BuildPods); its class's signature is Solver::class_signature_[base_cls].
  PodInfo info;
  // Class by scheduling-relevant spec (PodInfo::signature): pods of one class share cached
  // NodePool checks and topology-free placement failures.
  int base_cls = -1;
  bool topology = false;  // topology may narrow or reject its placements
  // Pods whose hostname constraints exclude the same NodeClaims share this class (index into
  // Solver::excluded_); -1 when no hostname constraint can exclude it.
  int host_exclusion = -1;
  // Topology::ConstraintKeys of the pod, valid while memo_epoch == Solver::topology_epoch_,
  // and Solver::memo_cache_'s entry for them (null when they include the hostname).
  std::vector<std::string> memo_keys;
  int memo_epoch = -1;
  std::vector<std::pair<int, int>>* memo_ids = nullptr;
  // Topology::SelectingGroups of the pod, valid while selecting_epoch == topology_epoch_.
  std::vector<size_t> selecting;
  int selecting_epoch = -1;
  bool counts = false;    // where it lands changes topology counts
  std::string error;
  bool placed = false;
  bool fatal = false;     // cannot be scheduled at all (e.g. volume lookup failed)
  std::string lb_key;     // lower-bound class key (original spec, every required term)
};

// How far RepackClaims may move a pod.
enum class Mobility : uint8_t {
  kPinned,       // stays on its NodeClaim
  kWithinGroup,  // to NodeClaims requiring what its own does (same NodePool and requirements)
  kWithinPool,   // to any NodeClaim of its NodePool: the NodePool's requirements imply its own
};

// NodeClaims of one NodePool that RepackClaims treats alike: their requirements (without the
// placeholder hostname) are one requirement set of solver/repack.h.
struct RepackSet {
  int tmpl = 0;
  scheduling::Requirements requirements;
  std::vector<int> claims;   // indices into Solver::claims_
  bool any_movable = false;  // some pod on them may move
};

// The instance types of a NodePool that one requirement set may launch: priced as Finalize
// prices them, with what pods may use of each (allocatable minus DaemonSet overhead).
struct PricedTypes {
  std::vector<int> ids;  // indices into Solver::types_
  std::vector<double> prices;
  std::vector<ResourceVector> capacities;
};

// Decisions shared by every pod of one class; vectors grow lazily.
struct ClassState {
  std::vector<uint8_t> dead_existing;
  std::vector<uint8_t> dead_claim;
  std::vector<uint8_t> tmpl_checked;
  std::vector<std::string> tmpl_failure;      // permanent reason, "" when compatible
  std::vector<std::vector<int>> tmpl_types;   // compatible types (requirements + offerings)
  // Per template: the types of tmpl_types a new NodeClaim for one pod of the class fits on,
  // and their entry-wise maximum allocatable and capacity. Fixed while topology does not
  // narrow the NodeClaim (TryNewClaim), so computed once.
  struct NewClaimTypes {
    bool known = false;
    std::vector<int> fitting;
    ResourceVector max_allocatable;
    ResourceVector max_capacity;
  };
  std::vector<NewClaimTypes> new_claim;
};

class Solver {
 public:
  Solver(const Snapshot& s, const SchedulerOptions& o)
      : s_(s), opts_(o), allow_(scheduling::AllowUndefined(s.well_known)) {}

  core::Result<Results> Run();

 private:
  void BuildIndex();
  void BuildTypes();
  void BuildTemplates();
  void BuildExisting();
  void BuildPods();
  core::Status BuildTopology();
  void Refresh(int p);  // recompute PodInfo and class after relaxation
  void RefreshTopology(int p);  // recompute the pod's topology flags after Topology changed

  bool TryExisting(int p, int e);
  bool TryClaim(int p, int k);
  bool TryNewClaim(int p, int t, std::string* reason);
  // Records pod p on `c`, TryNewClaim's new NodeClaim from template t (options, limits and
  // requirements settled), and adds it to the claims. Returns true.
  bool AddNewClaim(int p, int t, ClaimState c);
  const std::string& TemplateCheck(int p, int t);
  std::string ResourceFailure(int p, int t, const std::vector<int>& types) const;
  void Promote(int k);
  bool Place(int p);
  void RepackClaims();
  // Repacks the NodeClaims of `sets` (one NodePool's) together; NodeClaims left without pods are
  // marked in `dissolved`, new ones appended to `added`. Keeps claims_ indices valid.
  void RepackSets(int tmpl, const std::vector<RepackSet>& sets, const std::vector<Mobility>& mobility,
                  std::vector<uint8_t>& dissolved, std::vector<ClaimState>& added);
  const PricedTypes& RepackTypes(int tmpl, const scheduling::Requirements& reqs);
  void Finalize(Results& out);
  double ComputeLowerBound(const std::vector<int>& scheduled_pods);

  // The options of c that hold `requests` and suit `reqs`, in order, into `kept`.
  void FilterOptions(const ClaimState& c, const ResourceVector& requests,
                     const scheduling::Requirements& reqs, bool reqs_changed,
                     std::vector<int>& kept) const;
  void SetMaxAllocatable(ClaimState& c) const;
  bool DropsMax(const ClaimState& c, const std::vector<int>& kept) const;
  bool EnforceMinValues(scheduling::Requirements& reqs, const std::vector<int>& types,
                        std::string* reason) const;

  const Snapshot& s_;
  SchedulerOptions opts_;
  scheduling::CompatibilityOptions allow_;
  ResourceIndex index_;
  std::vector<TypeInfo> types_;
  // Every type's allocatable in one array (row t at t * index_.size()): the option loops read
  // it for hundreds of types per attempt, and rows side by side stay in cache.
  std::vector<int64_t> type_allocatable_;
  const int64_t* Allocatable(int t) const {
    return type_allocatable_.data() + static_cast<size_t>(t) * static_cast<size_t>(index_.size());
  }
  // Every label key some instance type or offering requires (the only keys type checks read).
  std::set<std::string, std::less<>> type_keys_;
  // FilterOptions' memo: requirements on type_keys_ (canonical text) -> per type, 1 when its
  // requirements intersect and it has a compatible offering, 0 when not, -1 not yet known.
  mutable std::unordered_map<std::string, std::vector<int8_t>> type_suits_;
  // RepackTypes' memo: NodePool and requirements on type_keys_ (canonical text) -> its answer.
  std::unordered_map<std::string, PricedTypes> repack_types_;
  std::vector<Template> templates_;
  std::vector<ExistingState> existing_;
  std::vector<PodState> pods_;
  std::vector<std::shared_ptr<const api::ResourceList>> pending_requests_;  // until BuildPods
  std::vector<ClassState> classes_;
  std::unordered_map<std::string, int> class_by_signature_;
  std::vector<const std::string*> class_signature_;  // by class: its key in class_by_signature_
  std::vector<ClaimState> claims_;
  // Claims by pod count ascending, then creation (index), strictly: a claim's position is
  // found by binary search. claim_order_count_[i] is the pod count of claim_order_[i], kept
  // beside it so the searches read two dense arrays, not the claims.
  std::vector<int> claim_order_;
  std::vector<size_t> claim_order_count_;
  // The first position in claim_order_ at or after `from` whose (pod count, index) is not
  // below (count, k).
  size_t OrderBound(size_t from, size_t count, int k) const;
  std::unique_ptr<Topology> topology_;
  // Per host-exclusion class: 1 for claims Topology::HostExcluded ruled out (final, since
  // topology counts only grow). Spares hostname anti-affinity pods a topology check against
  // every earlier claim.
  std::map<std::vector<int64_t>, int> exclusion_by_key_;
  std::vector<std::vector<uint8_t>> excluded_;
  bool any_topology_ = false;  // some pod declares spread, affinity or anti-affinity
  std::unique_ptr<Preferences> preferences_;
  int hostname_counter_ = 0;
  // During one Place(p) over NodeClaims (topology counts fixed): the keys topology consults for
  // p, and the texts of those keys' requirements on claims where topology rejected p. Another
  // claim requiring the same of those keys is rejected alike. Unused when a key is the hostname
  // (every claim differs) or p is not topology-constrained.
  // The claim's requirements on those keys are interned (memo_ids_) and cached per claim and
  // requirements version, so the check costs O(1) per claim. Reading the claim's requirements
  // rather than the pod-narrowed ones is finer, hence as exact.
  const std::vector<std::string>* memo_keys_ = nullptr;
  bool memo_on_ = false;
  int topology_epoch_ = 0;  // bumped by every Topology::Update
  std::vector<std::pair<int, int>>* memo_ids_of_claim_ = nullptr;  // (version + 1, id)
  // Per claim, bumped whenever its requirements change; apart from the claims, so the scan
  // over claims reads it without touching them.
  std::vector<int> claim_version_;
  std::unordered_map<std::string, std::vector<std::pair<int, int>>> memo_cache_;  // by keys
  std::unordered_map<std::string, int> memo_ids_;  // interned requirement texts
  std::vector<uint8_t> memo_failed_;               // by id, for the current Place
  ResourceVector scratch_requests_;                // TryClaim's tentative claim requests
  std::vector<int> scratch_options_;               // TryClaim's filtered options
  std::vector<int> memo_failed_list_;              // ids set in memo_failed_
  int MemoId(int k);
  // Sets the pod's memo_keys and memo_ids for the current topology_epoch_.
  void UpdateMemoKeys(PodState& ps);
  // Topology::Record of the pod's placement on a node with `taints` and `requirements`.
  void RecordTopology(PodState& ps, const std::vector<api::Taint>& taints,
                      const scheduling::Requirements& requirements);
};

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
    type_allocatable_.insert(type_allocatable_.end(), types_.back().allocatable.begin(),
                             types_.back().allocatable.end());
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
    // DaemonSets whose pods would run on this pool's nodes add their requests to every node.
    t.daemon = index_.Zero();
    for (const auto& d : s_.daemon_set_pods) {
      if (FirstUntoleratedTaint(t.taints, d)) continue;
      if (!t.requirements.IsCompatible(scheduling::Requirements::FromPod(d), allow_)) continue;
      api::ResourceList r = PodRequestsWithPodCount(d);
      t.daemon_list.Add(r);
      AddTo(t.daemon, index_.ToVector(r));
    }
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
      if (FirstUntoleratedTaint(e.taints, d)) continue;
      if (!st.requirements.IsCompatible(scheduling::Requirements::FromPod(d))) continue;
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

bool Solver::TryExisting(int p, int e) {
  PodState& ps = pods_[p];
  ClassState& cs = classes_[ps.base_cls];  // only topology-free checks are cached
  if (cs.dead_existing.size() < existing_.size()) cs.dead_existing.resize(existing_.size(), 0);
  if (cs.dead_existing[e]) return false;
  ExistingState& ex = existing_[e];
  // Every check before topology is monotone over the solve: a failure is final for the class.
  if (!ex.in->schedulable || !Fits(ps.info.requests, ex.available) ||
      FirstUntoleratedTaint(ex.in->taints, *ps.pod) || ex.ports.Conflict(ps.info.host_ports) ||
      !ex.requirements.IsCompatible(ps.info.requirements)) {
    cs.dead_existing[e] = 1;
    return false;
  }
  if (topology_ && ps.topology) {
    auto tr = topology_->TryAddRequirements(*ps.pod, ex.in->taints, ps.info.strict_requirements,
                                            ex.requirements);
    if (!tr || !ex.requirements.IsCompatible(*tr)) return false;
  }
  SubtractFrom(ex.available, ps.info.requests);
  ex.ports.Add(ps.info.host_ports);
  ex.pods.push_back(p);
  if (topology_ && ps.counts) RecordTopology(ps, ex.in->taints, ex.requirements);
  return true;
}

void Solver::SetMaxAllocatable(ClaimState& c) const {
  c.max_allocatable = index_.Zero();
  const size_t n = c.max_allocatable.size();
  for (int t : c.options) {
    const int64_t* a = Allocatable(t);
    for (size_t r = 0; r < n; ++r) c.max_allocatable[r] = std::max(c.max_allocatable[r], a[r]);
  }
}

// `kept` is c.options filtered (same order). The entry-wise maximum over it can differ from
// c.max_allocatable only if some dropped type attains that maximum in some resource.
bool Solver::DropsMax(const ClaimState& c, const std::vector<int>& kept) const {
  size_t j = 0;
  for (int t : c.options) {
    if (j < kept.size() && kept[j] == t) {
      ++j;
      continue;
    }
    const int64_t* a = Allocatable(t);
    for (int r = 0; r < index_.size(); ++r) {
      if (a[r] >= c.max_allocatable[r]) return true;
    }
  }
  return false;
}

void Solver::FilterOptions(const ClaimState& c, const ResourceVector& requests,
                           const scheduling::Requirements& reqs, bool reqs_changed,
                           std::vector<int>& kept) const {
  kept.clear();
  kept.reserve(c.options.size());
  // Whether a type suits `reqs` depends only on the keys types and offerings define; claims
  // narrowed the same way on those keys (e.g. to one zone) share the answers.
  std::vector<int8_t>* suits = nullptr;
  if (reqs_changed) {
    std::string key;
    for (const auto& r : reqs) {
      if (type_keys_.count(r.key()) > 0) AppendCanonical(r, key);
    }
    suits = &type_suits_[key];
    if (suits->empty()) suits->assign(types_.size(), -1);
  }
  for (int t : c.options) {
    if (!FitsRow(requests, Allocatable(t))) continue;
    if (suits != nullptr) {
      int8_t& ok = (*suits)[t];
      if (ok < 0) {
        const cloud::InstanceType& it = *types_[t].type;
        ok = it.requirements.IntersectsWith(reqs) && HasCompatibleOffering(it, reqs, allow_);
      }
      if (!ok) continue;
    }
    kept.push_back(t);
  }
}

bool Solver::EnforceMinValues(scheduling::Requirements& reqs, const std::vector<int>& types,
                              std::string* reason) const {
  if (!reqs.HasMinValues()) return true;
  std::vector<const cloud::InstanceType*> its;
  its.reserve(types.size());
  for (int t : types) its.push_back(types_[t].type);
  auto shortfalls = CheckMinValues(its, reqs);
  if (shortfalls.empty()) return true;
  if (!opts_.min_values_best_effort) {
    if (reason) {
      const auto& f = shortfalls.front();
      *reason = "minValues requirement not met for " + f.key + ": " + std::to_string(f.available) +
                " value(s) available, " + std::to_string(f.required) + " required";
    }
    return false;
  }
  for (const auto& f : shortfalls) {
    scheduling::Requirement r = *reqs.Find(f.key);
    r.set_min_values(f.available > 0 ? std::optional<int>(f.available) : std::nullopt);
    reqs.Remove(f.key);
    reqs.Add(r);
  }
  return true;
}

bool Solver::TryClaim(int p, int k) {
  PodState& ps = pods_[p];
  // Checks that do not involve topology only ever turn from pass to fail during a solve
  // (capacity fills, requirements narrow), so their failures are cached for every pod with the
  // same spec. Failures after topology was consulted are cached only for pods topology cannot
  // constrain.
  ClassState& cs = classes_[ps.base_cls];
  if (cs.dead_claim.size() < claims_.size()) cs.dead_claim.resize(claims_.size(), 0);
  if (cs.dead_claim[k]) return false;
  ClaimState& c = claims_[k];
  if (ps.host_exclusion >= 0) {
    // The claim's hostname is fixed, so a hostname constraint that already rules it out for
    // this pod rules it out for good: no need to ask topology again.
    std::vector<uint8_t>& excluded = excluded_[ps.host_exclusion];
    if (excluded.size() < claims_.size()) excluded.resize(claims_.size(), 0);
    if (excluded[k]) return false;
    if (topology_->HostExcluded(*ps.pod, c.hostname)) {
      excluded[k] = 1;
      return false;
    }
  }
  auto dead = [&]() {
    cs.dead_claim[k] = 1;
    return false;
  };
  auto failed = [&]() {
    if (!ps.topology) cs.dead_claim[k] = 1;
    return false;
  };
  if (!FitsWith(ps.info.requests, c.requests, c.max_allocatable)) return dead();
  if (!TemplateCheck(p, c.tmpl).empty()) return dead();
  if (c.ports.Conflict(ps.info.host_ports)) return dead();
  if (!c.requirements.IsCompatible(ps.info.requirements, allow_)) return dead();

  ResourceVector& requests = scratch_requests_;  // reused: no allocation per attempt
  requests.assign(c.requests.begin(), c.requests.end());
  AddTo(requests, ps.info.requests);
  const Template& t = templates_[c.tmpl];
  // Options are only ever filtered: the entry-wise maximum needs recomputing only when a
  // dropped option attained it (DropsMax).
  bool max_may_drop = false;
  if (ps.info.requirements.empty() && !(topology_ && ps.topology)) {
    // Nothing narrows: only resources can rule types out.
    const bool all_fit = !c.options.empty() &&
                         std::all_of(c.options.begin(), c.options.end(), [&](int o) {
                           return FitsRow(requests, Allocatable(o));
                         });
    if (!all_fit) {
      std::vector<int>& kept = scratch_options_;
      FilterOptions(c, requests, c.requirements, false, kept);
      if (kept.empty()) return dead();
      if (c.requirements.HasMinValues()) {
        // Fewer types may no longer offer what minValues asks for: Strict refuses the pod here
        // (it opens another NodeClaim), BestEffort relaxes (nodeclaim.go CanAdd). Capacity only
        // fills, so a refusal holds for every pod of the class.
        scheduling::Requirements relaxed = c.requirements;
        if (!EnforceMinValues(relaxed, kept, nullptr)) return dead();
        if (!(relaxed == c.requirements)) {
          c.requirements = std::move(relaxed);
          ++claim_version_[k];
        }
      }
      max_may_drop = DropsMax(c, kept);
      c.options.swap(kept);  // the old buffer is reused next time
    }
  } else {
    // Ask topology first, against the claim's requirements narrowed by the pod's (copied only
    // when the pod has requirements of its own): most rejections happen here, and cost no copy.
    std::optional<scheduling::Requirements> narrowed;
    if (!ps.info.requirements.empty()) {
      narrowed = c.requirements;
      narrowed->Add(ps.info.requirements);
    }
    const scheduling::Requirements& base = narrowed ? *narrowed : c.requirements;
    std::optional<scheduling::Requirements> topology_reqs;
    if (topology_ && ps.topology) {
      const int memo = memo_on_ ? MemoId(k) : -1;
      if (memo >= 0 && memo_failed_[memo]) return false;
      auto tr = topology_->TryAddRequirements(*ps.pod, t.taints, ps.info.strict_requirements, base);
      if (!tr) {
        if (memo >= 0) {
          memo_failed_[memo] = 1;
          memo_failed_list_.push_back(memo);
        }
        return false;
      }
      if (!base.IsCompatible(*tr, allow_)) return false;
      topology_reqs = std::move(tr).value();
    }
    scheduling::Requirements merged = narrowed ? std::move(*narrowed) : c.requirements;
    if (topology_reqs) merged.Add(*topology_reqs);
    const bool changed = !(merged == c.requirements);
    std::vector<int>& kept = scratch_options_;
    FilterOptions(c, requests, merged, changed, kept);
    if (kept.empty()) return failed();
    if (!EnforceMinValues(merged, kept, nullptr)) return failed();
    max_may_drop = DropsMax(c, kept);
    c.options.swap(kept);  // the old buffer is reused next time
    // Equal requirements stay as they are, and so does the version (MemoId's cache key).
    if (changed || (merged.HasMinValues() && !(merged == c.requirements))) {
      c.requirements = std::move(merged);
      ++claim_version_[k];
    }
  }
  c.requests.swap(requests);
  if (max_may_drop) SetMaxAllocatable(c);
  c.ports.Add(ps.info.host_ports);
  c.pods.push_back(p);
  if (topology_ && ps.counts) RecordTopology(ps, t.taints, c.requirements);
  Promote(k);
  return true;
}

int Solver::MemoId(int k) {
  std::vector<std::pair<int, int>>& ids = *memo_ids_of_claim_;
  if (ids.size() < claims_.size()) ids.resize(claims_.size(), {0, -1});
  const ClaimState& c = claims_[k];
  const int version = claim_version_[k];
  if (ids[k].first == version + 1) return ids[k].second;
  std::string text;
  for (const auto& key : *memo_keys_) AppendCanonical(c.requirements.Get(key), text);
  auto [it, inserted] = memo_ids_.emplace(std::move(text), static_cast<int>(memo_ids_.size()));
  if (inserted) memo_failed_.push_back(0);
  ids[k] = {version + 1, it->second};
  return it->second;
}

size_t Solver::OrderBound(size_t from, size_t count, int k) const {
  size_t lo = from, hi = claim_order_.size();
  while (lo < hi) {
    const size_t mid = lo + (hi - lo) / 2;
    const size_t n = claim_order_count_[mid];
    if (n < count || (n == count && claim_order_[mid] < k)) {
      lo = mid + 1;
    } else {
      hi = mid;
    }
  }
  return lo;
}

// Keeps claim_order_ sorted by pod count ascending (ties: creation order) after claim k gained
// a pod; it can only move towards the back, past the claims now below it.
void Solver::Promote(int k) {
  const size_t my = claims_[k].pods.size();
  const size_t pos = OrderBound(0, my - 1, k);  // where k is (its count was my - 1)
  const size_t end = OrderBound(pos + 1, my, k);
  std::rotate(claim_order_.begin() + pos, claim_order_.begin() + pos + 1, claim_order_.begin() + end);
  std::rotate(claim_order_count_.begin() + pos, claim_order_count_.begin() + pos + 1,
              claim_order_count_.begin() + end);
  claim_order_count_[end - 1] = my;
}

const std::string& Solver::TemplateCheck(int p, int t) {
  PodState& ps = pods_[p];
  ClassState& cs = classes_[ps.base_cls];
  if (cs.tmpl_checked.size() < templates_.size()) {
    cs.tmpl_checked.resize(templates_.size(), 0);
    cs.tmpl_failure.resize(templates_.size());
    cs.tmpl_types.resize(templates_.size());
    cs.new_claim.resize(templates_.size());
  }
  if (cs.tmpl_checked[t]) return cs.tmpl_failure[t];
  cs.tmpl_checked[t] = 1;
  const Template& tm = templates_[t];
  std::string& failure = cs.tmpl_failure[t];
  if (auto taint = FirstUntoleratedTaint(tm.taints, *ps.pod)) {
    failure = DescribeUntolerated(*taint);
    return failure;
  }
  core::Status st = tm.requirements.Compatible(ps.info.requirements, allow_);
  if (!st.ok()) {
    failure = "incompatible requirements, " + st.message();
    return failure;
  }
  scheduling::Requirements merged = tm.requirements;
  merged.Add(ps.info.requirements);
  for (int i : tm.types) {
    const cloud::InstanceType& it = *types_[i].type;
    if (it.requirements.IntersectsWith(merged) && HasCompatibleOffering(it, merged, allow_)) {
      cs.tmpl_types[t].push_back(i);
    }
  }
  if (cs.tmpl_types[t].empty()) {
    failure = tm.types.empty() ? "no instance type satisfies the nodepool's requirements"
                               : "no instance type satisfies " + ps.info.requirements.String();
  }
  return failure;
}

std::string Solver::ResourceFailure(int p, int t, const std::vector<int>& types) const {
  const PodState& ps = pods_[p];
  const Template& tm = templates_[t];
  ResourceVector max_alloc = index_.Zero();
  for (int i : types) MaxInto(max_alloc, types_[i].allocatable);
  std::vector<std::string> parts;
  for (int r = 0; r < index_.size(); ++r) {
    if (ps.info.requests[r] + tm.daemon[r] <= max_alloc[r]) continue;
    std::string q = ps.info.request_list->Get(index_.Name(r)).String();
    std::string msg = max_alloc[r] <= 0 ? "no instance type has " + q + " " + index_.Name(r)
                                        : "no instance type fits " + index_.Name(r) + " " + q;
    if (tm.daemon[r] > 0) msg += " (with daemonset overhead " + DescribeEntry(index_, r, tm.daemon[r]) + ")";
    return msg;
  }
  // Each resource fits some type, but no single type fits them all.
  for (int r = 0; r < index_.size(); ++r) {
    if (ps.info.requests[r] > 0 && r != ResourceIndex::kPods) {
      parts.push_back(index_.Name(r) + " " + ps.info.request_list->Get(index_.Name(r)).String());
    }
  }
  std::string joined;
  for (size_t i = 0; i < parts.size(); ++i) joined += (i ? ", " : "") + parts[i];
  return "no instance type fits " + joined + " together";
}

bool Solver::TryNewClaim(int p, int t, std::string* reason) {
  PodState& ps = pods_[p];
  const std::string& failure = TemplateCheck(p, t);
  if (!failure.empty()) {
    *reason = failure;
    return false;
  }
  Template& tm = templates_[t];
  ClassState& cs = classes_[ps.base_cls];
  if (tm.has_limits) {
    // Known before any type is looked at: every type takes one node (scheduler.go
    // addToNewNodeClaim).
    if (const int nodes = index_.Find(api::kResourceNodes);
        nodes >= 0 && tm.remaining[nodes] < kOneNode) {
      *reason = "node limits have been exhausted for nodepool";
      return false;
    }
  }

  ClaimState c;
  c.tmpl = t;
  c.requirements = tm.requirements;
  c.requirements.Add(ps.info.requirements);
  bool narrowed = false;
  if (topology_) {
    // Every NodeClaim is its own hostname domain, as Karpenter's placeholder hostnames.
    char buf[40];
    std::snprintf(buf, sizeof(buf), "hostname-placeholder-%04d", ++hostname_counter_);
    c.hostname = buf;
    c.requirements.Add(scheduling::Requirement::In(scheduling::kLabelHostname, {c.hostname}));
    topology_->Register(scheduling::kLabelHostname, c.hostname);
  }
  if (topology_ && ps.topology) {
    auto tr = topology_->AddRequirements(*ps.pod, tm.taints, ps.info.strict_requirements, c.requirements);
    if (!tr.ok()) {
      *reason = tr.status().message();
      return false;
    }
    if (core::Status st = c.requirements.Compatible(*tr, allow_); !st.ok()) {
      *reason = st.message();
      return false;
    }
    scheduling::Requirements before = c.requirements;
    c.requirements.Add(*tr);
    narrowed = !(before == c.requirements);
  }

  c.requests = tm.daemon;
  AddTo(c.requests, ps.info.requests);
  const std::vector<int>& candidates = cs.tmpl_types[t];
  ClassState::NewClaimTypes* same = narrowed ? nullptr : &cs.new_claim[t];
  if (same != nullptr && !same->known) {
    same->known = true;
    same->max_allocatable = index_.Zero();
    same->max_capacity = index_.Zero();
    for (int i : candidates) {
      if (!FitsRow(c.requests, Allocatable(i))) continue;
      same->fitting.push_back(i);
      MaxInto(same->max_allocatable, types_[i].allocatable);
      MaxInto(same->max_capacity, types_[i].capacity);
    }
  }
  if (same != nullptr && !same->fitting.empty() &&
      (!tm.has_limits || Fits(same->max_capacity, tm.remaining))) {
    // Every fitting type is within the limits (none exceeds the largest): the loop below
    // would keep them all.
    if (!EnforceMinValues(c.requirements, same->fitting, reason)) return false;
    c.options = same->fitting;
    c.max_allocatable = same->max_allocatable;
    if (tm.has_limits) {
      for (int r = 0; r < index_.size(); ++r) {
        if (tm.remaining[r] != kUnlimited) tm.remaining[r] -= same->max_capacity[r];
      }
    }
    return AddNewClaim(p, t, std::move(c));
  }
  std::vector<int> fitting, within_limits;
  fitting.reserve(candidates.size());
  within_limits.reserve(candidates.size());
  for (int i : candidates) {
    if (!FitsRow(c.requests, Allocatable(i))) continue;
    if (narrowed) {
      const cloud::InstanceType& it = *types_[i].type;
      if (!it.requirements.IntersectsWith(c.requirements) ||
          !HasCompatibleOffering(it, c.requirements, allow_)) {
        continue;
      }
    }
    fitting.push_back(i);
    if (tm.has_limits && !Fits(types_[i].capacity, tm.remaining)) continue;
    within_limits.push_back(i);
  }
  if (fitting.empty()) {
    *reason = narrowed ? "no instance type satisfies the topology requirements " + c.requirements.String()
                       : ResourceFailure(p, t, candidates);
    return false;
  }
  if (within_limits.empty()) {
    std::string over;
    for (int r = 0; r < index_.size(); ++r) {
      if (tm.remaining[r] == kUnlimited) continue;
      over = DescribeEntry(index_, r, std::max<int64_t>(tm.remaining[r], 0));
      bool blocks = true;
      for (int i : fitting) blocks = blocks && types_[i].capacity[r] > tm.remaining[r];
      if (blocks) break;
    }
    *reason = "all instance types that fit exceed the nodepool's remaining limits (" + over + ")";
    return false;
  }
  if (!EnforceMinValues(c.requirements, within_limits, reason)) return false;
  c.options = std::move(within_limits);
  SetMaxAllocatable(c);

  // Karpenter's subtractMax: assume the largest option launches, so limits are never overshot.
  if (tm.has_limits) {
    ResourceVector max_cap = index_.Zero();
    for (int i : c.options) MaxInto(max_cap, types_[i].capacity);
    for (int r = 0; r < index_.size(); ++r) {
      if (tm.remaining[r] != kUnlimited) tm.remaining[r] -= max_cap[r];
    }
  }
  return AddNewClaim(p, t, std::move(c));
}

bool Solver::AddNewClaim(int p, int t, ClaimState c) {
  PodState& ps = pods_[p];
  const Template& tm = templates_[t];
  c.ports.Add(ps.info.host_ports);
  c.pods.push_back(p);
  if (topology_ && ps.counts) RecordTopology(ps, tm.taints, c.requirements);
  int k = static_cast<int>(claims_.size());
  claims_.push_back(std::move(c));
  // A new claim holds one pod: it goes before every claim with more (ties: creation order,
  // and it is the newest).
  const size_t pos = OrderBound(0, 1, k);
  claim_order_.insert(claim_order_.begin() + pos, k);
  claim_version_.push_back(0);
  claim_order_count_.insert(claim_order_count_.begin() + pos, 1);
  return true;
}

bool Solver::Place(int p) {
  PodState& ps = pods_[p];
  for (size_t e = 0; e < existing_.size(); ++e) {
    if (TryExisting(p, static_cast<int>(e))) return true;
  }
  memo_on_ = false;
  if (topology_ && ps.topology && !claim_order_.empty()) {
    if (ps.memo_epoch != topology_epoch_) UpdateMemoKeys(ps);
    memo_keys_ = &ps.memo_keys;
    memo_on_ = ps.memo_ids != nullptr;
    memo_ids_of_claim_ = ps.memo_ids;
    for (int id : memo_failed_list_) memo_failed_[id] = 0;
    memo_failed_list_.clear();
  }
  // The cached verdicts TryClaim starts with, checked here too: with thousands of claims, most
  // are already ruled out for this pod, and skipping them inline keeps the scan cheap.
  ClassState& cs = classes_[ps.base_cls];
  if (cs.dead_claim.size() < claims_.size()) cs.dead_claim.resize(claims_.size(), 0);
  const std::vector<uint8_t>* excluded = nullptr;
  if (ps.host_exclusion >= 0) {
    std::vector<uint8_t>& ex = excluded_[ps.host_exclusion];
    if (ex.size() < claims_.size()) ex.resize(claims_.size(), 0);
    excluded = &ex;
  }
  for (size_t i = 0; i < claim_order_.size(); ++i) {
    const int k = claim_order_[i];
    if (cs.dead_claim[k] || (excluded != nullptr && (*excluded)[k])) continue;
    if (memo_on_ && memo_failed_[MemoId(k)]) continue;  // as TryClaim would find
    if (TryClaim(p, k)) {
      memo_on_ = false;
      return true;
    }
  }
  memo_on_ = false;
  if (templates_.empty()) {
    ps.error = "no nodepool can launch nodes (none given)";
    return false;
  }
  std::string errors;
  for (size_t t = 0; t < templates_.size(); ++t) {
    std::string reason;
    if (TryNewClaim(p, static_cast<int>(t), &reason)) return true;
    if (!errors.empty()) errors += "; ";
    errors += "incompatible with nodepool " + templates_[t].name + ": " + reason;
  }
  ps.error = std::move(errors);
  return false;
}

}  // namespace


namespace {

double Solver::ComputeLowerBound(const std::vector<int>& scheduled_pods) {
  LowerBoundProblem problem;
  const int nr = index_.size();
  // Classes of scheduled pods by their original spec.
  std::map<std::string, int> class_of;
  std::vector<int> representative;
  for (int p : scheduled_pods) {
    PodState& ps = pods_[p];
    auto [it, inserted] = class_of.emplace(ps.lb_key, static_cast<int>(problem.classes.size()));
    if (inserted) {
      LowerBoundClass c;
      c.request.assign(nr, 0);
      ResourceVector req = index_.ToVector(PodRequestsWithPodCount(*ps.original));
      for (int r = 0; r < nr; ++r) c.request[r] = static_cast<double>(req[r]);
      problem.classes.push_back(std::move(c));
      representative.push_back(p);
    }
    problem.classes[it->second].count++;
  }
  if (problem.classes.empty()) return 0;

  std::vector<std::vector<scheduling::Requirements>> loose;
  for (int p : representative) loose.push_back(LooseRequirements(*pods_[p].original));

  // Open bins: (NodePool, instance type).
  std::map<std::pair<int, int>, int> bin_of;  // (template, type) -> bin
  for (size_t t = 0; t < templates_.size(); ++t) {
    const Template& tm = templates_[t];
    for (int i : tm.types) {
      const cloud::InstanceType& it = *types_[i].type;
      LowerBoundBin bin;
      bin.price = CheapestPrice(it, tm.requirements, allow_);
      if (!(bin.price < std::numeric_limits<double>::infinity())) continue;
      bin.capacity.assign(nr, 0);
      bool ok = true;
      for (int r = 0; r < nr; ++r) {
        int64_t v = types_[i].allocatable[r] - tm.daemon[r];
        if (v < 0) ok = false;
        bin.capacity[r] = static_cast<double>(std::max<int64_t>(v, 0));
      }
      if (!ok) continue;
      int b = static_cast<int>(problem.bins.size());
      bool used = false;
      for (size_t c = 0; c < problem.classes.size(); ++c) {
        const api::Pod& pod = *pods_[representative[c]].original;
        if (!ToleratesHard(tm.taints, pod)) continue;
        bool compat = false;
        for (const auto& reqs : loose[c]) {
          if (!tm.requirements.IsCompatible(reqs, allow_)) continue;
          scheduling::Requirements merged = tm.requirements;
          merged.Add(reqs);
          if (it.requirements.IntersectsWith(merged) && HasCompatibleOffering(it, merged, allow_)) {
            compat = true;
            break;
          }
        }
        if (compat) {
          problem.classes[c].bins.push_back(b);
          used = true;
        }
      }
      if (used) {
        bin_of.emplace(std::make_pair(static_cast<int>(t), i), b);
        problem.bins.push_back(std::move(bin));
      }
    }
  }
  // The plan's own nodes seed the configuration LP: each NodeClaim on its cheapest option's bin.
  for (const ClaimState& c : claims_) {
    int best = -1;
    for (int i : c.options) {
      auto it = bin_of.find({c.tmpl, i});
      if (it != bin_of.end() && (best < 0 || problem.bins[it->second].price < problem.bins[best].price)) {
        best = it->second;
      }
    }
    if (best < 0) continue;
    std::map<int, int64_t> counts;
    for (int p : c.pods) {
      auto it = class_of.find(pods_[p].lb_key);
      if (it != class_of.end()) counts[it->second]++;
    }
    problem.seeds.push_back(LowerBoundPattern{best, {counts.begin(), counts.end()}});
  }
  // Fixed bins: what existing capacity had left before this solve.
  for (const auto& ex : existing_) {
    if (!ex.in->schedulable) continue;
    LowerBoundBin bin;
    bin.fixed = true;
    bin.capacity.assign(nr, 0);
    for (int r = 0; r < nr; ++r) bin.capacity[r] = static_cast<double>(std::max<int64_t>(ex.initial_available[r], 0));
    int b = static_cast<int>(problem.bins.size());
    bool used = false;
    for (size_t c = 0; c < problem.classes.size(); ++c) {
      const api::Pod& pod = *pods_[representative[c]].original;
      if (!ToleratesHard(ex.in->taints, pod)) continue;
      bool compat = false;
      for (const auto& reqs : loose[c]) compat = compat || ex.requirements.IsCompatible(reqs);
      if (compat) {
        problem.classes[c].bins.push_back(b);
        used = true;
      }
    }
    if (used) problem.bins.push_back(std::move(bin));
  }
  return LowerBound(problem);
}

// Above this many (pinned NodeClaim x instance type of its set x pod class) steps, the
// NodeClaims are left as they are: the pass must stay a small part of a solve.
constexpr double kMaxPinnedWork = 2e7;
// A NodePool whose NodeClaims fall into more groups than this is repacked group by group: every
// new node of a pool-wide repack tries the types of every group that still has pods of its own.
constexpr int kMaxPoolSets = 16;
// Topology lookups RepackClaims may spend deciding which constrained pods may move.
constexpr int kMaxInvolvedLookups = 2048;

// True when `extra` narrows nothing in `base`: every node `base` admits satisfies `extra`.
bool AddsNothing(const scheduling::Requirements& base, const scheduling::Requirements& extra) {
  if (extra.empty()) return true;
  scheduling::Requirements merged = base;
  merged.Add(extra);
  return merged == base;
}

// After placement, for pods nothing but resources constrain (no topology group consults or
// counts them, no host ports): re-decides which of them share which new NodeClaim of a NodePool
// (solver/repack.h), and keeps the result only when the plan gets cheaper. NodeClaims are
// grouped by NodePool and final requirements; each group's requirements are one requirement set
// (solver/repack.h), priced per instance type as Finalize prices it. Pods that must stay
// (topology, ports) pin their NodeClaim, which keeps its requirements and may receive pods.
// Pods topology takes part in without pinning them (below) move only within their group; pods
// whose own requirements the NodePool's already imply ("pool-free") may go to any NodeClaim of
// the NodePool, or to a new one under the NodePool's requirements (the base set). NodeClaims
// holding no pinned pod are replaced. A NodePool with a single NodeClaim is left as it is.
void Solver::RepackClaims() {
  if (claims_.empty()) return;
  // Nothing to gain unless some pod is free of topology: then pods topology takes part in may
  // join it where that changes no count (below).
  bool any_free = false;
  for (const ClaimState& c : claims_) {
    for (int p : c.pods) {
      const PodState& ps = pods_[p];
      any_free = any_free || (!ps.topology && !ps.counts && ps.info.host_ports.empty());
    }
  }
  if (!any_free) return;
  // A pod topology takes part in may still move between NodeClaims that require the same single
  // value of every key it takes part in (e.g. zone-spread pods within one zone): no count and no
  // answer changes. Never for hostname keys: every NodeClaim is its own hostname domain. The keys
  // are looked up at most kMaxInvolvedLookups times (each walks every topology group); pods
  // beyond that stay where they are.
  std::vector<int8_t> host_free(pods_.size(), -1);  // -1 unknown, 0 hostname involved, 1 not
  std::vector<std::vector<std::string>> involved(pods_.size());
  int lookups = 0;
  auto movable = [&](int p, const scheduling::Requirements& reqs) {
    const PodState& ps = pods_[p];
    if (!ps.info.host_ports.empty()) return false;
    if (!ps.topology && !ps.counts) return true;
    if (ps.host_exclusion >= 0) return false;  // owns a hostname constraint
    if (host_free[p] < 0) {
      if (lookups >= kMaxInvolvedLookups) return false;
      ++lookups;
      involved[p] = topology_->InvolvedKeys(*ps.pod);
      host_free[p] = std::find(involved[p].begin(), involved[p].end(), scheduling::kLabelHostname) ==
                     involved[p].end();
    }
    if (host_free[p] == 0) return false;
    for (const std::string& key : involved[p]) {
      const scheduling::Requirement* r = reqs.Find(key);
      if (r == nullptr || r->op() != scheduling::Operator::kIn || r->Len() != 1) return false;
    }
    return true;
  };
  // Whether the NodePool's requirements imply the pod's own, per (NodePool, pod class).
  std::vector<int8_t> implied(templates_.size() * classes_.size(), -1);
  auto pool_free = [&](int p, int tmpl) {
    const PodState& ps = pods_[p];
    if (ps.topology || ps.counts || !ps.info.host_ports.empty()) return false;
    int8_t& known = implied[static_cast<size_t>(tmpl) * classes_.size() + static_cast<size_t>(ps.base_cls)];
    if (known < 0) known = AddsNothing(templates_[tmpl].requirements, ps.info.requirements) ? 1 : 0;
    return known == 1;
  };
  std::vector<RepackSet> groups;
  std::unordered_map<std::string, int> group_of;
  std::vector<Mobility> mobility(pods_.size(), Mobility::kPinned);
  std::vector<int> claims_in_pool(templates_.size(), 0);
  std::vector<uint8_t> pool_has_free(templates_.size(), 0);
  for (size_t k = 0; k < claims_.size(); ++k) {
    const ClaimState& c = claims_[k];
    scheduling::Requirements reqs = c.requirements;
    reqs.Remove(scheduling::kLabelHostname);
    if (reqs.HasMinValues()) continue;  // the options must keep satisfying minValues: left alone
    std::string key = std::to_string(c.tmpl) + "\n" + CanonicalKey(reqs);
    auto [it, inserted] = group_of.emplace(std::move(key), static_cast<int>(groups.size()));
    if (inserted) groups.push_back(RepackSet{c.tmpl, std::move(reqs), {}, false});
    RepackSet& g = groups[it->second];
    g.claims.push_back(static_cast<int>(k));
    ++claims_in_pool[c.tmpl];
    for (int p : c.pods) {
      if (!movable(p, g.requirements)) continue;
      g.any_movable = true;
      mobility[p] = pool_free(p, c.tmpl) ? Mobility::kWithinPool : Mobility::kWithinGroup;
      if (mobility[p] == Mobility::kWithinPool) pool_has_free[c.tmpl] = 1;
    }
  }
  std::vector<uint8_t> dissolved(claims_.size(), 0);
  std::vector<ClaimState> added;
  for (size_t t = 0; t < templates_.size(); ++t) {
    // One NodeClaim is already launched as the cheapest type that holds it; splitting it would
    // turn a one-node answer (what consolidation asks a solve for) into several.
    if (claims_in_pool[t] < 2) continue;
    const int tmpl = static_cast<int>(t);
    int pool_groups = 0;
    for (const RepackSet& g : groups) pool_groups += g.tmpl == tmpl;
    if (!pool_has_free[t] || pool_groups >= kMaxPoolSets) {
      // Nothing may leave its group (or too many groups to weigh together): each on its own.
      for (const RepackSet& g : groups) {
        if (g.tmpl == tmpl && g.any_movable) RepackSets(tmpl, {g}, mobility, dissolved, added);
      }
      continue;
    }
    // The base set first (new NodeClaims holding only pool-free pods), joined by the group whose
    // NodeClaims require exactly what the NodePool does.
    std::vector<RepackSet> sets;
    sets.push_back(RepackSet{tmpl, templates_[t].requirements, {}, true});
    const std::string base_key = CanonicalKey(templates_[t].requirements);
    for (const RepackSet& g : groups) {
      if (g.tmpl != tmpl) continue;
      if (CanonicalKey(g.requirements) == base_key) {
        sets[0].claims = g.claims;
      } else {
        sets.push_back(g);
      }
    }
    RepackSets(tmpl, sets, mobility, dissolved, added);
  }
  if (added.empty() && std::find(dissolved.begin(), dissolved.end(), 1) == dissolved.end()) return;
  std::vector<ClaimState> claims;
  claims.reserve(claims_.size() + added.size());
  for (size_t k = 0; k < claims_.size(); ++k) {
    if (!dissolved[k]) claims.push_back(std::move(claims_[k]));
  }
  for (auto& c : added) claims.push_back(std::move(c));
  claims_ = std::move(claims);
}

const PricedTypes& Solver::RepackTypes(int tmpl, const scheduling::Requirements& reqs) {
  // Whether a type suits `reqs`, and its price, depend only on the keys types and offerings
  // define (as in FilterOptions).
  std::string key = std::to_string(tmpl) + "\n";
  for (const auto& r : reqs) {
    if (type_keys_.count(r.key()) > 0) AppendCanonical(r, key);
  }
  auto [it, inserted] = repack_types_.try_emplace(std::move(key));
  PricedTypes& out = it->second;
  if (!inserted) return out;
  const Template& tm = templates_[tmpl];
  for (int i : tm.types) {
    const cloud::InstanceType& type = *types_[i].type;
    if (!type.requirements.IntersectsWith(reqs) || !HasCompatibleOffering(type, reqs, allow_)) continue;
    const double price = CheapestPrice(type, reqs, allow_);
    ResourceVector cap = types_[i].allocatable;
    SubtractFrom(cap, tm.daemon);
    if (!(price < std::numeric_limits<double>::infinity()) ||
        std::any_of(cap.begin(), cap.end(), [](int64_t v) { return v < 0; })) {
      continue;
    }
    out.ids.push_back(i);
    out.prices.push_back(price);
    out.capacities.push_back(std::move(cap));
  }
  return out;
}

void Solver::RepackSets(int tmpl, const std::vector<RepackSet>& sets, const std::vector<Mobility>& mobility,
                        std::vector<uint8_t>& dissolved, std::vector<ClaimState>& added) {
  Template& tm = templates_[tmpl];
  constexpr double kInf = std::numeric_limits<double>::infinity();
  // The types of every set.
  std::vector<int> type_id;  // per RepackType: index into types_
  std::vector<RepackType> types;
  std::vector<std::vector<double>> price_of(sets.size(), std::vector<double>(types_.size(), kInf));
  std::vector<std::vector<int>> entries_of(sets.size());  // per set: its RepackTypes
  for (size_t s = 0; s < sets.size(); ++s) {
    const PricedTypes& priced = RepackTypes(tmpl, sets[s].requirements);
    for (size_t j = 0; j < priced.ids.size(); ++j) {
      price_of[s][priced.ids[j]] = priced.prices[j];
      entries_of[s].push_back(static_cast<int>(types.size()));
      type_id.push_back(priced.ids[j]);
      types.push_back(RepackType{priced.capacities[j], priced.prices[j], static_cast<int>(s)});
    }
  }
  if (types.empty()) return;
  // Movable pods by request and how far they may move; the rest pins its NodeClaim.
  std::map<std::pair<ResourceVector, int>, int> class_of;  // (request, set or -1 for any)
  std::vector<RepackClass> classes;
  std::vector<std::vector<int>> class_pods;
  std::vector<int> pinned_claims, pinned_sets;
  std::vector<std::vector<RepackClass>> pinned;
  std::vector<std::vector<int>> pinned_pods;
  double old_price = 0;
  double pinned_work = 0;
  for (size_t s = 0; s < sets.size(); ++s) {
    for (int k : sets[s].claims) {
      const ClaimState& c = claims_[k];
      double cheapest = kInf;
      for (int t : c.options) cheapest = std::min(cheapest, price_of[s][t]);
      old_price += cheapest;
      std::vector<RepackClass> kept;
      std::vector<int> kept_pods;
      for (int p : c.pods) {
        if (mobility[p] == Mobility::kPinned) {
          kept.push_back(RepackClass{pods_[p].info.requests, 1});
          kept_pods.push_back(p);
          continue;
        }
        const int held_to = mobility[p] == Mobility::kWithinPool ? -1 : static_cast<int>(s);
        auto [it, inserted] =
            class_of.emplace(std::make_pair(pods_[p].info.requests, held_to), static_cast<int>(classes.size()));
        if (inserted) {
          classes.push_back(RepackClass{pods_[p].info.requests, 0});
          if (held_to >= 0) classes.back().sets = {held_to};
          class_pods.emplace_back();
        }
        classes[it->second].count++;
        class_pods[it->second].push_back(p);
      }
      if (!kept.empty()) {
        pinned_claims.push_back(k);
        pinned_sets.push_back(static_cast<int>(s));
        pinned.push_back(std::move(kept));
        pinned_pods.push_back(std::move(kept_pods));
        pinned_work += static_cast<double>(entries_of[s].size());
      }
    }
  }
  if (classes.empty() || !(old_price < kInf)) return;
  if (pinned_work * static_cast<double>(classes.size()) > kMaxPinnedWork) return;
  // Each pod's value: its shadow price in the LP over the types it may go to. A type priced
  // alike in several sets is one bin of the LP.
  LowerBoundProblem lp;
  std::map<std::pair<int, double>, int> bin_of;  // (type, price) -> LP bin
  std::vector<int> bin_of_entry(types.size());
  for (size_t e = 0; e < types.size(); ++e) {
    auto [it, inserted] = bin_of.emplace(std::make_pair(type_id[e], types[e].price), static_cast<int>(lp.bins.size()));
    if (inserted) {
      lp.bins.push_back(LowerBoundBin{types[e].price, false,
                                      std::vector<double>(types[e].capacity.begin(), types[e].capacity.end())});
    }
    bin_of_entry[e] = it->second;
  }
  auto bins_of_set = [&](int set) {
    std::vector<int> bins;
    if (set < 0) {
      bins.resize(lp.bins.size());
      std::iota(bins.begin(), bins.end(), 0);
    } else {
      for (int e : entries_of[set]) bins.push_back(bin_of_entry[e]);
    }
    return bins;
  };
  std::vector<std::vector<int>> set_bins;
  for (size_t s = 0; s < sets.size(); ++s) set_bins.push_back(bins_of_set(static_cast<int>(s)));
  const std::vector<int> all_bins = bins_of_set(-1);
  auto add_class = [&](const RepackClass& c, int set) {
    lp.classes.push_back(LowerBoundClass{c.count, std::vector<double>(c.request.begin(), c.request.end()),
                                         set < 0 ? all_bins : set_bins[set]});
  };
  for (const auto& c : classes) add_class(c, c.sets.empty() ? -1 : c.sets[0]);
  for (size_t j = 0; j < pinned.size(); ++j) {
    for (const auto& c : pinned[j]) add_class(c, pinned_sets[j]);
  }
  std::vector<double> prices = ClassPrices(lp);
  double floor = 0;  // what every packing of the group's pods pays at least
  if (!prices.empty()) {
    size_t i = 0;
    for (auto& c : classes) c.value = prices[i++];
    for (auto& kept : pinned) {
      for (auto& c : kept) c.value = prices[i++];
    }
    for (size_t k = 0; k < lp.classes.size(); ++k) floor += static_cast<double>(lp.classes[k].count) * prices[k];
  }
  RepackPlan plan = Repack(types, classes, pinned, pinned_sets, floor * (1 - 1e-9));
  if (!plan.ok || !(plan.price < old_price - 1e-9 * std::max(1.0, old_price))) return;

  // The new NodeClaims and their options (every type of their set that holds them, as TryClaim
  // keeps).
  std::vector<size_t> cursor(classes.size(), 0);
  auto build = [&](ClaimState& c, int set, const RepackBin& bin, std::vector<int> pods) {
    for (size_t cl = 0; cl < classes.size(); ++cl) {
      for (int64_t n = 0; n < bin.counts[cl]; ++n) pods.push_back(class_pods[cl][cursor[cl]++]);
    }
    c.pods = std::move(pods);
    c.requests = tm.daemon;
    for (int p : c.pods) AddTo(c.requests, pods_[p].info.requests);
    c.options.clear();
    for (int e : entries_of[set]) {
      if (Fits(c.requests, types_[type_id[e]].allocatable)) c.options.push_back(type_id[e]);
    }
    SetMaxAllocatable(c);
  };
  std::vector<ClaimState> rebuilt(pinned_claims.size());
  for (size_t j = 0; j < pinned_claims.size(); ++j) {
    rebuilt[j] = claims_[pinned_claims[j]];
    build(rebuilt[j], pinned_sets[j], plan.pinned[j], pinned_pods[j]);
  }
  std::vector<ClaimState> fresh(plan.new_bins.size());
  for (size_t j = 0; j < plan.new_bins.size(); ++j) {
    const int set = types[plan.new_bins[j].type].set;
    fresh[j].tmpl = tmpl;
    fresh[j].requirements = sets[set].requirements;
    build(fresh[j], set, plan.new_bins[j], {});
  }
  // NodePool limits: the largest option of every NodeClaim counts against them (as at
  // creation); the capacity given back is at most what was taken, so this errs safe.
  if (tm.has_limits) {
    ResourceVector remaining = tm.remaining;
    auto max_capacity = [&](const ClaimState& c) {
      ResourceVector m = index_.Zero();
      for (int i : c.options) MaxInto(m, types_[i].capacity);
      return m;
    };
    // Only limited resources are counted: kUnlimited stays as it is (and cannot overflow).
    auto change = [&](const ClaimState& c, int64_t sign) {
      const ResourceVector m = max_capacity(c);
      for (int r = 0; r < index_.size(); ++r) {
        if (tm.remaining[r] != kUnlimited) remaining[r] += sign * m[r];
      }
    };
    for (const RepackSet& s : sets) {
      for (int k : s.claims) change(claims_[k], +1);
    }
    for (const auto& c : rebuilt) change(c, -1);
    for (const auto& c : fresh) change(c, -1);
    for (int r = 0; r < index_.size(); ++r) {
      if (tm.remaining[r] != kUnlimited && remaining[r] < 0) return;
    }
    for (int r = 0; r < index_.size(); ++r) {
      if (tm.remaining[r] != kUnlimited) tm.remaining[r] = remaining[r];
    }
  }
  for (size_t j = 0; j < pinned_claims.size(); ++j) claims_[pinned_claims[j]] = std::move(rebuilt[j]);
  std::vector<uint8_t> is_pinned(claims_.size(), 0);
  for (int k : pinned_claims) is_pinned[k] = 1;
  for (const RepackSet& s : sets) {
    for (int k : s.claims) {
      if (!is_pinned[k]) dissolved[k] = 1;
    }
  }
  for (auto& c : fresh) added.push_back(std::move(c));
}

void Solver::Finalize(Results& out) {
  std::unordered_set<std::string> names;  // only asked whether a name is taken
  // Cheapest compatible offering per type, per distinct requirements: thousands of claims
  // usually share a handful of requirement sets (NodePool, zone, capacity type).
  // The launch offering is cached alike (nullptr with known = 1: none compatible).
  struct Priced {
    std::vector<double> prices;
    std::vector<const cloud::Offering*> offering;
    std::vector<uint8_t> known;
    std::vector<int> order;  // every type, cheapest first (ties: name); built on first need
  };
  std::vector<uint8_t> is_option(types_.size(), 0);
  std::unordered_map<std::string, Priced> prices_by_reqs;
  std::unordered_map<const cloud::InstanceType*, int> index_of;
  for (size_t t = 0; t < types_.size(); ++t) index_of.emplace(types_[t].type, static_cast<int>(t));
  // The labels a launch type's own requirements fix, per type (read for every NodeClaim).
  std::vector<std::optional<api::Labels>> type_labels(types_.size());
  out.new_node_claims.reserve(claims_.size());
  for (ClaimState& c : claims_) {
    const Template& tm = templates_[c.tmpl];
    // Moved: nothing reads the claim's requirements after this.
    scheduling::Requirements reqs = std::move(c.requirements);
    reqs.Remove(scheduling::kLabelHostname);
    Priced& cache = prices_by_reqs[CanonicalKey(reqs)];
    std::vector<double>& prices = cache.prices;
    if (prices.empty()) {
      prices.assign(types_.size(), std::numeric_limits<double>::quiet_NaN());
      cache.offering.assign(types_.size(), nullptr);
      cache.known.assign(types_.size(), 0);
    }
    std::vector<std::pair<double, const cloud::InstanceType*>> priced;
    priced.reserve(c.options.size());
    // Long option lists are handed over already in OrderAndTruncate's order (read off the
    // requirement set's order of every type), which spares a sort per NodeClaim.
    constexpr size_t kPresortFrom = 64;
    if (c.options.size() >= kPresortFrom) {
      if (cache.order.empty()) {
        for (size_t t = 0; t < types_.size(); ++t) {
          if (std::isnan(prices[t])) prices[t] = CheapestPrice(*types_[t].type, reqs, allow_);
        }
        cache.order.resize(types_.size());
        for (size_t t = 0; t < types_.size(); ++t) cache.order[t] = static_cast<int>(t);
        std::sort(cache.order.begin(), cache.order.end(), [&](int a, int b) {
          if (prices[a] != prices[b]) return prices[a] < prices[b];
          if (types_[a].type->name != types_[b].type->name) {
            return types_[a].type->name < types_[b].type->name;
          }
          return a < b;
        });
      }
      for (int t : c.options) is_option[t] = 1;
      for (int t : cache.order) {
        if (is_option[t]) priced.emplace_back(prices[t], types_[t].type);
      }
      for (int t : c.options) is_option[t] = 0;
      // Without minValues OrderAndTruncate keeps the cheapest kMaxInstanceTypes of an ordered
      // list: cut here, so it does not walk the rest.
      if (!reqs.HasMinValues() && priced.size() > kMaxInstanceTypes) priced.resize(kMaxInstanceTypes);
    } else {
      for (int t : c.options) {
        if (std::isnan(prices[t])) prices[t] = CheapestPrice(*types_[t].type, reqs, allow_);
        priced.emplace_back(prices[t], types_[t].type);
      }
    }
    std::vector<MinValuesShortfall> shortfalls;
    std::vector<const cloud::InstanceType*> its =
        OrderAndTruncate(std::move(priced), reqs, kMaxInstanceTypes, &shortfalls);
    if (!shortfalls.empty()) {
      if (!opts_.min_values_best_effort) {
        const auto& f = shortfalls.front();
        for (int p : c.pods) {
          pods_[p].placed = false;
          pods_[p].error = "incompatible with nodepool " + tm.name +
                           ": minValues requirement not met for " + f.key + " among the " +
                           std::to_string(kMaxInstanceTypes) + " cheapest instance types: " +
                           std::to_string(f.available) + " value(s), " +
                           std::to_string(f.required) + " required";
        }
        continue;
      }
      for (const auto& f : shortfalls) {
        scheduling::Requirement r = *reqs.Find(f.key);
        r.set_min_values(f.available > 0 ? std::optional<int>(f.available) : std::nullopt);
        reqs.Remove(f.key);
        reqs.Add(r);
      }
    }
    NewNodeClaim n;
    n.node_pool = tm.name;
    const cloud::InstanceType* launch_type = nullptr;
    const cloud::Offering* launch = nullptr;
    for (const auto* it : its) {
      n.instance_type_options.push_back(it->name);
      // Cached only while `reqs` is the text the cache is keyed by (minValues untouched).
      const cloud::Offering* o = nullptr;
      auto idx = shortfalls.empty() ? index_of.find(it) : index_of.end();
      if (idx != index_of.end()) {
        if (!cache.known[idx->second]) {
          cache.offering[idx->second] = it->CheapestOffering(reqs);
          cache.known[idx->second] = 1;
        }
        o = cache.offering[idx->second];
      } else {
        o = it->CheapestOffering(reqs);
      }
      if (o == nullptr) continue;
      if (launch == nullptr || o->price < launch->price ||
          (o->price == launch->price && it->name < launch_type->name)) {
        launch = o;
        launch_type = it;
      }
    }
    n.labels = tm.pool->template_.labels;
    n.labels[scheduling::kLabelNodePool] = tm.name;
    for (const auto& [k, v] : reqs.SingleValuedLabels()) n.labels[k] = v;
    if (launch != nullptr) {
      n.launch = Launch{launch_type->name, launch->zone, launch->capacity_type, launch->price};
      auto idx = index_of.find(launch_type);
      if (idx != index_of.end()) {
        std::optional<api::Labels>& labels = type_labels[idx->second];
        if (!labels) labels = launch_type->requirements.SingleValuedLabels();
        for (const auto& [k, v] : *labels) n.labels[k] = v;
      } else {
        for (const auto& [k, v] : launch_type->requirements.SingleValuedLabels()) n.labels[k] = v;
      }
      n.labels[scheduling::kLabelTopologyZone] = launch->zone;
      n.labels[scheduling::kLabelCapacityType] = launch->capacity_type;
    }
    n.taints = tm.taints;
    n.requests = tm.daemon_list;
    n.pods.reserve(c.pods.size());
    // Pods sharing a request list tend to sit together: each run is added in one step.
    for (size_t i = 0; i < c.pods.size();) {
      const api::ResourceList* list = pods_[c.pods[i]].info.request_list.get();
      size_t j = i + 1;
      while (j < c.pods.size() && pods_[c.pods[j]].info.request_list.get() == list) ++j;
      n.requests.AddTimes(*list, static_cast<int64_t>(j - i));
      i = j;
    }
    for (int p : c.pods) {
      // Moved: a pod is on one NodeClaim, and nothing reads its key after this (unschedulable
      // pods, the only later readers, are on none).
      n.pods.push_back(std::move(pods_[p].info.key));
    }
    for (const char* r : {api::kResourceCpu, api::kResourceMemory, api::kResourcePods}) {
      if (!n.requests.Has(r)) n.requests.Set(r, api::Quantity());
    }
    uint64_t salt = 0;
    do {
      n.name = NodeClaimName(tm.name, n.pods, salt++);
    } while (!names.insert(n.name).second);
    n.requirements = std::move(reqs);
    out.price_per_hour += n.launch.price_per_hour;
    out.new_node_claims.push_back(std::move(n));
  }
  for (const auto& ex : existing_) {
    if (ex.pods.empty()) continue;
    ExistingNodePlacement e{ex.in->name, ex.in->in_flight, {}};
    for (int p : ex.pods) e.pods.push_back(std::move(pods_[p].info.key));  // as above
    out.existing_nodes.push_back(std::move(e));
  }
  for (const auto& ps : pods_) {
    if (ps.placed) {
      out.scheduled++;
    } else {
      out.unschedulable.push_back(UnschedulablePod{ps.info.key, ps.error});
    }
  }
}

core::Result<Results> Solver::Run() {
  BuildIndex();
  BuildTypes();
  BuildTemplates();
  BuildExisting();
  BuildPods();
  NS_RETURN_IF_ERROR(BuildTopology());
  std::vector<const api::NodePool*> pools;
  for (const auto& np : s_.node_pools) pools.push_back(&np);
  preferences_ = std::make_unique<Preferences>(ToleratePreferNoSchedule(pools));

  std::vector<QueueKey> keys;
  keys.reserve(pods_.size());
  for (const auto& ps : pods_) {
    keys.push_back(QueueKey{ps.info.requests[ResourceIndex::kCpu],
                            ps.info.requests[ResourceIndex::kMemory],
                            ps.pod->metadata.creation_timestamp ? ps.pod->metadata.creation_timestamp->unix_nanos : 0,
                            ps.pod->metadata.uid});
  }
  Queue queue(keys);
  for (int p = queue.Pop(); p >= 0; p = queue.Pop()) {
    PodState& ps = pods_[p];
    if (ps.fatal) continue;  // nothing to retry: the input itself is wrong for this pod
    if (Place(p)) {
      ps.placed = true;
      ps.error.clear();
      continue;
    }
    bool relaxed = preferences_->Relax(ps.Mutable()).has_value();
    if (relaxed) {
      if (topology_) {
        core::Status st = topology_->Update(*ps.pod);
        ++topology_epoch_;
        (void)st;  // a pod whose constraints cannot be re-derived keeps its old groups
        RefreshTopology(p);
      }
      Refresh(p);
    }
    queue.Push(p, relaxed);
  }

  if (opts_.repack) RepackClaims();
  Results out;
  out.pending_pods = static_cast<int>(pods_.size());
  Finalize(out);
  if (opts_.compute_lower_bound) {
    std::vector<int> scheduled;
    for (size_t p = 0; p < pods_.size(); ++p) {
      if (pods_[p].placed) scheduled.push_back(static_cast<int>(p));
    }
    out.lower_bound_per_hour = ComputeLowerBound(scheduled);
  }
  return out;
}

}  // namespace

core::Result<Results> Solve(const Snapshot& snapshot, const SchedulerOptions& options) {
  Solver solver(snapshot, options);
  return solver.Run();
}

}  // namespace nodesmith::solver
