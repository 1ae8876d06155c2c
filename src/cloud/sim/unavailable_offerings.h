// Insufficient-capacity windows: offerings (instance type, zone, capacity type) that the
// simulated cloud cannot launch until a given time, as a Scenario's `unavailable` event says.
//
// A value type; queries take the current time, so windows expire without any bookkeeping.
#pragma once

#include <compare>
#include <map>
#include <optional>
#include <string>
#include <vector>

#include "cloud/offering_ref.h"
#include "core/time.h"

namespace nodesmith::cloud::sim {

using cloud::OfferingRef;

class UnavailableOfferings {
 public:
  // `offering` is unavailable until `until` (exclusive). Overlapping windows for the same
  // offering merge into the later end.
  void Mark(const OfferingRef& offering, core::Time until);
  // True while a window for `offering` covers `now`.
  bool IsUnavailable(const OfferingRef& offering, core::Time now) const;
  // True when any offering of `instance_type` is unavailable at `now`.
  bool AnyUnavailable(const std::string& instance_type, core::Time now) const;
  // The earliest end of a window still open at `now`, or nullopt: when GetInstanceTypes'
  // answer next changes.
  std::optional<core::Time> NextExpiry(core::Time now) const;

 private:
  std::map<OfferingRef, core::Time> until_;  // ordered, so AnyUnavailable is a range scan
};

}  // namespace nodesmith::cloud::sim
