// A kubelet eviction threshold as an EC2NodeClass's kubelet.evictionHard / evictionSoft writes
// it: an absolute quantity ("100Mi") or a percentage of the resource's capacity ("10%"), as the
// kubelet reads it. One parser serves validation at load (so a bad value is refused naming its
// file and field) and the capacity rules that turn it into reserved resources.
#pragma once

#include <optional>
#include <string>

#include "api/quantity.h"
#include "core/status.h"

namespace nodesmith::api {

struct EvictionThreshold {
  std::optional<double> percent;  // 0 to 100, when written as a percentage
  Quantity quantity;              // otherwise
};

// InvalidArgument saying what is wrong with `text` (without a field path).
core::Result<EvictionThreshold> ParseEvictionThreshold(const std::string& text);

}  // namespace nodesmith::api
