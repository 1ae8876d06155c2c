// Selector: a compiled Kubernetes label selector (k8s.io/apimachinery/pkg/labels.Selector).
//
// Built either from the string syntax (`Parse`: "k=v", "k==v", "k!=v", "k in (a,b)",
// "k notin (a)", "k", "!k", "k>1", "k<1", comma-separated and ANDed) or from a
// metav1.LabelSelector (`FromApi`: matchLabels and matchExpressions ANDed; an absent selector
// selects nothing, an empty one selects everything). Matching rules, as upstream:
//   - "k!=v" and "k notin (..)" also match objects without k;
//   - "k>n"/"k<n" need k present with an integer value (non-integers never match);
//   - a zero-value requirement (no operator) matches nothing.
// A value type; matching does not allocate.
#pragma once

#include <optional>
#include <string>
#include <string_view>
#include <vector>

#include "api/meta.h"
#include "api/selector.h"
#include "core/status.h"

namespace nodesmith::scheduling {

enum class SelectorOp : uint8_t {
  kUnset,  // the zero value of an upstream Requirement: matches nothing
  kEquals,
  kDoubleEquals,
  kNotEquals,
  kIn,
  kNotIn,
  kExists,
  kDoesNotExist,
  kGreaterThan,
  kLessThan,
};

// One clause of a selector. Build with LabelRequirement::Make to get upstream validation.
struct LabelRequirement {
  std::string key;
  SelectorOp op = SelectorOp::kUnset;
  std::vector<std::string> values;  // sorted, unique when built by Make

  // labels.NewRequirement: validates the key (qualified name), the values (label values) and
  // the value count for the operator (Gt/Lt need one integer).
  static core::Result<LabelRequirement> Make(std::string key, SelectorOp op,
                                             std::vector<std::string> values);
  bool Matches(const api::Labels& labels) const;
  // "k in (a,b)", "!k", "k>1", ... (values sorted), as upstream Requirement.String.
  std::string String() const;
};

class Selector {
 public:
  // Matches every object (the empty selector).
  static Selector Everything() { return Selector(false); }
  // Matches no object (what an absent metav1.LabelSelector means).
  static Selector Nothing() { return Selector(true); }

  // labels.Parse: the string syntax. "" is Everything. Errors quote the offending token.
  static core::Result<Selector> Parse(std::string_view text);
  // metav1.LabelSelectorAsSelector. nullptr -> Nothing; no labels and no expressions ->
  // Everything; an unknown operator or an invalid key/value is an error.
  static core::Result<Selector> FromApi(const api::LabelSelector* selector);
  static core::Result<Selector> FromApi(const std::optional<api::LabelSelector>& selector) {
    return FromApi(selector ? &*selector : nullptr);
  }

  // Adds a clause (kept sorted by key, as upstream Add).
  void Add(LabelRequirement r);

  bool Matches(const api::Labels& labels) const;
  // True for Everything (no clauses, not Nothing).
  bool Empty() const { return !nothing_ && requirements_.empty(); }
  bool IsNothing() const { return nothing_; }
  const std::vector<LabelRequirement>& requirements() const { return requirements_; }
  // Clauses joined with "," ("baz in (norf,qux),foo=bar"); "" for Everything and Nothing.
  std::string String() const;

 private:
  explicit Selector(bool nothing) : nothing_(nothing) {}
  bool nothing_ = false;
  std::vector<LabelRequirement> requirements_;
};

// Convenience for callers holding an optional API selector: false when absent or invalid.
bool SelectorMatches(const std::optional<api::LabelSelector>& selector, const api::Labels& labels);

}  // namespace nodesmith::scheduling
