#include "scheduling/node_selector.h"

namespace nodesmith::scheduling {

namespace {

constexpr const char* kFieldMetadataName = "metadata.name";

void AppendError(std::string& errors, const std::string& e) {
  if (!errors.empty()) errors += "; ";
  errors += e;
}

std::optional<SelectorOp> LabelOperator(const std::string& op) {
  if (op == "In") return SelectorOp::kIn;
  if (op == "NotIn") return SelectorOp::kNotIn;
  if (op == "Exists") return SelectorOp::kExists;
  if (op == "DoesNotExist") return SelectorOp::kDoesNotExist;
  if (op == "Gt") return SelectorOp::kGreaterThan;
  if (op == "Lt") return SelectorOp::kLessThan;
  return std::nullopt;
}

}  // namespace

NodeSelectorTermMatcher::NodeSelectorTermMatcher(const api::NodeSelectorTerm& term) {
  empty_ = term.match_expressions.empty() && term.match_fields.empty();
  if (!term.match_expressions.empty()) {
    Selector selector = Selector::Everything();
    for (size_t i = 0; i < term.match_expressions.size(); ++i) {
      const api::NodeSelectorRequirement& e = term.match_expressions[i];
      std::string where = "matchExpressions[" + std::to_string(i) + "]";
      std::optional<SelectorOp> op = LabelOperator(e.op);
      if (!op) {
        AppendError(error_, where + ".operator: Unsupported value: \"" + e.op + "\"");
        continue;
      }
      core::Result<LabelRequirement> r = LabelRequirement::Make(e.key, *op, e.values);
      if (!r.ok()) {
        AppendError(error_, where + "." + r.status().message());
        continue;
      }
      selector.Add(std::move(r).value());
    }
    labels_ = std::move(selector);
  }
  if (!term.match_fields.empty()) {
    has_fields_ = true;
    for (size_t i = 0; i < term.match_fields.size(); ++i) {
      const api::NodeSelectorRequirement& f = term.match_fields[i];
      std::string where = "matchFields[" + std::to_string(i) + "]";
      if (f.op != "In" && f.op != "NotIn") {
        AppendError(error_, where + ".operator: Unsupported value: \"" + f.op +
                                "\": supported values: \"In\", \"NotIn\"");
        continue;
      }
      if (f.values.size() != 1) {
        AppendError(error_, where + ".values: Invalid value: must have one element");
        continue;
      }
      fields_.push_back({f.key, f.values[0], f.op == "In"});
    }
  }
}

bool NodeSelectorTermMatcher::Matches(const api::Labels& labels,
                                      std::string_view node_name) const {
  if (empty_ || !error_.empty()) return false;
  if (labels_ && !labels_->Matches(labels)) return false;
  // The node's field set holds metadata.name only when the node has a name; with no fields,
  // upstream skips the field clauses entirely.
  if (has_fields_ && !node_name.empty()) {
    for (const FieldClause& f : fields_) {
      std::string_view actual = f.key == kFieldMetadataName ? node_name : std::string_view();
      if ((actual == f.value) != f.equal) return false;
    }
  }
  return true;
}

NodeSelectorMatcher::NodeSelectorMatcher(const api::NodeSelector& selector) {
  for (const api::NodeSelectorTerm& term : selector.node_selector_terms) {
    NodeSelectorTermMatcher m(term);
    if (!m.empty()) terms_.push_back(std::move(m));  // an empty term selects nothing
  }
}

bool NodeSelectorMatcher::Matches(const api::Labels& labels, std::string_view node_name) const {
  for (const NodeSelectorTermMatcher& t : terms_) {
    if (t.Matches(labels, node_name)) return true;
  }
  return false;
}

std::string NodeSelectorMatcher::errors() const {
  std::string out;
  for (const NodeSelectorTermMatcher& t : terms_) {
    if (!t.error().empty()) AppendError(out, t.error());
  }
  return out;
}

RequiredNodeAffinity::RequiredNodeAffinity(const api::Pod& pod)
    : node_selector_(pod.spec.node_selector) {
  if (pod.spec.affinity && pod.spec.affinity->node_affinity &&
      pod.spec.affinity->node_affinity->required) {
    affinity_.emplace(*pod.spec.affinity->node_affinity->required);
  }
}

bool RequiredNodeAffinity::Matches(const api::Labels& labels, std::string_view node_name) const {
  for (const auto& [key, value] : node_selector_) {
    auto it = labels.find(key);
    if (it == labels.end() || it->second != value) return false;
  }
  return !affinity_ || affinity_->Matches(labels, node_name);
}

core::Result<PreferredSchedulingTerms> PreferredSchedulingTerms::Compile(
    const std::vector<api::PreferredSchedulingTerm>& terms) {
  PreferredSchedulingTerms out;
  std::string errors;
  for (const api::PreferredSchedulingTerm& term : terms) {
    NodeSelectorTermMatcher m(term.preference);
    if (term.weight == 0 || m.empty()) continue;
    if (!m.error().empty()) {
      AppendError(errors, m.error());
      continue;
    }
    out.terms_.emplace_back(std::move(m), term.weight);
  }
  if (!errors.empty()) return core::Status::Invalid(errors);
  return out;
}

int64_t PreferredSchedulingTerms::Score(const api::Labels& labels,
                                        std::string_view node_name) const {
  int64_t score = 0;
  for (const auto& [term, weight] : terms_) {
    if (term.Matches(labels, node_name)) score += weight;
  }
  return score;
}

bool PodMatchesNodeSelectorAndAffinityTerms(const api::Pod& pod, const api::Node& node) {
  return RequiredNodeAffinity(pod).Matches(node);
}

}  // namespace nodesmith::scheduling
