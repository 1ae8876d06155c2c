#include "cloud/launch_offering.h"

#include <algorithm>
#include <tuple>

namespace nodesmith::cloud {

namespace s = scheduling;

namespace {

// Offerings named in an insufficient-capacity message before "and N more".
constexpr size_t kMaxOfferingsInMessage = 10;

}  // namespace

std::vector<LaunchChoice> CompatibleOfferings(const std::vector<InstanceTypePtr>& types,
                                              const api::NodeClaim& node_claim,
                                              const LaunchSearch& search,
                                              std::vector<OfferingRef>* tried_out) {
  const s::Requirements reqs =
      s::Requirements::FromNodeSelectorRequirements(node_claim.spec.requirements);
  const s::LabelKeySet& well_known =
      search.well_known_labels ? *search.well_known_labels : s::WellKnownLabels();
  const s::CompatibilityOptions type_options = s::AllowUndefined(well_known);
  // As Karpenter's Offerings.Compatible: zone and capacity type need not be constrained.
  const s::CompatibilityOptions offering_options = s::AllowUndefinedWellKnownLabels();

  std::vector<LaunchChoice> choices;
  std::vector<OfferingRef> tried;
  for (const InstanceTypePtr& type : types) {
    if (!reqs.IsCompatible(type->requirements, type_options)) continue;
    if (!node_claim.spec.resource_requests.Fits(type->allocatable)) continue;
    for (const Offering& o : type->offerings) {
      if (!reqs.IsCompatible(o.requirements, offering_options)) continue;
      OfferingRef ref{type->name, o.zone, o.capacity_type};
      if (!o.available || (search.unavailable && search.unavailable(ref))) {
        tried.push_back(std::move(ref));
        continue;
      }
      choices.push_back({type.get(), &o});
    }
  }
  std::sort(choices.begin(), choices.end(), [](const LaunchChoice& a, const LaunchChoice& b) {
    return std::tie(a.offering->price, a.type->name, a.offering->zone, a.offering->capacity_type) <
           std::tie(b.offering->price, b.type->name, b.offering->zone, b.offering->capacity_type);
  });
  std::sort(tried.begin(), tried.end());
  if (tried_out) tried_out->insert(tried_out->end(), tried.begin(), tried.end());
  return choices;
}

core::Status NoLaunchableOffering(const api::NodeClaim& node_claim, const LaunchSearch& search,
                                  const std::vector<OfferingRef>& tried) {
  const std::string claim = node_claim.metadata.name.empty() ? "" : " " + node_claim.metadata.name;
  if (tried.empty()) {
    return core::Status::Unavailable("insufficient capacity: no instance type in catalog " +
                                     search.catalog_source + " is compatible with NodeClaim" +
                                     claim + "'s requirements and resource requests");
  }
  return core::Status::Unavailable("insufficient capacity: all " + std::to_string(tried.size()) +
                                   " compatible offerings for NodeClaim" + claim +
                                   " are unavailable: " + DescribeOfferings(tried));
}

core::Result<LaunchChoice> ChooseLaunchOffering(const std::vector<InstanceTypePtr>& types,
                                                const api::NodeClaim& node_claim,
                                                const LaunchSearch& search,
                                                std::vector<OfferingRef>* tried_out) {
  std::vector<OfferingRef> tried;
  std::vector<LaunchChoice> choices = CompatibleOfferings(types, node_claim, search, &tried);
  if (tried_out) tried_out->insert(tried_out->end(), tried.begin(), tried.end());
  if (!choices.empty()) return choices.front();
  return NoLaunchableOffering(node_claim, search, tried);
}

api::NodeClaim LaunchedNodeClaim(const api::NodeClaim& node_claim, const InstanceType& type,
                                 const Offering& offering, const std::string& region,
                                 const std::string& provider_id) {
  const s::Requirements reqs =
      s::Requirements::FromNodeSelectorRequirements(node_claim.spec.requirements);
  api::NodeClaim launched = node_claim;
  for (const auto& r : node_claim.spec.requirements) {
    if (r.op == "In" && r.values.size() == 1) launched.metadata.labels[r.key] = r.values[0];
  }
  launched.metadata.labels[s::kLabelInstanceTypeStable] = type.name;
  for (auto& [key, value] : LaunchLabels(type, offering, reqs, region)) {
    launched.metadata.labels[key] = value;
  }
  launched.status.provider_id = provider_id;
  launched.status.capacity = type.capacity;
  launched.status.allocatable = type.allocatable;
  return launched;
}

api::Labels LaunchLabels(const InstanceType& type, const Offering& offering,
                         const s::Requirements& reqs, const std::string& region) {
  api::Labels labels = type.requirements.SingleValuedLabels();
  for (const char* key : {s::kLabelArchStable, s::kLabelOSStable}) {
    if (labels.count(key) != 0) continue;
    const s::Requirement* allowed = type.requirements.Find(key);
    if (allowed == nullptr) continue;
    const std::string value = allowed->Intersection(reqs.Get(key)).Any();
    if (!value.empty()) labels[key] = value;
  }
  for (const auto& [key, value] : offering.requirements.SingleValuedLabels()) labels[key] = value;
  labels[s::kLabelTopologyZone] = offering.zone;
  labels[s::kLabelCapacityType] = offering.capacity_type;
  if (!region.empty()) labels[s::kLabelTopologyRegion] = region;
  return labels;
}

std::string DescribeOfferings(const std::vector<OfferingRef>& offerings) {
  std::string out;
  for (size_t i = 0; i < offerings.size() && i < kMaxOfferingsInMessage; ++i) {
    if (i > 0) out += ", ";
    out += offerings[i].String();
  }
  if (offerings.size() > kMaxOfferingsInMessage) {
    out += " and " + std::to_string(offerings.size() - kMaxOfferingsInMessage) + " more";
  }
  return out;
}

}  // namespace nodesmith::cloud
