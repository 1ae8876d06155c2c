// Solver::Finalize (solver_state.h): the Results of a solve, each NodeClaim with its instance
// types ordered and cut, its launch offering, labels, requests and name.
#include <algorithm>
#include <cmath>
#include <cstdint>
#include <limits>
#include <optional>
#include <string>
#include <unordered_map>
#include <unordered_set>
#include <utility>
#include <vector>

#include "api/resource_list.h"
#include "scheduling/well_known_labels.h"
#include "solver/instance_type_filter.h"
#include "solver/nodeclaim_name.h"
#include "solver/solver_state.h"

namespace nodesmith::solver::internal {
namespace {

// What a NodeClaim asks for beyond its pods: the least DaemonSet overhead among its options'
// groups (Karpenter's addDaemonRequests), since any of them may launch.
api::ResourceList MinDaemonOverhead(const Template& tm, const std::vector<int>& options) {
  std::vector<uint8_t> seen(tm.daemon_groups.size(), 0);
  std::optional<api::ResourceList> least;
  for (int t : options) {
    const int g = tm.daemon_group[t];
    if (g < 0 || seen[g]) continue;
    seen[g] = 1;
    const api::ResourceList& overhead = tm.daemon_groups[g].overhead;
    if (!least) {
      least = overhead;
      continue;
    }
    // Entry-wise minimum; a resource some group does not ask for is not asked for (as
    // Karpenter's resources.MinResources).
    api::ResourceList min;
    for (const auto& [name, q] : least->items()) {
      if (!overhead.Has(name)) continue;
      const api::Quantity other = overhead.Get(name);
      min.Set(name, other.Cmp(q) < 0 ? other : q);
    }
    least = std::move(min);
  }
  return least.value_or(api::ResourceList());
}

}  // namespace

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
      RelaxMinValues(shortfalls, reqs);
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
    n.requests = MinDaemonOverhead(tm, c.options);
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

}  // namespace nodesmith::solver::internal
