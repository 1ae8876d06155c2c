// Solver's NodeClaims being built (solver_state.h), as Karpenter's nodeclaim.go: whether a pod
// joins one (TryClaim) or opens a new one from a NodePool (TryNewClaim), the instance types each
// keeps, and the order they are tried in.
#include <algorithm>
#include <cstdint>
#include <cstdio>
#include <limits>
#include <optional>
#include <string>
#include <utility>
#include <vector>

#include "api/resource_list.h"
#include "scheduling/well_known_labels.h"
#include "solver/instance_type_filter.h"
#include "solver/solver_state.h"

namespace nodesmith::solver::internal {
namespace {

// Fits, against a row of Solver::room_.
inline bool FitsRow(const ResourceVector& request, const int64_t* capacity) {
  const size_t n = request.size();
  for (size_t i = 0; i < n; ++i) {
    if (request[i] > capacity[i]) return false;
  }
  return true;
}

inline void MaxIntoRow(ResourceVector& acc, const int64_t* row) {
  for (size_t i = 0; i < acc.size(); ++i) acc[i] = std::max(acc[i], row[i]);
}

}  // namespace

void Solver::SetMaxAllocatable(ClaimState& c) const {
  c.max_allocatable = index_.Zero();
  const size_t n = c.max_allocatable.size();
  for (int t : c.options) {
    const int64_t* a = Room(c.tmpl, t);
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
    const int64_t* a = Room(c.tmpl, t);
    for (int r = 0; r < index_.size(); ++r) {
      if (a[r] >= c.max_allocatable[r]) return true;
    }
  }
  return false;
}

void Solver::FilterOptions(const ClaimState& c, const ResourceVector& requests,
                           const scheduling::Requirements& reqs, bool reqs_changed,
                           std::vector<int>& kept, const std::vector<uint8_t>* blocked) const {
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
    if (!FitsRow(requests, Room(c.tmpl, t))) continue;
    if (blocked != nullptr && (*blocked)[t]) continue;
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
  RelaxMinValues(shortfalls, reqs);
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
  // The types whose DaemonSets take a host port this pod needs (rare): the pod may join only if
  // the claim keeps other options.
  const std::vector<uint8_t>* blocked =
      cs.port_blocked[c.tmpl].empty() ? nullptr : &cs.port_blocked[c.tmpl];
  if (ps.info.requirements.empty() && !(topology_ && ps.topology) && blocked == nullptr) {
    // Nothing narrows: only resources can rule types out.
    const bool all_fit = !c.options.empty() &&
                         std::all_of(c.options.begin(), c.options.end(), [&](int o) {
                           return FitsRow(requests, Room(c.tmpl, o));
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
    FilterOptions(c, requests, merged, changed, kept, blocked);
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
    cs.port_blocked.resize(templates_.size());
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
  // A host port of the pod that DaemonSets take on some types rules those types out
  // (Karpenter's DaemonOverheadGroup.HostPortUsage).
  std::string port_conflict;
  if (tm.daemon_ports && !ps.info.host_ports.empty()) {
    HostPortUsage mine;
    mine.Add(ps.info.host_ports);
    for (int i : tm.types) {
      const int g = tm.daemon_group[i];
      const HostPort* conflict = mine.Conflict(tm.daemon_groups[g].host_ports);
      if (conflict == nullptr) continue;
      port_conflict = conflict->String();
      if (cs.port_blocked[t].empty()) cs.port_blocked[t].assign(types_.size(), 0);
      cs.port_blocked[t][i] = 1;
    }
  }
  bool suits_any = false;
  for (int i : tm.types) {
    const cloud::InstanceType& it = *types_[i].type;
    if (it.requirements.IntersectsWith(merged) && HasCompatibleOffering(it, merged, allow_)) {
      suits_any = true;
      if (!cs.port_blocked[t].empty() && cs.port_blocked[t][i]) continue;
      cs.tmpl_types[t].push_back(i);
    }
  }
  if (cs.tmpl_types[t].empty()) {
    if (tm.types.empty()) {
      failure = "no instance type satisfies the nodepool's requirements";
    } else if (!suits_any) {
      failure = "no instance type satisfies " + ps.info.requirements.String();
    } else {
      failure = "host port " + port_conflict + " is taken by daemonsets on every instance type";
    }
  }
  return failure;
}

std::string Solver::ResourceFailure(int p, int t, const std::vector<int>& types) const {
  const PodState& ps = pods_[p];
  std::vector<std::string> parts;
  for (int r = 0; r < index_.size(); ++r) {
    // The type with the most room for r, and the DaemonSet overhead it has on it.
    int64_t max_room = std::numeric_limits<int64_t>::min(), max_alloc = 0, overhead = 0;
    for (int i : types) {
      const int64_t room = Room(t, i)[r];
      if (room <= max_room) continue;
      max_room = room;
      max_alloc = types_[i].allocatable[r];
      overhead = max_alloc - room;
    }
    if (types.empty() || ps.info.requests[r] <= max_room) continue;
    std::string q = ps.info.request_list->Get(index_.Name(r)).String();
    std::string msg = max_alloc <= 0 ? "no instance type has " + q + " " + index_.Name(r)
                                     : "no instance type fits " + index_.Name(r) + " " + q;
    if (overhead > 0) msg += " (with daemonset overhead " + DescribeEntry(index_, r, overhead) + ")";
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

  c.requests = ps.info.requests;
  const std::vector<int>& candidates = cs.tmpl_types[t];
  ClassState::NewClaimTypes* same = narrowed ? nullptr : &cs.new_claim[t];
  if (same != nullptr && !same->known) {
    same->known = true;
    same->max_allocatable = index_.Zero();
    same->max_capacity = index_.Zero();
    for (int i : candidates) {
      if (!FitsRow(c.requests, Room(t, i))) continue;
      same->fitting.push_back(i);
      MaxIntoRow(same->max_allocatable, Room(t, i));
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
    if (!FitsRow(c.requests, Room(t, i))) continue;
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

}  // namespace nodesmith::solver::internal
