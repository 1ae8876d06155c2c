// PodDisruptionBudget (policy/v1).
#pragma once

#include <optional>
#include <string>

#include "api/meta.h"
#include "api/selector.h"

namespace nodesmith::api {

// An int or a percentage string ("25%"), as intstr.IntOrString.
struct IntOrString {
  bool is_string = false;
  int int_value = 0;
  std::string str_value;
  std::string String() const { return is_string ? str_value : std::to_string(int_value); }
};

struct PodDisruptionBudget {
  ObjectMeta metadata;
  std::optional<IntOrString> min_available;
  std::optional<IntOrString> max_unavailable;
  std::optional<LabelSelector> selector;
  std::string unhealthy_pod_eviction_policy;  // IfHealthyBudget (default) | AlwaysAllow
};

}  // namespace nodesmith::api
