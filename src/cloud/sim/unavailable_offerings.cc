#include "cloud/sim/unavailable_offerings.h"

#include <algorithm>

namespace nodesmith::cloud::sim {

void UnavailableOfferings::Mark(const OfferingRef& offering, core::Time until) {
  auto [it, inserted] = until_.emplace(offering, until);
  if (!inserted) it->second = std::max(it->second, until);
}

bool UnavailableOfferings::IsUnavailable(const OfferingRef& offering, core::Time now) const {
  auto it = until_.find(offering);
  return it != until_.end() && now < it->second;
}

bool UnavailableOfferings::AnyUnavailable(const std::string& instance_type, core::Time now) const {
  for (auto it = until_.lower_bound(OfferingRef{instance_type, "", ""});
       it != until_.end() && it->first.instance_type == instance_type; ++it) {
    if (now < it->second) return true;
  }
  return false;
}

std::optional<core::Time> UnavailableOfferings::NextExpiry(core::Time now) const {
  std::optional<core::Time> next;
  for (const auto& [offering, until] : until_) {
    if (now < until && (!next || until < *next)) next = until;
  }
  return next;
}

}  // namespace nodesmith::cloud::sim
