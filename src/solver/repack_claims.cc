// Solver::RepackClaims (solver_state.h): after placement, the new NodeClaims of each NodePool
// re-packed by solver/repack.h where that makes the plan cheaper.
#include <algorithm>
#include <cstdint>
#include <limits>
#include <map>
#include <numeric>
#include <string>
#include <unordered_map>
#include <utility>
#include <vector>

#include "scheduling/well_known_labels.h"
#include "solver/instance_type_filter.h"
#include "solver/lower_bound.h"
#include "solver/repack.h"
#include "solver/solver_state.h"

namespace nodesmith::solver::internal {
namespace {

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

}  // namespace

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
    ResourceVector cap = RoomVector(tmpl, i);
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
    c.requests = index_.Zero();
    for (int p : c.pods) AddTo(c.requests, pods_[p].info.requests);
    c.options.clear();
    for (int e : entries_of[set]) {
      const int type = type_id[e];
      if (Fits(c.requests, RoomVector(tmpl, type)) && !DaemonPortsConflict(tmpl, type, c.ports)) {
        c.options.push_back(type);
      }
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

}  // namespace nodesmith::solver::internal
