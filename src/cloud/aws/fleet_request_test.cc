// A NodeClaim as the instant fleet that launches it, and the fleet's answer as the outcome.
#include "cloud/aws/fleet_request.h"

#include <gmock/gmock.h>
#include <gtest/gtest.h>

#include <set>

#include "cloud/aws_catalog.h"

namespace nodesmith::aws {
namespace {

using ::testing::HasSubstr;

cloud::InstanceTypes Catalog() {
  cloud::AwsCatalogOptions options;
  options.region = "us-west-2";
  auto types = cloud::AwsInstanceTypes(options);
  EXPECT_TRUE(types.ok());
  return types.ok() ? *types : cloud::InstanceTypes{};
}

api::NodeClaim Claim(std::vector<api::NodeSelectorRequirement> reqs, const char* cpu = "3") {
  api::NodeClaim c;
  c.metadata.name = "default-abcde";
  c.spec.requirements = std::move(reqs);
  c.spec.resource_requests = api::ResourceList{{"cpu", api::Quantity::MustParse(cpu)}};
  return c;
}

FleetPlanInput Input(const api::NodeClaim* claim) {
  FleetPlanInput in;
  in.instance_types = Catalog();
  in.node_claim = claim;
  in.zonal_subnets = {{"subnet-a", "us-west-2a", "", "", 100, {}}, {"subnet-b", "us-west-2b", "", "", 100, {}}};
  in.has_image = [](const cloud::InstanceType&) { return true; };
  in.launch_template_for = [](const cloud::InstanceType& t) -> core::Result<std::string> {
    return std::string(t.requirements.Find("kubernetes.io/arch")->Any() == "amd64" ? "karpenter.k8s.aws/1"
                                                                                  : "karpenter.k8s.aws/2");
  };
  in.search.catalog_source = "aws";
  in.tags = LaunchTags("demo", "default", "default", {});
  return in;
}

// Graviton's c6g is cheaper than c5: the arm64 template's config comes first, although the
// amd64 template's name sorts first.
TEST(FleetRequestTest, TheTemplateOfTheCheapestOfferingComesFirst) {
  api::NodeClaim claim = Claim({{"karpenter.sh/capacity-type", "In", {"spot"}, std::nullopt},
                                {"karpenter.k8s.aws/instance-family", "In", {"c5", "c6g"}, std::nullopt}});
  auto plan = PlanFleet(Input(&claim));
  ASSERT_TRUE(plan.ok()) << plan.status().message();
  ASSERT_EQ(plan->request.configs.size(), 2u);
  EXPECT_EQ(plan->request.configs[0].launch_template_name, "karpenter.k8s.aws/2");
  EXPECT_EQ(plan->request.configs[0].overrides[0].instance_type.rfind("c6g.", 0), 0u)
      << plan->request.configs[0].overrides[0].instance_type;
  EXPECT_LE(*plan->request.configs[0].overrides[0].priority,
            *plan->request.configs[1].overrides[0].priority);
}

TEST(FleetRequestTest, ASpotCapableClaimIsASpotFleetOverTheCheapestTypesInZonesWithSubnets) {
  api::NodeClaim claim = Claim({{"karpenter.sh/capacity-type", "In", {"spot", "on-demand"}, std::nullopt},
                                {"karpenter.k8s.aws/instance-family", "In", {"m5", "c5"}, std::nullopt}});
  auto plan = PlanFleet(Input(&claim));
  ASSERT_TRUE(plan.ok()) << plan.status().message();
  EXPECT_EQ(plan->request.capacity_type, "spot");
  ASSERT_EQ(plan->request.configs.size(), 1u);  // m5 and c5 are amd64: one template
  const auto& overrides = plan->request.configs[0].overrides;
  ASSERT_FALSE(overrides.empty());
  for (const FleetOverride& o : overrides) {
    EXPECT_TRUE(o.instance_type.rfind("m5.", 0) == 0 || o.instance_type.rfind("c5.", 0) == 0) << o.instance_type;
    EXPECT_NE(o.zone, "us-west-2c");  // no subnet there
    EXPECT_EQ(o.subnet_id, o.zone == "us-west-2a" ? "subnet-a" : "subnet-b");
  }
  for (size_t i = 1; i < overrides.size(); ++i) EXPECT_LE(*overrides[i - 1].priority, *overrides[i].priority);
  // 3 CPUs do not fit a large (2 vCPUs): the cheapest is an xlarge.
  EXPECT_EQ(overrides[0].instance_type, "c5.xlarge");
}

TEST(FleetRequestTest, OnDemandOnlyClaimsAreOnDemandFleetsAndAtMostSixtyTypes) {
  api::NodeClaim claim = Claim({{"karpenter.sh/capacity-type", "In", {"on-demand"}, std::nullopt}}, "1");
  auto plan = PlanFleet(Input(&claim));
  ASSERT_TRUE(plan.ok()) << plan.status().message();
  EXPECT_EQ(plan->request.capacity_type, "on-demand");
  std::set<std::string> types;
  for (const auto& c : plan->request.configs)
    for (const auto& o : c.overrides) types.insert(o.instance_type);
  EXPECT_EQ(types.size(), static_cast<size_t>(kMaxFleetInstanceTypes));
  EXPECT_EQ(plan->request.configs.size(), 2u);  // amd64 and arm64 templates
}

TEST(FleetRequestTest, UnavailableOfferingsAreLeftOutAndNoneLeftIsInsufficientCapacity) {
  api::NodeClaim claim = Claim({{"node.kubernetes.io/instance-type", "In", {"m5.xlarge"}, std::nullopt},
                                {"karpenter.sh/capacity-type", "In", {"spot"}, std::nullopt}});
  FleetPlanInput in = Input(&claim);
  in.search.unavailable = [](const cloud::OfferingRef& o) { return o.zone == "us-west-2a"; };
  auto plan = PlanFleet(in);
  ASSERT_TRUE(plan.ok());
  ASSERT_EQ(plan->request.configs[0].overrides.size(), 1u);
  EXPECT_EQ(plan->request.configs[0].overrides[0].zone, "us-west-2b");
  in.search.unavailable = [](const cloud::OfferingRef&) { return true; };
  auto none = PlanFleet(in);
  ASSERT_FALSE(none.ok());
  EXPECT_EQ(none.status().code(), core::StatusCode::kUnavailable);
  EXPECT_THAT(none.status().message(), HasSubstr("insufficient capacity"));
}

TEST(FleetRequestTest, NodesmithsTagsWinOverTheUsersAndComeSorted) {
  Tags tags = LaunchTags("demo", "gpu", "default", {{"team", "ml"}, {"karpenter.sh/nodepool", "spoofed"}});
  EXPECT_EQ(tags, (Tags{{"eks:eks-cluster-name", "demo"},
                        {"karpenter.k8s.aws/ec2nodeclass", "default"},
                        {"karpenter.sh/nodepool", "gpu"},
                        {"kubernetes.io/cluster/demo", "owned"},
                        {"team", "ml"}}));
}

TEST(FleetRequestTest, TheLaunchTemplateNameIsAStableHashOfItsInputs) {
  LaunchTemplateData a;
  a.image_id = "ami-1";
  a.user_data = "ZWNobyBoaQ==";
  LaunchTemplateData b = a;
  EXPECT_EQ(LaunchTemplateName(a), LaunchTemplateName(b));
  EXPECT_EQ(LaunchTemplateName(a).rfind("karpenter.k8s.aws/", 0), 0u);
  b.image_id = "ami-2";
  EXPECT_NE(LaunchTemplateName(a), LaunchTemplateName(b));
  b = a;
  b.metadata.http_put_response_hop_limit = 2;
  EXPECT_NE(LaunchTemplateName(a), LaunchTemplateName(b));
}

TEST(FleetRequestTest, AFleetAnswerIsAnInstanceOrTheReasonThereIsNone) {
  api::NodeClaim claim = Claim({{"node.kubernetes.io/instance-type", "In", {"m5.xlarge"}, std::nullopt}});
  auto plan = PlanFleet(Input(&claim));
  ASSERT_TRUE(plan.ok());
  CreateFleetResult launched{"fleet-1", {{"i-1", "m5.xlarge", "us-west-2b", "subnet-b", "spot"}}, {}};
  FleetOutcome ok = InterpretFleet(launched, *plan, 1, claim.metadata.name);
  ASSERT_EQ(ok.instances.size(), 1u);
  EXPECT_EQ(ok.instances[0].instance_id, "i-1");

  CreateFleetResult ice{"fleet-2", {},
                        {{"InsufficientInstanceCapacity", "no capacity", "m5.xlarge", "us-west-2a", "subnet-a"},
                         {"InsufficientInstanceCapacity", "no capacity", "m5.xlarge", "us-west-2b", "subnet-b"}}};
  FleetOutcome full = InterpretFleet(ice, *plan, 1, claim.metadata.name);
  EXPECT_TRUE(full.instances.empty());
  EXPECT_EQ(full.error.code(), core::StatusCode::kUnavailable);
  ASSERT_EQ(full.unavailable.size(), 2u);
  EXPECT_EQ(full.unavailable[0].String(), "m5.xlarge/us-west-2a/" + plan->request.capacity_type);

  CreateFleetResult bad{"fleet-3", {},
                        {{"InvalidLaunchTemplateName.NotFoundException", "no template", "", "", ""}}};
  FleetOutcome failed = InterpretFleet(bad, *plan, 1, claim.metadata.name);
  EXPECT_EQ(failed.error.code(), core::StatusCode::kInternal);
  EXPECT_THAT(failed.error.message(), HasSubstr("InvalidLaunchTemplateName.NotFoundException: no template"));
  EXPECT_TRUE(failed.unavailable.empty());
}

TEST(FleetRequestTest, TypesOfDifferentMaxPodsLaunchFromTemplatesOfTheirOwn) {
  // m5.xlarge and m5.2xlarge allow 58 pods, m5.4xlarge 234: two templates, each type's override
  // in its own.
  api::NodeClaim claim = Claim({{"node.kubernetes.io/instance-type", "In",
                                 {"m5.xlarge", "m5.2xlarge", "m5.4xlarge"}, std::nullopt}}, "1");
  FleetPlanInput in = Input(&claim);
  std::vector<std::string> asked;
  in.launch_template_for = [&](const cloud::InstanceType& t) -> core::Result<std::string> {
    asked.push_back(t.name);
    return "karpenter.k8s.aws/pods-" + std::to_string(t.capacity.Get("pods").Value());
  };
  auto plan = PlanFleet(in);
  ASSERT_TRUE(plan.ok()) << plan.status().message();
  std::map<std::string, std::set<std::string>> types_of;
  for (const FleetLaunchTemplateConfig& c : plan->request.configs)
    for (const FleetOverride& o : c.overrides) types_of[c.launch_template_name].insert(o.instance_type);
  EXPECT_EQ(types_of["karpenter.k8s.aws/pods-58"], (std::set<std::string>{"m5.xlarge", "m5.2xlarge"}));
  EXPECT_EQ(types_of["karpenter.k8s.aws/pods-234"], (std::set<std::string>{"m5.4xlarge"}));
  EXPECT_EQ(types_of.size(), 2u);

  // A template that cannot be made fails the plan with its reason.
  in.launch_template_for = [](const cloud::InstanceType&) -> core::Result<std::string> {
    return core::Status::Internal("CreateLaunchTemplate refused");
  };
  EXPECT_EQ(PlanFleet(in).status().message(), "CreateLaunchTemplate refused");
}

TEST(FleetRequestTest, ABatchedFleetGivesEachLaunchOneInstanceAndTheRestTheReason) {
  api::NodeClaim claim = Claim({{"node.kubernetes.io/instance-type", "In", {"m5.xlarge"}, std::nullopt}});
  auto plan = PlanFleet(Input(&claim));
  ASSERT_TRUE(plan.ok());
  // Three launches asked for, two instances given: the third is short of capacity.
  CreateFleetResult partial{"fleet-4",
                            {{"i-1", "m5.xlarge", "us-west-2a", "subnet-a", "spot"},
                             {"i-2", "m5.xlarge", "us-west-2a", "subnet-a", "spot"}},
                            {{"InsufficientInstanceCapacity", "no capacity", "m5.xlarge", "us-west-2b", "subnet-b"}}};
  FleetOutcome out = InterpretFleet(partial, *plan, 3, "a, b, c");
  ASSERT_EQ(out.instances.size(), 2u);
  EXPECT_EQ(out.instances[1].instance_id, "i-2");
  EXPECT_EQ(out.error.code(), core::StatusCode::kUnavailable);
  EXPECT_THAT(out.error.message(), HasSubstr("(2 of 3 launched)"));
  ASSERT_EQ(out.unavailable.size(), 1u);
  EXPECT_EQ(out.unavailable[0].zone, "us-west-2b");

  // More instances than asked for are not handed out; nothing short, no error.
  FleetOutcome extra = InterpretFleet(partial, *plan, 1, "a");
  ASSERT_EQ(extra.instances.size(), 1u);
  EXPECT_TRUE(extra.error.ok());

  // Short without any error: a launch failure, not insufficient capacity.
  CreateFleetResult quiet{"fleet-5", {{"i-1", "m5.xlarge", "us-west-2a", "subnet-a", "spot"}}, {}};
  FleetOutcome short_by = InterpretFleet(quiet, *plan, 2, "a, b");
  EXPECT_EQ(short_by.error.code(), core::StatusCode::kInternal);
  EXPECT_THAT(short_by.error.message(), HasSubstr("without an instance or an error"));
}

}  // namespace
}  // namespace nodesmith::aws
