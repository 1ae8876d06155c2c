// Node affinity matching as kube-scheduler does it (k8s.io/component-helpers
// scheduling/corev1/nodeaffinity): a pod's spec.nodeSelector and its required node affinity
// against a node's labels and name, and the score of its preferred terms.
//
// Rules (as upstream):
//   - NodeSelector terms are ORed; inside a term matchExpressions and matchFields are ANDed.
//   - An empty term list, or a term with neither expressions nor fields, matches nothing.
//   - Operators In, NotIn, Exists, DoesNotExist, Gt, Lt; Gt/Lt compare base-10 integers.
//   - A term with an invalid expression (bad key, value, operator or value count) never
//     matches; the reason is kept for messages (errors()).
//   - matchFields supports In/NotIn with exactly one value; only metadata.name is a field,
//     and fields are ignored when the node has no name.
// Compiled objects are immutable values; compile once per pod, match per node.
#pragma once

#include <cstdint>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

#include "api/meta.h"
#include "api/node.h"
#include "api/pod.h"
#include "api/selector.h"
#include "core/status.h"
#include "scheduling/label_selector.h"

namespace nodesmith::scheduling {

// One compiled NodeSelectorTerm.
class NodeSelectorTermMatcher {
 public:
  explicit NodeSelectorTermMatcher(const api::NodeSelectorTerm& term);
  // False when the term is invalid (see error()).
  bool Matches(const api::Labels& labels, std::string_view node_name) const;
  // "" when the term is valid, else every problem, "; "-joined.
  const std::string& error() const { return error_; }
  bool empty() const { return empty_; }

 private:
  bool empty_ = false;
  std::optional<Selector> labels_;  // set when the term has matchExpressions
  struct FieldClause {
    std::string key;
    std::string value;
    bool equal;  // In: field == value; NotIn: field != value
  };
  std::vector<FieldClause> fields_;
  bool has_fields_ = false;
  std::string error_;
};

// A compiled required NodeSelector (LazyErrorNodeSelector upstream).
class NodeSelectorMatcher {
 public:
  explicit NodeSelectorMatcher(const api::NodeSelector& selector);
  bool Matches(const api::Labels& labels, std::string_view node_name) const;
  // Problems of invalid terms (which never match), "; "-joined; "" when all are valid.
  std::string errors() const;

 private:
  std::vector<NodeSelectorTermMatcher> terms_;  // empty terms dropped
};

// A pod's spec.nodeSelector AND its required node affinity (both must hold; either may be
// absent). GetRequiredNodeAffinity upstream.
class RequiredNodeAffinity {
 public:
  explicit RequiredNodeAffinity(const api::Pod& pod);
  bool Matches(const api::Labels& labels, std::string_view node_name) const;
  bool Matches(const api::Node& node) const {
    return Matches(node.metadata.labels, node.metadata.name);
  }
  // Why the affinity part can never match (invalid terms), "" otherwise.
  std::string errors() const { return affinity_ ? affinity_->errors() : std::string(); }

 private:
  api::Labels node_selector_;
  std::optional<NodeSelectorMatcher> affinity_;
};

// The pod's preferred node-affinity terms; Score is the sum of the weights of the terms the
// node matches. Terms with weight 0 or nothing in them are ignored.
class PreferredSchedulingTerms {
 public:
  // Fails when a term is invalid (upstream reports it rather than ignoring it).
  static core::Result<PreferredSchedulingTerms> Compile(
      const std::vector<api::PreferredSchedulingTerm>& terms);
  int64_t Score(const api::Labels& labels, std::string_view node_name) const;

 private:
  std::vector<std::pair<NodeSelectorTermMatcher, int>> terms_;
};

// Convenience: RequiredNodeAffinity(pod).Matches(node).
bool PodMatchesNodeSelectorAndAffinityTerms(const api::Pod& pod, const api::Node& node);

}  // namespace nodesmith::scheduling
