#include "scheduling/taints.h"

#include <algorithm>

#include "scheduling/requirement.h"

namespace nodesmith::scheduling {

namespace {

// A canonical base-10 int64: what strconv.FormatInt would print for the value, so leading
// zeros, '+', "-0", blanks and fractions are all rejected.
std::optional<int64_t> ParseCanonicalInt(std::string_view s) {
  std::optional<int64_t> v = ParseLabelInt(s);
  if (!v || std::to_string(*v) != s) return std::nullopt;
  return v;
}

}  // namespace

const std::vector<api::Taint>& KnownEphemeralTaints() {
  static const std::vector<api::Taint>* const kTaints = new std::vector<api::Taint>{
      {kTaintNodeNotReady, "", kTaintEffectNoSchedule},
      {kTaintNodeNotReady, "", kTaintEffectNoExecute},
      {kTaintNodeUnreachable, "", kTaintEffectNoSchedule},
      {kTaintExternalCloudProvider, "true", kTaintEffectNoSchedule},
      {kTaintUnregistered, "", kTaintEffectNoExecute},
  };
  return *kTaints;
}

bool IsKnownEphemeralTaint(const api::Taint& taint) {
  for (const api::Taint& e : KnownEphemeralTaints()) {
    if (TaintsMatch(e, taint)) return true;
  }
  return taint.key.starts_with("readiness.k8s.io/");
}

bool EffectSelected(uint8_t mask, std::string_view effect) {
  if (effect == kTaintEffectNoSchedule) return mask & kEffectNoSchedule;
  if (effect == kTaintEffectPreferNoSchedule) return mask & kEffectPreferNoSchedule;
  if (effect == kTaintEffectNoExecute) return mask & kEffectNoExecute;
  return mask == kAllEffects;
}

bool CompareNumericTaintValues(std::string_view toleration_value, std::string_view taint_value,
                               std::string_view op) {
  if (op != "Gt" && op != "Lt") return false;
  std::optional<int64_t> tol = ParseCanonicalInt(toleration_value);
  std::optional<int64_t> taint = ParseCanonicalInt(taint_value);
  if (!tol || !taint) return false;
  return op == "Gt" ? *taint > *tol : *taint < *tol;
}

bool ToleratesTaint(const api::Toleration& toleration, const api::Taint& taint,
                    bool enable_comparison_operators) {
  if (!toleration.effect.empty() && toleration.effect != taint.effect) return false;
  if (!toleration.key.empty() && toleration.key != taint.key) return false;
  if (toleration.op.empty() || toleration.op == "Equal") return toleration.value == taint.value;
  if (toleration.op == "Exists") return true;
  if (toleration.op == "Lt" || toleration.op == "Gt") {
    return enable_comparison_operators &&
           CompareNumericTaintValues(toleration.value, taint.value, toleration.op);
  }
  return false;
}

bool TolerationsTolerateTaint(const std::vector<api::Toleration>& tolerations,
                              const api::Taint& taint) {
  return std::any_of(tolerations.begin(), tolerations.end(),
                     [&](const api::Toleration& t) { return ToleratesTaint(t, taint); });
}

const api::Taint* FindUntoleratedTaint(const std::vector<api::Toleration>& tolerations,
                                       const std::vector<api::Taint>& taints, uint8_t effects) {
  for (const api::Taint& taint : taints) {
    if (EffectSelected(effects, taint.effect) && !TolerationsTolerateTaint(tolerations, taint)) {
      return &taint;
    }
  }
  return nullptr;
}

core::Status ToleratesAll(const std::vector<api::Toleration>& tolerations,
                          const std::vector<api::Taint>& taints, uint8_t effects) {
  const api::Taint* untolerated = FindUntoleratedTaint(tolerations, taints, effects);
  if (untolerated == nullptr) return core::Status::Ok();
  return core::Status::Invalid("did not tolerate taint (taint=" + TaintString(*untolerated) + ")");
}

std::string TaintString(const api::Taint& taint) {
  std::string s = taint.key;
  if (!taint.value.empty()) s += "=" + taint.value;
  return s + ":" + taint.effect;
}

bool TaintsMatch(const api::Taint& a, const api::Taint& b) {
  return a.key == b.key && a.effect == b.effect;
}

std::vector<api::Taint> MergeTaints(const std::vector<api::Taint>& base,
                                    const std::vector<api::Taint>& with) {
  std::vector<api::Taint> out = base;
  for (const api::Taint& t : with) {
    bool present = std::any_of(out.begin(), out.end(),
                               [&](const api::Taint& o) { return TaintsMatch(t, o); });
    if (!present) out.push_back(t);
  }
  return out;
}

}  // namespace nodesmith::scheduling
