// Schemas of Kubernetes types the CRDs share: the object root, metav1.Condition lists, taints,
// resource lists, and the patterns of label keys and values and of Go durations.
#pragma once

#include <string_view>

#include "crds/schema.h"

namespace nodesmith::crds {

// A Go duration of seconds, minutes and hours ("1h30m", "90s").
inline constexpr std::string_view kDurationPattern = R"(^([0-9]+(s|m|h))+$)";
// The same, or "Never".
inline constexpr std::string_view kDurationOrNeverPattern = R"(^(([0-9]+(s|m|h))+|Never)$)";
// A qualified name: an optional DNS-subdomain prefix and "/", then a name ("example.com/gpu").
inline constexpr std::string_view kQualifiedNamePattern =
    R"(^([a-z0-9]([-a-z0-9]*[a-z0-9])?(\.[a-z0-9]([-a-z0-9]*[a-z0-9])?)*(\/))?([A-Za-z0-9][-A-Za-z0-9_.]*)?[A-Za-z0-9]$)";
// A label value: empty, or alphanumerics with '-', '_' and '.' inside.
inline constexpr std::string_view kLabelValuePattern =
    R"(^(([A-Za-z0-9][-A-Za-z0-9_.]*)?[A-Za-z0-9])?$)";

// The root of a kind's schema: apiVersion, kind and metadata; the caller adds spec and status.
Schema ObjectRoot(std::string_view description);

// How a kind's status.conditions are declared.
struct ConditionListOptions {
  // A map list keyed by `type` (server-side apply merges conditions one by one).
  bool keyed_by_type = true;
  // metav1.Condition requires reason and message and a non-empty reason; NodeClaim's relaxes
  // that: only type, status and lastTransitionTime are required and reason may be "".
  bool reason_optional = false;
};
Schema ConditionList(const ConditionListOptions& options);

// core/v1 Taint lists (spec.taints, spec.startupTaints).
Schema TaintList(std::string_view description);

// A map of resource name to Quantity (core/v1 ResourceList).
Schema ResourceList(std::string_view description);

}  // namespace nodesmith::crds
