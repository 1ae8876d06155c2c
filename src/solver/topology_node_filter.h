// TopologyNodeFilter: which nodes take part in a topology spread constraint's counts, as
// Karpenter's topologynodefilter.go. With nodeAffinityPolicy Honor (the default) only nodes that
// match the pod's nodeSelector and one of its required node-affinity terms count; with
// nodeTaintsPolicy Honor only nodes whose taints the pod tolerates count (default Ignore).
// Affinity and anti-affinity groups use the pass-everything filter (default-constructed).
// A value type.
#pragma once

#include <string>
#include <vector>

#include "api/pod.h"
#include "api/selector.h"
#include "scheduling/requirements.h"

namespace nodesmith::solver {

class TopologyNodeFilter {
 public:
  // Passes every node.
  TopologyNodeFilter() = default;
  // The filter for a spread constraint of `pod` with the given policies.
  TopologyNodeFilter(const api::Pod& pod, bool honor_taints, bool honor_affinity);

  // True when a node with `taints` and `requirements` counts for the constraint.
  bool Matches(const std::vector<api::Taint>& taints,
               const scheduling::Requirements& requirements) const;

  bool honor_taints() const { return honor_taints_; }
  // A canonical text of the filter, for deduplicating groups.
  std::string Fingerprint() const;

 private:
  std::vector<scheduling::Requirements> requirements_;  // ORed
  std::vector<api::Toleration> tolerations_;
  bool honor_taints_ = false;
  bool honor_affinity_ = false;
};

}  // namespace nodesmith::solver
