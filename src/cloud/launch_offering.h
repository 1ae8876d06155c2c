// The launch rule every provider that picks its own offering shares (the simulated cloud, the
// kwok provider): among a NodeClaim's compatible instance types, the cheapest available
// compatible offering — ties broken by instance-type name, then zone, then capacity type, so the
// choice is deterministic — and the labels a node launched there carries.
#pragma once

#include <functional>
#include <string>
#include <vector>

#include "api/meta.h"
#include "api/nodeclaim.h"
#include "cloud/instance_type.h"
#include "cloud/offering_ref.h"
#include "core/status.h"
#include "scheduling/requirements.h"
#include "scheduling/well_known_labels.h"

namespace nodesmith::cloud {

struct LaunchChoice {
  const InstanceType* type = nullptr;  // points into the instance types searched
  const Offering* offering = nullptr;
};

struct LaunchSearch {
  // Label keys treated as well-known when matching instance types (undefined ones allowed).
  const scheduling::LabelKeySet* well_known_labels = nullptr;  // null: Karpenter's default set
  // An offering the provider cannot launch now beyond its own `available` flag (an
  // insufficient-capacity window); none when empty.
  std::function<bool(const OfferingRef&)> unavailable;
  // Names the catalog in the error message ("aws", "kwok", a file).
  std::string catalog_source;
};

// Every available offering compatible with the NodeClaim's requirements, of the types whose
// requirements it is compatible with and whose allocatable fits its resource requests, cheapest
// first (ties: instance-type name, zone, capacity type). Each compatible offering that was
// unavailable is appended to `*tried` (sorted) when given. An EC2 fleet launches from all of
// them; a provider that picks one takes the first.
std::vector<LaunchChoice> CompatibleOfferings(const std::vector<InstanceTypePtr>& types,
                                              const api::NodeClaim& node_claim,
                                              const LaunchSearch& search,
                                              std::vector<OfferingRef>* tried = nullptr);

// The insufficient-capacity error for a NodeClaim none of whose offerings could be chosen:
// `tried` are the compatible but unavailable ones (none: nothing was compatible).
core::Status NoLaunchableOffering(const api::NodeClaim& node_claim, const LaunchSearch& search,
                                  const std::vector<OfferingRef>& tried);

// The cheapest available offering compatible with the NodeClaim's requirements among the types
// whose requirements it is compatible with and whose allocatable fits its resource requests.
// Every compatible offering that was unavailable is appended to `*tried` (sorted) when given.
// kUnavailable ("insufficient capacity: ...") when there is none.
core::Result<LaunchChoice> ChooseLaunchOffering(const std::vector<InstanceTypePtr>& types,
                                                const api::NodeClaim& node_claim,
                                                const LaunchSearch& search,
                                                std::vector<OfferingRef>* tried = nullptr);

// The labels a node launched as `type` in `offering` carries, for a NodeClaim with `reqs`: the
// type's single-valued requirements, the offering's, zone, capacity type, the region (when not
// empty), and kubernetes.io/arch and os (which every kubelet reports) resolved within the
// NodeClaim's requirements when the type allows several.
api::Labels LaunchLabels(const InstanceType& type, const Offering& offering,
                         const scheduling::Requirements& reqs, const std::string& region);

// The NodeClaim as launched as `type` in `offering`: the labels of its single-valued `In`
// requirements, the instance type's, and LaunchLabels; status.providerID, capacity and
// allocatable. Every provider returns this from Create.
api::NodeClaim LaunchedNodeClaim(const api::NodeClaim& node_claim, const InstanceType& type,
                                 const Offering& offering, const std::string& region,
                                 const std::string& provider_id);

// "a/b/c, d/e/f and 3 more": at most 10 offerings named.
std::string DescribeOfferings(const std::vector<OfferingRef>& offerings);

}  // namespace nodesmith::cloud
