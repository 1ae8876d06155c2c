#include "scheduling/requirements.h"

#include <algorithm>

namespace nodesmith::scheduling {

namespace {

bool IsNegative(Operator op) { return op == Operator::kNotIn || op == Operator::kDoesNotExist; }

// Upstream Intersects' rule for one key both sides define.
bool KeyIntersects(const Requirement& existing, const Requirement& incoming) {
  if (!existing.IntersectionIsEmpty(incoming)) return true;
  // Two "negative" requirements never conflict: a node without the label satisfies both.
  return IsNegative(incoming.op()) && IsNegative(existing.op());
}

// Whether a key the receiver leaves undefined may be constrained by the argument.
bool UndefinedAllowed(const Requirement& incoming, const CompatibilityOptions& options) {
  if (IsNegative(incoming.op())) return true;
  if (options.allow_undefined == nullptr) return false;
  if (options.allow_undefined == &WellKnownLabels()) return incoming.well_known();
  // Catalog-extended sets: well-known keys (the hot case, e.g. offering zones) need no lookup.
  if (incoming.well_known() && options.allow_undefined->includes_well_known()) return true;
  return options.allow_undefined->Contains(incoming.key());
}

std::string_view Suffix(std::string_view key) {
  size_t slash = key.find('/');
  return slash == std::string_view::npos ? key : key.substr(slash + 1);
}

bool EndsWith(std::string_view s, std::string_view suffix) {
  return s.size() >= suffix.size() && s.substr(s.size() - suffix.size()) == suffix;
}

// Upstream labelHint: suggests a key the user may have meant (one containing the key, or
// ending with its name part). Upstream scans hash sets in random order; here a candidate whose
// name part equals the key's wins first ("zone" -> topology.kubernetes.io/zone rather than
// topology.k8s.aws/zone-id), then the upstream rule in sorted order, so messages are stable.
std::string LabelHint(const Requirements& r, std::string_view key, const LabelKeySet* allowed) {
  std::vector<std::string_view> candidates;
  if (allowed != nullptr) candidates.assign(allowed->keys().begin(), allowed->keys().end());
  for (const Requirement& existing : r) candidates.push_back(existing.key());
  auto quote = [](std::string_view c) { return " (typo of \"" + std::string(c) + "\"?)"; };
  for (std::string_view c : candidates) {
    if (Suffix(c) == Suffix(key)) return quote(c);
  }
  for (std::string_view c : candidates) {
    if (c.find(key) != std::string_view::npos || EndsWith(c, Suffix(key))) return quote(c);
  }
  return "";
}

auto KeyLess() {
  return [](const Requirement& a, std::string_view key) { return a.key() < key; };
}

}  // namespace

CompatibilityOptions AllowUndefinedWellKnownLabels() { return {&WellKnownLabels()}; }

CompatibilityOptions AllowUndefined(const LabelKeySet& well_known) { return {&well_known}; }

Requirements::Requirements(std::vector<Requirement> requirements) {
  requirements_.reserve(requirements.size());
  for (const Requirement& r : requirements) Add(r);
}

Requirements Requirements::FromNodeSelectorRequirements(
    const std::vector<api::NodeSelectorRequirement>& requirements) {
  Requirements out;
  for (const api::NodeSelectorRequirement& r : requirements) {
    std::optional<Operator> op = ParseOperator(r.op);
    // An unknown operator admits nothing: upstream would build an unusable requirement, and
    // admission rejects it long before; failing closed keeps a typo from matching every node.
    out.Add(op ? Requirement(r.key, *op, r.values, r.min_values)
               : Requirement(r.key, Operator::kDoesNotExist));
  }
  return out;
}

Requirements Requirements::FromLabels(const api::Labels& labels) {
  Requirements out;
  out.requirements_.reserve(labels.size());
  for (const auto& [key, value] : labels) out.Add(Requirement(key, Operator::kIn, {value}));
  return out;
}

namespace {

Requirements PodRequirements(const api::Pod& pod, bool include_preferred) {
  Requirements out = Requirements::FromLabels(pod.spec.node_selector);
  if (!pod.spec.affinity || !pod.spec.affinity->node_affinity) return out;
  const api::NodeAffinity& affinity = *pod.spec.affinity->node_affinity;
  if (include_preferred && !affinity.preferred.empty()) {
    // The heaviest preference is treated as required; on equal weights the first wins, so the
    // result does not depend on a sort's stability. The solver relaxes it if unsatisfiable.
    const api::PreferredSchedulingTerm* heaviest = &affinity.preferred.front();
    for (const api::PreferredSchedulingTerm& term : affinity.preferred) {
      if (term.weight > heaviest->weight) heaviest = &term;
    }
    out.Add(Requirements::FromNodeSelectorRequirements(heaviest->preference.match_expressions));
  }
  // Only the first OR term; the solver removes terms one by one when they cannot be met.
  if (affinity.required && !affinity.required->node_selector_terms.empty()) {
    out.Add(Requirements::FromNodeSelectorRequirements(
        affinity.required->node_selector_terms.front().match_expressions));
  }
  return out;
}

}  // namespace

Requirements Requirements::FromPod(const api::Pod& pod) { return PodRequirements(pod, true); }

Requirements Requirements::FromPodStrict(const api::Pod& pod) {
  return PodRequirements(pod, false);
}

void Requirements::Add(const Requirement& r) {
  auto it = std::lower_bound(requirements_.begin(), requirements_.end(), r.key(), KeyLess());
  if (it != requirements_.end() && it->key() == r.key()) {
    it->IntersectWith(r);
  } else {
    requirements_.insert(it, r);
  }
}

void Requirements::Add(const Requirements& rs) {
  if (rs.requirements_.empty()) return;
  if (requirements_.empty()) {
    requirements_ = rs.requirements_;
    return;
  }
  // One merge of the two key-sorted vectors instead of an insertion per key.
  std::vector<Requirement> merged;
  merged.reserve(requirements_.size() + rs.requirements_.size());
  auto a = requirements_.begin();
  auto b = rs.requirements_.begin();
  while (a != requirements_.end() || b != rs.requirements_.end()) {
    if (b == rs.requirements_.end() || (a != requirements_.end() && a->key() < b->key())) {
      merged.push_back(std::move(*a++));
    } else if (a == requirements_.end() || b->key() < a->key()) {
      merged.push_back(*b++);
    } else {
      a->IntersectWith(*b++);
      merged.push_back(std::move(*a++));
    }
  }
  requirements_.swap(merged);
}

void Requirements::Remove(std::string_view key) {
  auto it = std::lower_bound(requirements_.begin(), requirements_.end(), key, KeyLess());
  if (it != requirements_.end() && it->key() == key) requirements_.erase(it);
}

const Requirement* Requirements::Find(std::string_view key) const {
  auto it = std::lower_bound(requirements_.begin(), requirements_.end(), key, KeyLess());
  if (it != requirements_.end() && it->key() == key) return &*it;
  return nullptr;
}

Requirement Requirements::Get(std::string_view key) const {
  if (const Requirement* r = Find(key)) return *r;
  return Requirement(key, Operator::kExists);
}

std::vector<std::string> Requirements::Keys() const {
  std::vector<std::string> keys;
  keys.reserve(requirements_.size());
  for (const Requirement& r : requirements_) keys.push_back(r.key());
  return keys;
}

bool Requirements::IsCompatible(const Requirements& other,
                                const CompatibilityOptions& options) const {
  // One merge over both key-sorted vectors.
  auto a = requirements_.begin();
  const auto a_end = requirements_.end();
  for (const Requirement& incoming : other.requirements_) {
    while (a != a_end && a->key() < incoming.key()) ++a;
    if (a != a_end && a->key() == incoming.key()) {
      if (!KeyIntersects(*a, incoming)) return false;
    } else if (!UndefinedAllowed(incoming, options)) {
      return false;
    }
  }
  return true;
}

core::Status Requirements::Compatible(const Requirements& other,
                                      const CompatibilityOptions& options) const {
  if (IsCompatible(other, options)) return core::Status::Ok();
  // Upstream reports the first undefined custom label alone; otherwise every conflicting key.
  for (const Requirement& incoming : other.requirements_) {
    if (!Has(incoming.key()) && !UndefinedAllowed(incoming, options)) {
      return core::Status::Invalid("label \"" + incoming.key() + "\" does not have known values" +
                                   LabelHint(*this, incoming.key(), options.allow_undefined));
    }
  }
  return Intersects(other);
}

bool Requirements::IntersectsWith(const Requirements& other) const {
  auto a = requirements_.begin();
  const auto a_end = requirements_.end();
  for (const Requirement& incoming : other.requirements_) {
    while (a != a_end && a->key() < incoming.key()) ++a;
    if (a == a_end) break;
    if (a->key() == incoming.key() && !KeyIntersects(*a, incoming)) return false;
  }
  return true;
}

core::Status Requirements::Intersects(const Requirements& other) const {
  std::string message;
  auto a = requirements_.begin();
  const auto a_end = requirements_.end();
  for (const Requirement& incoming : other.requirements_) {
    while (a != a_end && a->key() < incoming.key()) ++a;
    if (a == a_end) break;
    if (a->key() != incoming.key() || KeyIntersects(*a, incoming)) continue;
    if (!message.empty()) message += "; ";
    message += "key " + incoming.key() + ", " + incoming.String() + " not in " + a->String();
  }
  if (message.empty()) return core::Status::Ok();
  return core::Status::Invalid(message);
}

api::Labels Requirements::Labels() const { return Labels(WellKnownLabels()); }

api::Labels Requirements::Labels(const LabelKeySet& well_known) const {
  api::Labels labels;
  for (const Requirement& r : requirements_) {
    if (IsRestrictedNodeLabel(r.key(), well_known)) continue;
    if (std::string value = r.Any(); !value.empty()) labels.emplace(r.key(), std::move(value));
  }
  return labels;
}

api::Labels Requirements::SingleValuedLabels() const {
  api::Labels labels;
  for (const Requirement& r : requirements_) {
    if (!r.complement() && r.Values().size() == 1) labels.emplace(r.key(), r.Values().front());
  }
  return labels;
}

std::vector<api::NodeSelectorRequirement> Requirements::ToNodeSelectorRequirements() const {
  std::vector<api::NodeSelectorRequirement> out;
  out.reserve(requirements_.size());
  for (const Requirement& r : requirements_) {
    for (api::NodeSelectorRequirement& n : r.ToNodeSelectorRequirements()) {
      out.push_back(std::move(n));
    }
  }
  return out;
}

bool Requirements::HasMinValues() const {
  return std::any_of(requirements_.begin(), requirements_.end(),
                     [](const Requirement& r) { return r.min_values().has_value(); });
}

std::string Requirements::String() const {
  std::vector<std::string> parts;
  parts.reserve(requirements_.size());
  for (const Requirement& r : requirements_) {
    if (!RestrictedLabels().Contains(r.key())) parts.push_back(r.String());
  }
  std::sort(parts.begin(), parts.end());
  std::string out;
  for (size_t i = 0; i < parts.size(); ++i) {
    if (i) out += ", ";
    out += parts[i];
  }
  return out;
}

}  // namespace nodesmith::scheduling
