// The launch of one NodeClaim as EC2 sees it: the tags every resource carries, the launch
// template's name, the instant fleet's request, and what its answer means.
//
// PlanFleet follows Karpenter's instance provider: the capacity type is spot when the NodeClaim
// allows it and some compatible spot offering is available, else on-demand; the overrides are
// every compatible available offering of that capacity type in a zone the class has a subnet in,
// the 60 cheapest instance types at most, one launch template per image and max pods,
// the offering's price as its priority, the template of the cheapest override first. InterpretFleet hands out
// the instances of the answer, one per launch, as Karpenter's CreateFleet batcher does; the
// launches left without one failed for insufficient capacity when every error is a capacity
// error (the offerings tried are returned so the caller can mark them unavailable for 3
// minutes), with a launch failure naming the first other error otherwise. Pure functions.
#pragma once

#include <functional>
#include <map>
#include <set>
#include <string>
#include <vector>

#include "api/nodeclaim.h"
#include "cloud/aws/ec2_client.h"
#include "cloud/launch_offering.h"

namespace nodesmith::aws {

inline constexpr int kMaxFleetInstanceTypes = 60;
inline constexpr const char* kLaunchTemplateNamePrefix = "karpenter.k8s.aws/";

// The tag keys nodesmith puts on what it launches, as Karpenter's AWS provider names them.
inline constexpr const char* kTagNodePool = "karpenter.sh/nodepool";
inline constexpr const char* kTagNodeClaim = "karpenter.sh/nodeclaim";
inline constexpr const char* kTagNodeClass = "karpenter.k8s.aws/ec2nodeclass";
inline constexpr const char* kTagEksClusterName = "eks:eks-cluster-name";
inline constexpr const char* kTagName = "Name";

// The tags of a NodeClaim's fleet, instance, volumes and launch template: the EC2NodeClass's
// tags, then nodesmith's (which a user tag of the same key never overrides):
// kubernetes.io/cluster/<cluster>=owned, karpenter.sh/nodepool, eks:eks-cluster-name,
// karpenter.k8s.aws/ec2nodeclass. Sorted by key.
Tags LaunchTags(const std::string& cluster_name, const std::string& node_pool,
                const std::string& node_class, const std::map<std::string, std::string>& user_tags);

// "karpenter.k8s.aws/<decimal hash of everything the template holds>": the same inputs always
// give the same name, so launches with equal settings share one template.
std::string LaunchTemplateName(const LaunchTemplateData& data);

struct FleetPlanInput {
  std::vector<cloud::InstanceTypePtr> instance_types;  // the NodePool's, with offerings
  const api::NodeClaim* node_claim = nullptr;
  std::vector<Subnet> zonal_subnets;                   // one per zone (SubnetPerZone)
  // Whether the class has an image for the instance type (its architecture, its GPU).
  std::function<bool(const cloud::InstanceType&)> has_image;
  // The launch template an offered instance type launches from, made when missing (one per
  // image × max pods): called only for the types the request offers.
  std::function<core::Result<std::string>(const cloud::InstanceType&)> launch_template_for;
  cloud::LaunchSearch search;  // unavailable offerings, catalog name for messages
  Tags tags;
};

struct FleetPlan {
  CreateFleetRequest request;
  // The offering of each override, to price and label what the fleet launched.
  std::map<std::pair<std::string, std::string>, cloud::LaunchChoice> offering_of;  // (type, zone)
};

// kUnavailable (insufficient capacity, as ChooseLaunchOffering says it) when no offering is left.
core::Result<FleetPlan> PlanFleet(const FleetPlanInput& input);

struct FleetOutcome {
  // The instances launched, in the answer's order, at most as many as were asked for.
  std::vector<FleetInstance> instances;
  std::vector<cloud::OfferingRef> unavailable;     // to mark for 3 minutes
  core::Status error;                              // for the launches left without an instance
};

// The answer to a fleet of `wanted` instances (a batch of equal launches asks for several);
// `node_claims` names them in the error.
FleetOutcome InterpretFleet(const CreateFleetResult& result, const FleetPlan& plan, size_t wanted,
                            const std::string& node_claims);

}  // namespace nodesmith::aws
