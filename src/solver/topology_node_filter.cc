#include "solver/topology_node_filter.h"

#include "scheduling/taints.h"

namespace nodesmith::solver {

TopologyNodeFilter::TopologyNodeFilter(const api::Pod& pod, bool honor_taints, bool honor_affinity)
    : tolerations_(pod.spec.tolerations),
      honor_taints_(honor_taints),
      honor_affinity_(honor_affinity) {
  scheduling::Requirements node_selector =
      scheduling::Requirements::FromLabels(pod.spec.node_selector);
  const auto& affinity = pod.spec.affinity;
  if (!affinity || !affinity->node_affinity || !affinity->node_affinity->required) {
    requirements_.push_back(node_selector);
    return;
  }
  // The nodeSelector AND any one of the ORed required terms.
  for (const auto& term : affinity->node_affinity->required->node_selector_terms) {
    scheduling::Requirements reqs = node_selector;
    reqs.Add(scheduling::Requirements::FromNodeSelectorRequirements(term.match_expressions));
    requirements_.push_back(std::move(reqs));
  }
}

bool TopologyNodeFilter::Matches(const std::vector<api::Taint>& taints,
                                 const scheduling::Requirements& requirements) const {
  if (honor_taints_ && scheduling::FindUntoleratedTaint(tolerations_, taints) != nullptr)
    return false;
  if (!honor_affinity_ || requirements_.empty()) return true;
  for (const auto& reqs : requirements_) {
    if (requirements.IsCompatible(reqs)) return true;
  }
  return false;
}

std::string TopologyNodeFilter::Fingerprint() const {
  std::string out = honor_taints_ ? "taints:honor;" : "taints:ignore;";
  out += honor_affinity_ ? "affinity:honor;" : "affinity:ignore;";
  if (honor_affinity_) {
    for (const auto& reqs : requirements_) {
      out += "[";
      for (const auto& r : reqs) {
        out += r.key() + (r.complement() ? "!" : "=");
        for (const auto& v : r.Values()) out += v + ",";
        if (r.lower_bound()) out += ">=" + std::to_string(*r.lower_bound());
        if (r.upper_bound()) out += "<=" + std::to_string(*r.upper_bound());
        out += "&";
      }
      out += "]";
    }
  }
  if (honor_taints_) {
    for (const auto& t : tolerations_) {
      out += "{" + t.key + "|" + t.op + "|" + t.value + "|" + t.effect + "}";
    }
  }
  return out;
}

}  // namespace nodesmith::solver
