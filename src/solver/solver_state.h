// Solver state: what one solve (Solve, solver/scheduler.h) works on, and the Solver that runs it.
//
// Internal to the solver: only the .cc files that define Solver's members include this header,
// and everything in it lives in nodesmith::solver::internal, no part of any API. Those files,
// one concept each (as Karpenter splits its scheduler.go, nodeclaim.go, ...):
//   scheduler.cc         Solve, Solver::Run, Place, TryExisting: the top-level flow
//   solver_setup.cc      the solve's state from the Snapshot (Build*), Refresh, topology memos
//   nodeclaim_fit.cc     pods onto NodeClaims being built: TryClaim, TryNewClaim and their parts
//   repack_claims.cc     RepackClaims: cheaper NodeClaims after placement (solver/repack.h)
//   plan_lower_bound.cc  ComputeLowerBound: the plan as a solver/lower_bound.h problem
//   finalize.cc          Finalize: the Results
//
// Invariants while pods are placed (Run's queue loop):
//   - Every ResourceVector is over index_, frozen (BuildIndex) before anything else is built.
//   - claim_order_ holds every index of claims_ once, by (pod count, index) ascending, with
//     claim_order_count_ beside it; claim_version_[k] changes whenever claims_[k].requirements do.
//   - A ClaimState's max_allocatable is the entry-wise maximum of its options' allocatable.
//   - ClassState and excluded_ cache only verdicts that hold for the rest of placement.
//   - A PodState's memo_keys, memo_ids and selecting are valid while their epoch is
//     topology_epoch_.
// RepackClaims then rebuilds claims_ without the orders, versions or caches: only Finalize and
// ComputeLowerBound follow it, and neither reads those.
#pragma once

#include <cstdint>
#include <limits>
#include <map>
#include <memory>
#include <set>
#include <string>
#include <unordered_map>
#include <utility>
#include <vector>

#include "cloud/instance_type.h"
#include "scheduling/requirements.h"
#include "solver/daemon_overhead.h"
#include "solver/host_ports.h"
#include "solver/pod_info.h"
#include "solver/preferences.h"
#include "solver/resource_vector.h"
#include "solver/results.h"
#include "solver/scheduler.h"
#include "solver/snapshot.h"
#include "solver/topology.h"

namespace nodesmith::solver::internal {

inline constexpr int64_t kUnlimited = std::numeric_limits<int64_t>::max();
inline constexpr int64_t kOneNode = 1000;  // the milli-value of one node against a `nodes` limit

// Every detail of a requirement that offering compatibility can depend on, as text.
inline void AppendCanonical(const scheduling::Requirement& r, std::string& out) {
  AppendCanonicalText(r, /*with_min_values=*/false, out);
}

inline std::string CanonicalKey(const scheduling::Requirements& reqs) {
  std::string out;
  for (const auto& r : reqs) AppendCanonical(r, out);
  return out;
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
  // DaemonSet overhead by instance type (solver/daemon_overhead.h): daemon_group[i] is the
  // group of types_[i], -1 for types not in `types`; daemon_overhead[g] is group g's overhead
  // over index_.
  std::vector<DaemonOverheadGroup> daemon_groups;
  std::vector<ResourceVector> daemon_overhead;
  std::vector<int> daemon_group;
  bool daemon_ports = false;              // some group's DaemonSets expose host ports
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
  // Its pods' requests. DaemonSet overhead depends on the instance type: it is taken out of
  // each option's room (Solver::Room) instead, as Karpenter adds it per type when it filters.
  ResourceVector requests;
  std::vector<int> options;      // type indices, still fitting everything
  ResourceVector max_allocatable;  // entry-wise max over the options' room
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
  // Per template, by type: 1 where the DaemonSets on that type expose a host port the class's
  // pods need; empty when there is no such type.
  std::vector<std::vector<uint8_t>> port_blocked;
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
  // The template's DaemonSet groups, and its rows of room_ (BuildTemplates, in template order).
  void BuildDaemonOverhead(Template& t);
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

  // The options of c that hold `requests` and suit `reqs`, in order, into `kept`; none that
  // `blocked` (ClassState::port_blocked) marks, when given.
  void FilterOptions(const ClaimState& c, const ResourceVector& requests,
                     const scheduling::Requirements& reqs, bool reqs_changed,
                     std::vector<int>& kept, const std::vector<uint8_t>* blocked = nullptr) const;
  // Whether the DaemonSets on `type` in template `tmpl` expose a host port `ports` holds.
  bool DaemonPortsConflict(int tmpl, int type, const HostPortUsage& ports) const;
  void SetMaxAllocatable(ClaimState& c) const;
  bool DropsMax(const ClaimState& c, const std::vector<int>& kept) const;
  bool EnforceMinValues(scheduling::Requirements& reqs, const std::vector<int>& types,
                        std::string* reason) const;

  const Snapshot& s_;
  SchedulerOptions opts_;
  scheduling::CompatibilityOptions allow_;
  ResourceIndex index_;
  std::vector<TypeInfo> types_;
  // What pods may use of each type on a NodeClaim of each template: its allocatable less the
  // template's DaemonSet overhead on that type (row (tmpl, t) at (tmpl * types + t) * size).
  // One array: the option loops read it for hundreds of types per attempt, and rows side by
  // side stay in cache. Entries may be negative (the DaemonSets alone do not fit).
  std::vector<int64_t> room_;
  const int64_t* Room(int tmpl, int t) const {
    return room_.data() +
           (static_cast<size_t>(tmpl) * types_.size() + static_cast<size_t>(t)) * static_cast<size_t>(index_.size());
  }
  ResourceVector RoomVector(int tmpl, int t) const {
    const int64_t* row = Room(tmpl, t);
    return ResourceVector(row, row + index_.size());
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

}  // namespace nodesmith::solver::internal
