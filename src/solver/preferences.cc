#include "solver/preferences.h"

#include <algorithm>
#include <nlohmann/json.hpp>
#include <utility>

namespace nodesmith::solver {
namespace {

// Compact JSON in the API's field names, so a relaxation message reads like the pod spec.
nlohmann::ordered_json ToJson(const std::vector<std::string>& values) {
  nlohmann::ordered_json out = nlohmann::ordered_json::array();
  for (const auto& v : values) out.push_back(v);
  return out;
}

nlohmann::ordered_json ToJson(const api::LabelSelector& s) {
  nlohmann::ordered_json out = nlohmann::ordered_json::object();
  if (!s.match_labels.empty()) {
    nlohmann::ordered_json labels = nlohmann::ordered_json::object();
    for (const auto& [k, v] : s.match_labels) labels[k] = v;
    out["matchLabels"] = labels;
  }
  if (!s.match_expressions.empty()) {
    nlohmann::ordered_json exprs = nlohmann::ordered_json::array();
    for (const auto& e : s.match_expressions) {
      nlohmann::ordered_json j = {{"key", e.key}, {"operator", e.op}};
      if (!e.values.empty()) j["values"] = ToJson(e.values);
      exprs.push_back(j);
    }
    out["matchExpressions"] = exprs;
  }
  return out;
}

nlohmann::ordered_json ToJson(const api::NodeSelectorTerm& t) {
  nlohmann::ordered_json out = nlohmann::ordered_json::object();
  auto reqs = [](const std::vector<api::NodeSelectorRequirement>& rs) {
    nlohmann::ordered_json arr = nlohmann::ordered_json::array();
    for (const auto& r : rs) {
      nlohmann::ordered_json j = {{"key", r.key}, {"operator", r.op}};
      if (!r.values.empty()) j["values"] = ToJson(r.values);
      arr.push_back(j);
    }
    return arr;
  };
  if (!t.match_expressions.empty()) out["matchExpressions"] = reqs(t.match_expressions);
  if (!t.match_fields.empty()) out["matchFields"] = reqs(t.match_fields);
  return out;
}

nlohmann::ordered_json ToJson(const api::PodAffinityTerm& t) {
  nlohmann::ordered_json out = nlohmann::ordered_json::object();
  if (t.label_selector) out["labelSelector"] = ToJson(*t.label_selector);
  if (!t.namespaces.empty()) out["namespaces"] = ToJson(t.namespaces);
  out["topologyKey"] = t.topology_key;
  if (t.namespace_selector) out["namespaceSelector"] = ToJson(*t.namespace_selector);
  if (!t.match_label_keys.empty()) out["matchLabelKeys"] = ToJson(t.match_label_keys);
  if (!t.mismatch_label_keys.empty()) out["mismatchLabelKeys"] = ToJson(t.mismatch_label_keys);
  return out;
}

nlohmann::ordered_json ToJson(const api::TopologySpreadConstraint& c) {
  nlohmann::ordered_json out = {{"maxSkew", c.max_skew},
                                {"topologyKey", c.topology_key},
                                {"whenUnsatisfiable", c.when_unsatisfiable}};
  if (c.label_selector) out["labelSelector"] = ToJson(*c.label_selector);
  if (c.min_domains) out["minDomains"] = *c.min_domains;
  if (!c.node_affinity_policy.empty()) out["nodeAffinityPolicy"] = c.node_affinity_policy;
  if (!c.node_taints_policy.empty()) out["nodeTaintsPolicy"] = c.node_taints_policy;
  if (!c.match_label_keys.empty()) out["matchLabelKeys"] = ToJson(c.match_label_keys);
  return out;
}

// Sorts heaviest first (stable, as upstream does in place) and removes the first term.
template <typename Term>
Term PopHeaviest(std::vector<Term>& terms) {
  std::stable_sort(terms.begin(), terms.end(),
                   [](const Term& a, const Term& b) { return a.weight > b.weight; });
  Term first = std::move(terms.front());
  terms.erase(terms.begin());
  return first;
}

std::optional<std::string> RemoveRequiredNodeAffinityTerm(api::Pod& pod) {
  auto& affinity = pod.spec.affinity;
  if (!affinity || !affinity->node_affinity || !affinity->node_affinity->required) {
    return std::nullopt;
  }
  auto& terms = affinity->node_affinity->required->node_selector_terms;
  // Terms are ORed; the last one cannot go, or the pod would have no required affinity at all.
  if (terms.size() <= 1) return std::nullopt;
  api::NodeSelectorTerm first = std::move(terms.front());
  terms.erase(terms.begin());
  return "removing: spec.affinity.nodeAffinity.requiredDuringSchedulingIgnoredDuringExecution[0]=" +
         ToJson(first).dump();
}

std::optional<std::string> RemovePreferredPodAffinityTerm(api::Pod& pod) {
  auto& affinity = pod.spec.affinity;
  if (!affinity || !affinity->pod_affinity || affinity->pod_affinity->preferred.empty()) {
    return std::nullopt;
  }
  api::WeightedPodAffinityTerm first = PopHeaviest(affinity->pod_affinity->preferred);
  nlohmann::ordered_json j = {{"weight", first.weight}, {"podAffinityTerm", ToJson(first.term)}};
  return "removing: spec.affinity.podAffinity.preferredDuringSchedulingIgnoredDuringExecution[0]=" +
         j.dump();
}

std::optional<std::string> RemovePreferredPodAntiAffinityTerm(api::Pod& pod) {
  auto& affinity = pod.spec.affinity;
  if (!affinity || !affinity->pod_anti_affinity || affinity->pod_anti_affinity->preferred.empty()) {
    return std::nullopt;
  }
  api::WeightedPodAffinityTerm first = PopHeaviest(affinity->pod_anti_affinity->preferred);
  nlohmann::ordered_json j = {{"weight", first.weight}, {"podAffinityTerm", ToJson(first.term)}};
  return "removing: spec.affinity.podAntiAffinity.preferredDuringSchedulingIgnoredDuringExecution"
         "[0]=" +
         j.dump();
}

std::optional<std::string> RemovePreferredNodeAffinityTerm(api::Pod& pod) {
  auto& affinity = pod.spec.affinity;
  if (!affinity || !affinity->node_affinity || affinity->node_affinity->preferred.empty()) {
    return std::nullopt;
  }
  api::PreferredSchedulingTerm first = PopHeaviest(affinity->node_affinity->preferred);
  nlohmann::ordered_json j = {{"weight", first.weight}, {"preference", ToJson(first.preference)}};
  return "removing: "
         "spec.affinity.nodeAffinity.preferredDuringSchedulingIgnoredDuringExecution[0]=" +
         j.dump();
}

std::optional<std::string> RemoveTopologySpreadScheduleAnyway(api::Pod& pod) {
  auto& constraints = pod.spec.topology_spread_constraints;
  for (size_t i = 0; i < constraints.size(); ++i) {
    if (constraints[i].when_unsatisfiable != "ScheduleAnyway") continue;
    std::string message =
        "removing: spec.topologySpreadConstraints = " + ToJson(constraints[i]).dump();
    // Upstream swaps the last constraint into the hole; keep that order.
    constraints[i] = constraints.back();
    constraints.pop_back();
    return message;
  }
  return std::nullopt;
}

std::optional<std::string> ToleratePreferNoScheduleTaints(api::Pod& pod) {
  for (const auto& t : pod.spec.tolerations) {
    // Toleration.MatchToleration: the same toleration already exists.
    if (t.key.empty() && t.op == "Exists" && t.value.empty() && t.effect == "PreferNoSchedule") {
      return std::nullopt;
    }
  }
  api::Toleration toleration;
  toleration.op = "Exists";
  toleration.effect = "PreferNoSchedule";
  pod.spec.tolerations.push_back(toleration);
  return std::string("adding: toleration for PreferNoSchedule taints");
}

}  // namespace

std::optional<std::string> Preferences::Relax(api::Pod& pod) const {
  using Relaxation = std::optional<std::string> (*)(api::Pod&);
  static constexpr Relaxation kRelaxations[] = {
      RemoveRequiredNodeAffinityTerm,     RemovePreferredPodAffinityTerm,
      RemovePreferredPodAntiAffinityTerm, RemovePreferredNodeAffinityTerm,
      RemoveTopologySpreadScheduleAnyway,
  };
  for (Relaxation relax : kRelaxations) {
    if (auto reason = relax(pod)) return reason;
  }
  if (tolerate_prefer_no_schedule_) return ToleratePreferNoScheduleTaints(pod);
  return std::nullopt;
}

bool ToleratePreferNoSchedule(const std::vector<const api::NodePool*>& node_pools) {
  for (const api::NodePool* pool : node_pools) {
    for (const auto& taint : pool->template_.spec.taints) {
      if (taint.effect == "PreferNoSchedule") return true;
    }
  }
  return false;
}

void StripPreferences(api::Pod& pod) {
  if (pod.spec.affinity) {
    auto& affinity = *pod.spec.affinity;
    if (affinity.node_affinity) affinity.node_affinity->preferred.clear();
    if (affinity.pod_affinity) affinity.pod_affinity->preferred.clear();
    if (affinity.pod_anti_affinity) affinity.pod_anti_affinity->preferred.clear();
  }
  auto& constraints = pod.spec.topology_spread_constraints;
  std::erase_if(constraints, [](const api::TopologySpreadConstraint& c) {
    return c.when_unsatisfiable == "ScheduleAnyway";
  });
}

}  // namespace nodesmith::solver
