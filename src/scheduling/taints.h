// Taints and tolerations: whether a toleration matches a taint (k8s.io/api core/v1
// Toleration.ToleratesTaint, including the feature-gated numeric Lt/Gt operators) and whether
// a pod's tolerations cover a node's taints (Karpenter's Taints.Tolerates), with a message
// naming the first taint that is not tolerated.
//
// Matching rules:
//   - a toleration with an effect only matches taints with that effect; empty matches all;
//   - a toleration with a key only matches taints with that key; an empty key with Exists
//     matches every taint;
//   - operator "" or Equal needs equal values (an empty value only matches an empty value);
//     Exists ignores the value;
//   - Lt/Gt compare the taint's value against the toleration's as canonical base-10 int64
//     ("taint < toleration" for Lt); non-canonical numbers ("0100", "+1", "1.5", "", " 1")
//     never match.
// All functions are pure.
#pragma once

#include <cstdint>
#include <string>
#include <string_view>
#include <vector>

#include "api/selector.h"
#include "core/status.h"

namespace nodesmith::scheduling {

inline constexpr const char* kTaintEffectNoSchedule = "NoSchedule";
inline constexpr const char* kTaintEffectPreferNoSchedule = "PreferNoSchedule";
inline constexpr const char* kTaintEffectNoExecute = "NoExecute";

inline constexpr const char* kTaintNodeNotReady = "node.kubernetes.io/not-ready";
inline constexpr const char* kTaintNodeUnreachable = "node.kubernetes.io/unreachable";
inline constexpr const char* kTaintExternalCloudProvider =
    "node.cloudprovider.kubernetes.io/uninitialized";
inline constexpr const char* kTaintUnregistered = "karpenter.sh/unregistered";
inline constexpr const char* kTaintDisrupted = "karpenter.sh/disrupted";

// Taints every new node carries for a while and which Karpenter therefore ignores on a node
// it manages until the node is initialized (KnownEphemeralTaints upstream). Matched by key and
// effect.
const std::vector<api::Taint>& KnownEphemeralTaints();

// The taint is one of KnownEphemeralTaints, or its key starts with a prefix whose taints a
// controller removes when a node is ready ("readiness.k8s.io/", the Node Readiness Controller).
bool IsKnownEphemeralTaint(const api::Taint& taint);

// Which taint effects a check considers (bit set). Taints with an unrecognised effect are
// only considered under kAllEffects.
enum TaintEffectMask : uint8_t {
  kEffectNoSchedule = 1,
  kEffectPreferNoSchedule = 2,
  kEffectNoExecute = 4,
  kAllEffects = 7,
  // kube-scheduler's TaintToleration filter: the effects that block placement.
  kSchedulingEffects = kEffectNoSchedule | kEffectNoExecute,
};
bool EffectSelected(uint8_t mask, std::string_view effect);

// Toleration.ToleratesTaint. With `enable_comparison_operators` false, Lt/Gt never match
// (the feature gate off, as in older Kubernetes versions).
bool ToleratesTaint(const api::Toleration& toleration, const api::Taint& taint,
                    bool enable_comparison_operators = true);

// The numeric comparison behind Lt/Gt: "Gt" is taint > toleration, "Lt" is taint < toleration;
// any other operator, or a non-canonical integer on either side, is false.
bool CompareNumericTaintValues(std::string_view toleration_value, std::string_view taint_value,
                               std::string_view op);

// True when some toleration tolerates `taint`.
bool TolerationsTolerateTaint(const std::vector<api::Toleration>& tolerations,
                              const api::Taint& taint);

// The first taint (in order) whose effect is in `effects` and that no toleration tolerates;
// nullptr when all are tolerated. The pointer refers into `taints`.
const api::Taint* FindUntoleratedTaint(const std::vector<api::Toleration>& tolerations,
                                       const std::vector<api::Taint>& taints,
                                       uint8_t effects = kAllEffects);

// Ok when the tolerations cover every taint with an effect in `effects`; otherwise
// InvalidArgument "did not tolerate taint (taint=key=value:Effect)" for the first one.
core::Status ToleratesAll(const std::vector<api::Toleration>& tolerations,
                          const std::vector<api::Taint>& taints, uint8_t effects = kAllEffects);

// "key=value:Effect", or "key:Effect" when the value is empty.
std::string TaintString(const api::Taint& taint);

// Taint.MatchTaint: same key and effect (values may differ).
bool TaintsMatch(const api::Taint& a, const api::Taint& b);
// `base` followed by each taint of `with` that matches none already present (Taints.Merge).
std::vector<api::Taint> MergeTaints(const std::vector<api::Taint>& base,
                                    const std::vector<api::Taint>& with);

}  // namespace nodesmith::scheduling
