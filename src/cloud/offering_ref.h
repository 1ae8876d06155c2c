// OfferingRef: one offering named by its instance type, zone and capacity type — how launches,
// insufficient-capacity windows and error messages refer to an offering.
#pragma once

#include <compare>
#include <string>

namespace nodesmith::cloud {

struct OfferingRef {
  std::string instance_type;
  std::string zone;
  std::string capacity_type;

  // "c5.large/us-west-2a/spot"
  std::string String() const { return instance_type + "/" + zone + "/" + capacity_type; }
  auto operator<=>(const OfferingRef&) const = default;
};

}  // namespace nodesmith::cloud
