// Selection vocabulary shared by pods, nodes and Karpenter objects: label selectors, node
// selector terms, taints and tolerations. Value types only; matching lives in scheduling/.
#pragma once

#include <optional>
#include <string>
#include <vector>

#include "api/meta.h"

namespace nodesmith::api {

// metav1.LabelSelectorRequirement: operator In, NotIn, Exists, DoesNotExist.
struct LabelSelectorRequirement {
  std::string key;
  std::string op;
  std::vector<std::string> values;
};

// metav1.LabelSelector. An absent selector (std::optional empty at the use site) selects nothing;
// an empty one selects everything.
struct LabelSelector {
  Labels match_labels;
  std::vector<LabelSelectorRequirement> match_expressions;
};

// core/v1 NodeSelectorRequirement: operators In, NotIn, Exists, DoesNotExist, Gt, Lt
// (Karpenter adds Gte, Lte). `min_values` is Karpenter's NodePool extension.
struct NodeSelectorRequirement {
  std::string key;
  std::string op;
  std::vector<std::string> values;
  std::optional<int> min_values;
  bool operator==(const NodeSelectorRequirement&) const = default;
};

// Expressions within a term are ANDed.
struct NodeSelectorTerm {
  std::vector<NodeSelectorRequirement> match_expressions;
  std::vector<NodeSelectorRequirement> match_fields;  // only metadata.name is meaningful
};

// Terms are ORed. An empty list matches nothing.
struct NodeSelector {
  std::vector<NodeSelectorTerm> node_selector_terms;
};

struct PreferredSchedulingTerm {
  int weight = 0;  // 1..100
  NodeSelectorTerm preference;
};

// Effects: NoSchedule, PreferNoSchedule, NoExecute.
struct Taint {
  std::string key;
  std::string value;
  std::string effect;
  bool operator==(const Taint&) const = default;
};

// Operators: Equal (default when empty), Exists (Lt/Gt behind a feature gate upstream).
struct Toleration {
  std::string key;
  std::string op;
  std::string value;
  std::string effect;  // empty matches every effect
  std::optional<int64_t> toleration_seconds;
};

}  // namespace nodesmith::api
