// Requirements: a conjunction of Requirement, at most one per key, as Karpenter's
// pkg/scheduling/requirements.go. Adding a requirement for a key already present intersects
// the two. NodePools, NodeClaims, instance types, offerings and pods are all described by
// Requirements, and scheduling asks whether two descriptions are Compatible.
//
// Stored as a flat vector sorted by key, so lookups are binary searches and Compatible /
// Intersects walk both operands in one merge. The bool forms (IsCompatible, IntersectsWith)
// allocate nothing; the Status forms build an explanation only when there is a conflict.
// A value type; copy freely. Not thread-safe for concurrent mutation.
#pragma once

#include <string>
#include <string_view>
#include <vector>

#include "api/meta.h"
#include "api/pod.h"
#include "api/selector.h"
#include "core/status.h"
#include "scheduling/requirement.h"
#include "scheduling/well_known_labels.h"

namespace nodesmith::scheduling {

// How Compatible treats a key the receiver does not constrain but the argument requires to
// exist (In, Exists, bounded). Upstream: by default such a key is incompatible ("label ... does
// not have known values"); with AllowUndefinedWellKnownLabels, well-known keys are allowed.
struct CompatibilityOptions {
  // Keys allowed to be undefined on the receiver; nullptr = none (strict).
  const LabelKeySet* allow_undefined = nullptr;
};
// The strict default: no key may be undefined.
inline CompatibilityOptions StrictCompatibility() { return {}; }
// Karpenter's AllowUndefinedWellKnownLabels with the default well-known set...
CompatibilityOptions AllowUndefinedWellKnownLabels();
// ...or with a catalog-extended set. REQUIRES: `well_known` outlives the options.
CompatibilityOptions AllowUndefined(const LabelKeySet& well_known);

class Requirements {
 public:
  using const_iterator = std::vector<Requirement>::const_iterator;

  Requirements() = default;
  // Adds each requirement in order (intersecting duplicates).
  explicit Requirements(std::vector<Requirement> requirements);

  // NewNodeSelectorRequirementsWithMinValues: one requirement per expression, minValues kept.
  // Upstream does not validate here; invalid Gt/Lt values admit nothing (see Requirement).
  static Requirements FromNodeSelectorRequirements(
      const std::vector<api::NodeSelectorRequirement>& requirements);
  // NewLabelRequirements: `key In [value]` for each label.
  static Requirements FromLabels(const api::Labels& labels);
  // NewPodRequirements: the pod's nodeSelector, the heaviest preferred node-affinity term
  // (first of equal weights), and the first required node-affinity term. The solver relaxes
  // preferences and later OR terms by rebuilding from a modified pod.
  static Requirements FromPod(const api::Pod& pod);
  // NewStrictPodRequirements: as FromPod without the preferred term.
  static Requirements FromPodStrict(const api::Pod& pod);

  // Intersects `r` into the requirement for its key (or inserts it).
  void Add(const Requirement& r);
  void Add(const Requirements& rs);
  // Drops the requirement for `key` if present.
  void Remove(std::string_view key);

  bool Has(std::string_view key) const { return Find(key) != nullptr; }
  // The requirement for `key`, or nullptr.
  const Requirement* Find(std::string_view key) const;
  // The requirement for `key`; Exists (unconstrained) when absent, as upstream Get.
  Requirement Get(std::string_view key) const;
  // Keys in sorted order.
  std::vector<std::string> Keys() const;
  size_t size() const { return requirements_.size(); }
  bool empty() const { return requirements_.empty(); }
  const_iterator begin() const { return requirements_.begin(); }
  const_iterator end() const { return requirements_.end(); }

  // Ok when a node described by *this could satisfy `other`: every key of `other` that requires
  // a value must be defined here (unless allowed by `options`), and every key both define must
  // intersect (Intersects). The message lists each conflict, e.g.
  //   label "example.com/team" does not have known values
  //   key topology.kubernetes.io/zone, topology.kubernetes.io/zone In [us-west-2a] not in
  //   topology.kubernetes.io/zone In [us-west-2b]
  core::Status Compatible(const Requirements& other,
                          const CompatibilityOptions& options = StrictCompatibility()) const;
  // Compatible(...).ok() without building messages or allocating.
  bool IsCompatible(const Requirements& other,
                    const CompatibilityOptions& options = StrictCompatibility()) const;

  // Ok when every key defined by both has a non-empty intersection, except that two
  // "negative" requirements (NotIn/DoesNotExist) never conflict. Undefined keys are allowed.
  core::Status Intersects(const Requirements& other) const;
  bool IntersectsWith(const Requirements& other) const;

  // Labels a node built from these requirements carries: for each key that is not a
  // restricted node label, Any() of its set when non-empty. (Single-valued In requirements
  // give their value; wider sets give a deterministic member, as upstream gives a random one.)
  api::Labels Labels() const;
  api::Labels Labels(const LabelKeySet& well_known) const;
  // Only the keys whose set is exactly one value (`In [v]`), restricted or not.
  api::Labels SingleValuedLabels() const;

  // The API form of every requirement, in key order (see Requirement::
  // ToNodeSelectorRequirements); FromNodeSelectorRequirements of the result gives *this back.
  std::vector<api::NodeSelectorRequirement> ToNodeSelectorRequirements() const;

  // True when any requirement carries minValues.
  bool HasMinValues() const;

  // The requirements' strings (except restricted keys such as kubernetes.io/hostname), sorted,
  // joined with ", ".
  std::string String() const;

  bool operator==(const Requirements& o) const = default;

 private:
  std::vector<Requirement> requirements_;  // sorted by key, unique keys
};

}  // namespace nodesmith::scheduling
