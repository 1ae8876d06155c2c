#include "cloud/catalog_file.h"

#include <set>

#include "scheduling/requirements.h"

namespace nodesmith::cloud {
namespace {

Overhead ToOverhead(const api::CatalogOverhead& o) {
  return Overhead{o.kube_reserved, o.system_reserved, o.eviction_threshold};
}

bool KnownCapacityType(const std::string& ct) {
  return ct == kCapacityTypeSpot || ct == kCapacityTypeOnDemand || ct == kCapacityTypeReserved;
}

}  // namespace

core::Result<InstanceTypes> InstanceTypesFromCatalog(const api::InstanceTypeCatalog& catalog) {
  InstanceTypes out;
  std::set<std::string> names;
  for (size_t i = 0; i < catalog.instance_types.size(); ++i) {
    const api::CatalogInstanceType& t = catalog.instance_types[i];
    const std::string where = "spec.instanceTypes[" + std::to_string(i) + "]";
    if (t.name.empty()) return core::Status::Invalid(where + ".name: required");
    const std::string named = where + " (" + t.name + ")";
    if (!names.insert(t.name).second) {
      return core::Status::Invalid(named + ".name: duplicate instance type \"" + t.name + "\"");
    }

    scheduling::Requirements reqs = scheduling::Requirements::FromLabels(t.labels);
    for (size_t j = 0; j < t.requirements.size(); ++j) {
      auto r = scheduling::Requirement::FromNodeSelectorRequirement(t.requirements[j]);
      if (!r.ok()) {
        return r.status().WithPrefix(named + ".requirements[" + std::to_string(j) + "]");
      }
      reqs.Add(*r);
    }

    api::ResourceList capacity = t.capacity;
    if (!capacity.Has(api::kResourcePods))
      capacity.Set(api::kResourcePods, api::Quantity::FromInt(110));

    Overhead overhead;
    if (t.overhead) {
      overhead = ToOverhead(*t.overhead);
    } else if (catalog.default_overhead) {
      overhead = ToOverhead(*catalog.default_overhead);
    }

    const std::vector<api::CatalogOffering>& source =
        t.offerings ? *t.offerings : catalog.default_offerings;
    std::vector<Offering> offerings;
    for (size_t j = 0; j < source.size(); ++j) {
      const api::CatalogOffering& o = source[j];
      const std::string field =
          (t.offerings ? named + ".offerings[" : std::string("spec.defaults.offerings[")) +
          std::to_string(j) + "]";
      if (o.zone.empty()) return core::Status::Invalid(field + ".zone: required");
      if (!KnownCapacityType(o.capacity_type)) {
        return core::Status::Invalid(field + ".capacityType: \"" + o.capacity_type +
                                     "\" is not one of spot, on-demand, reserved");
      }
      offerings.push_back(Offering{
          o.zone, o.capacity_type, o.price.value_or(t.price.value_or(0)), o.available, {}});
    }
    out.push_back(NewInstanceType(t.name, std::move(reqs), std::move(capacity), std::move(overhead),
                                  std::move(offerings)));
  }
  SortByName(out);
  return out;
}

scheduling::LabelKeySet CatalogWellKnownLabels(const api::InstanceTypeCatalog& catalog) {
  return scheduling::WellKnownLabels().With(catalog.well_known_labels);
}

}  // namespace nodesmith::cloud
