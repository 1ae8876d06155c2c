#include "cloud/instance_type.h"

#include <algorithm>
#include <set>
#include <tuple>

#include "scheduling/well_known_labels.h"

namespace nodesmith::cloud {

api::ResourceList Overhead::Total() const {
  api::ResourceList total = kube_reserved;
  total.Add(system_reserved);
  total.Add(eviction_threshold);
  return total;
}

const Offering* InstanceType::CheapestOffering(const scheduling::Requirements& reqs) const {
  // As Karpenter's Offerings.Compatible: the NodeClaim's requirements need not mention zone or
  // capacity type (well-known keys may be undefined), but where they do they must intersect.
  static const scheduling::CompatibilityOptions kOptions =
      scheduling::AllowUndefinedWellKnownLabels();
  const Offering* best = nullptr;
  for (const Offering& o : offerings) {
    if (!o.available || !reqs.IsCompatible(o.requirements, kOptions)) continue;
    if (best == nullptr || o.price < best->price ||
        (o.price == best->price &&
         std::tie(o.zone, o.capacity_type) < std::tie(best->zone, best->capacity_type))) {
      best = &o;
    }
  }
  return best;
}

InstanceTypePtr NewInstanceType(std::string name, scheduling::Requirements requirements,
                                api::ResourceList capacity, Overhead overhead,
                                std::vector<Offering> offerings) {
  std::set<std::string> zones;
  std::set<std::string> capacity_types;
  for (Offering& o : offerings) {
    if (o.requirements.empty()) {
      o.requirements.Add(scheduling::Requirement::In(scheduling::kLabelTopologyZone, {o.zone}));
      o.requirements.Add(
          scheduling::Requirement::In(scheduling::kLabelCapacityType, {o.capacity_type}));
    }
    if (!o.available) continue;
    zones.insert(o.zone);
    capacity_types.insert(o.capacity_type);
  }
  requirements.Add(scheduling::Requirement::In(scheduling::kLabelInstanceTypeStable, {name}));
  requirements.Add(
      scheduling::Requirement::In(scheduling::kLabelTopologyZone, {zones.begin(), zones.end()}));
  requirements.Add(scheduling::Requirement::In(scheduling::kLabelCapacityType,
                                               {capacity_types.begin(), capacity_types.end()}));

  auto it = std::make_shared<InstanceType>();
  it->name = std::move(name);
  it->requirements = std::move(requirements);
  it->allocatable = capacity;
  it->allocatable.Subtract(overhead.Total());
  it->capacity = std::move(capacity);
  it->overhead = std::move(overhead);
  it->offerings = std::move(offerings);
  return it;
}

void SortByName(InstanceTypes& types) {
  std::stable_sort(
      types.begin(), types.end(),
      [](const InstanceTypePtr& a, const InstanceTypePtr& b) { return a->name < b->name; });
}

}  // namespace nodesmith::cloud
