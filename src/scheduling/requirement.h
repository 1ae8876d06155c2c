// Requirement: the set of values a single label key may take, as Karpenter's
// pkg/scheduling/requirement.go. The set is either a finite set of values (In, DoesNotExist =
// empty set) or the complement of a finite set (NotIn, Exists = complement of nothing), and a
// complement set may be bounded by inclusive integer bounds: Gt n is stored as ">= n+1", Lt n as
// "<= n-1", Gte/Lte as given. A value passes the bounds only when it parses as an integer.
// Finite sets never carry bounds (Intersection filters their values and drops the bounds).
//
// Requirement is a value type (cheap to move; a copy copies its key and values). Values are
// kept sorted and unique in a flat vector: Has is a binary search, Intersection a merge, and
// the emptiness test used on the solver's hot path (IntersectionIsEmpty) allocates nothing.
#pragma once

#include <cstdint>
#include <limits>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

#include "api/selector.h"
#include "core/status.h"

namespace nodesmith::scheduling {

enum class Operator : uint8_t { kIn, kNotIn, kExists, kDoesNotExist, kGt, kLt, kGte, kLte };

// "In", "NotIn", "Exists", "DoesNotExist", "Gt", "Lt", "Gte", "Lte".
std::string_view OperatorName(Operator op);
// The operator named `name` (exact spelling as in the API), nullopt if unknown.
std::optional<Operator> ParseOperator(std::string_view name);

// Upstream Len() of an unbounded complement set (math.MaxInt64).
inline constexpr int64_t kUnboundedLen = std::numeric_limits<int64_t>::max();

class Requirement {
 public:
  // An Exists requirement on the empty key (for containers; prefer the named constructors).
  Requirement() = default;

  // Karpenter's NewRequirementWithFlexibility. The key is normalised (NormalizeLabelKey).
  // In/NotIn keep `values`; Exists/DoesNotExist ignore them; Gt/Lt/Gte/Lte read values[0].
  // REQUIRES: for Gt/Lt/Gte/Lte, values[0] is a base-10 integer (use FromNodeSelectorRequirement
  // to validate input). If it is not, the requirement admits no value.
  Requirement(std::string_view key, Operator op, std::vector<std::string> values = {},
              std::optional<int> min_values = std::nullopt);

  static Requirement In(std::string_view key, std::vector<std::string> values) {
    return Requirement(key, Operator::kIn, std::move(values));
  }
  static Requirement NotIn(std::string_view key, std::vector<std::string> values) {
    return Requirement(key, Operator::kNotIn, std::move(values));
  }
  static Requirement Exists(std::string_view key) { return Requirement(key, Operator::kExists); }
  static Requirement DoesNotExist(std::string_view key) {
    return Requirement(key, Operator::kDoesNotExist);
  }

  // Validates (ValidateNodeSelectorRequirement) and converts an API requirement, keeping its
  // minValues.
  static core::Result<Requirement> FromNodeSelectorRequirement(
      const api::NodeSelectorRequirement& r);

  const std::string& key() const { return key_; }
  // Karpenter's Operator(): the shape of the set. In (finite, non-empty), DoesNotExist (empty),
  // NotIn (complement of a non-empty set), Exists (complement of the empty set, including the
  // bounded sets made by Gt/Lt/Gte/Lte). Never returns Gt/Lt/Gte/Lte.
  Operator op() const;
  // True when `value` is in the set (and within the bounds, if any).
  bool Has(std::string_view value) const;
  // Number of values: |values| for finite sets, kUnboundedLen - |excluded| for complements.
  int64_t Len() const;
  // A deterministic member of the set: the smallest value of a finite set; for a complement,
  // the smallest non-negative integer (>= the lower bound) within the bounds and not excluded.
  // "" for an empty set (upstream picks at random; nodesmith must be reproducible).
  std::string Any() const;
  // The finite set's values, or the excluded values of a complement; sorted.
  const std::vector<std::string>& Values() const { return values_; }
  bool complement() const { return complement_; }
  // Inclusive integer bounds of a complement set (Gt n -> n+1, Lt n -> n-1).
  std::optional<int64_t> lower_bound() const { return gte_; }
  std::optional<int64_t> upper_bound() const { return lte_; }
  std::optional<int> min_values() const { return min_values_; }
  void set_min_values(std::optional<int> m) { min_values_ = m; }
  // True when the key is in the default WellKnownLabels() (precomputed).
  bool well_known() const { return well_known_; }

  // The set of values in both (key taken from *this; minValues is the larger of the two), as
  // upstream Intersection: complements union their exclusions, bounds tighten, values outside
  // the bounds are dropped, crossing bounds give DoesNotExist.
  Requirement Intersection(const Requirement& o) const;
  // *this = Intersection(o), reusing this object's storage; cheap when either side is an
  // unbounded Exists (the common case when merging NodePool, pod and instance requirements).
  void IntersectWith(const Requirement& o);
  // Intersection(o).Len() == 0, computed without building the intersection or allocating.
  bool IntersectionIsEmpty(const Requirement& o) const;

  // The API form (NodeSelectorRequirement()/BoundedNodeSelectorRequirements upstream): In,
  // NotIn, Exists or DoesNotExist, and Gte/Lte for bounds, each carrying minValues. Unlike
  // upstream, a bounded set that also excludes values keeps its NotIn, so converting back
  // gives the same set.
  std::vector<api::NodeSelectorRequirement> ToNodeSelectorRequirements() const;

  // "key In [a b]", "key NotIn [a]", "key Exists >=2 <=8", "key DoesNotExist", with
  // " minValues N" appended when set; more than 5 values print as "[a b c d e and 3 others]".
  std::string String() const;

  // Structural equality (key, set, bounds, minValues).
  bool operator==(const Requirement& o) const = default;

 private:
  std::string key_;
  std::vector<std::string> values_;  // sorted, unique
  std::optional<int64_t> gte_;       // only on complement sets
  std::optional<int64_t> lte_;
  std::optional<int> min_values_;
  bool complement_ = true;
  bool well_known_ = false;
};

// Karpenter's admission rules for a NodeSelectorRequirement (requirement key and operator valid,
// In needs values, Exists/DoesNotExist take none, Gt/Lt/Gte/Lte need exactly one integer value,
// minValues within 1..50 and not above the number of In values). The message names the key.
core::Status ValidateNodeSelectorRequirement(const api::NodeSelectorRequirement& r);

// Parses a base-10 integer as Go's strconv.Atoi does ("+5", "-3", "007" accepted).
std::optional<int64_t> ParseLabelInt(std::string_view s);

}  // namespace nodesmith::scheduling
