// Solver::ComputeLowerBound (solver_state.h): the pods this solve placed, the NodePools' instance
// types and the existing capacity as a solver/lower_bound.h problem, seeded with the plan's own
// NodeClaims.
#include <algorithm>
#include <cstdint>
#include <limits>
#include <map>
#include <string>
#include <utility>
#include <vector>

#include "solver/instance_type_filter.h"
#include "solver/lower_bound.h"
#include "solver/solver_state.h"

namespace nodesmith::solver::internal {
namespace {

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

}  // namespace

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
        int64_t v = Room(static_cast<int>(t), i)[r];
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

}  // namespace nodesmith::solver::internal
