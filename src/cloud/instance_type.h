// InstanceType and Offering: what the cloud can launch, as the scheduler sees it.
//
// An InstanceType is immutable once built and shared (std::shared_ptr<const InstanceType>)
// between the catalog, the solver and the cloud provider. Its `requirements` include its
// labels (In [value]), node.kubernetes.io/instance-type In [name], topology.kubernetes.io/zone In
// [zones of available offerings] and karpenter.sh/capacity-type In [capacity types of available
// offerings], as the CLI contract specifies. Allocatable = capacity − overhead.Total().
#pragma once

#include <memory>
#include <string>
#include <vector>

#include "api/resource_list.h"
#include "scheduling/requirements.h"

namespace nodesmith::cloud {

inline constexpr const char* kCapacityTypeSpot = "spot";
inline constexpr const char* kCapacityTypeOnDemand = "on-demand";
inline constexpr const char* kCapacityTypeReserved = "reserved";

// One way to buy an instance type: a zone and a capacity type at a price.
struct Offering {
  std::string zone;
  std::string capacity_type;
  double price = 0;  // USD per hour
  bool available = true;
  // zone and capacity type as requirements (plus any offering-specific ones, e.g. a reservation id).
  scheduling::Requirements requirements;
};

// Resources the node keeps for itself: subtracted from capacity to give allocatable.
struct Overhead {
  api::ResourceList kube_reserved;
  api::ResourceList system_reserved;
  api::ResourceList eviction_threshold;
  api::ResourceList Total() const;
};

struct InstanceType {
  std::string name;
  scheduling::Requirements requirements;
  api::ResourceList capacity;
  Overhead overhead;
  api::ResourceList allocatable;  // capacity − overhead.Total(), computed once at construction
  std::vector<Offering> offerings;

  // The cheapest available offering compatible with `reqs` (ties: zone name), or nullptr.
  const Offering* CheapestOffering(const scheduling::Requirements& reqs) const;
};

using InstanceTypePtr = std::shared_ptr<const InstanceType>;
using InstanceTypes = std::vector<InstanceTypePtr>;

// Builds an InstanceType as every catalog does: adds to `requirements` node.kubernetes.io/
// instance-type In [name], topology.kubernetes.io/zone In [zones of available offerings] and
// karpenter.sh/capacity-type In [their capacity types]; gives each offering without requirements
// its zone and capacity type as requirements; computes allocatable = capacity − overhead.Total().
// A type with no available offering gets empty zone/capacity-type sets, so nothing selects it.
InstanceTypePtr NewInstanceType(std::string name, scheduling::Requirements requirements,
                                api::ResourceList capacity, Overhead overhead,
                                std::vector<Offering> offerings);

// Sorts by name (the order every catalog returns).
void SortByName(InstanceTypes& types);

}  // namespace nodesmith::cloud
