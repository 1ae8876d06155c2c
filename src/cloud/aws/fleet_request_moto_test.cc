// A NodeClaim launched through moto's EC2: the launch template, the instant fleet as EC2
// received it (moto's recorder), the instance and its tags, and its termination.
#include "cloud/aws/fleet_request.h"

#include <gmock/gmock.h>
#include <gtest/gtest.h>

#include "cloud/aws_catalog.h"
#include "cloud/aws/nodeclass_selectors.h"
#include "cloud/aws/sigv4.h"
#include "moto_test_env.h"

namespace nodesmith::aws {
namespace {

using ::testing::HasSubstr;
using nodesmith::testing::MakeTestNetwork;
using nodesmith::testing::MotoEnvironment;
using nodesmith::testing::MotoSession;
using nodesmith::testing::MotoRecorder;
using nodesmith::testing::RecordedBodies;
using nodesmith::testing::ResetMoto;

std::string TagValue(const Tags& tags, const std::string& key) {
  for (const auto& [k, v] : tags)
    if (k == key) return v;
  return "";
}

TEST(FleetRequestMotoTest, ANodeClaimBecomesOneTaggedSpotFleetAndOneInstance) {
  ResetMoto();
  core::SystemClock clock;
  auto session = MotoSession(&clock);
  ASSERT_NE(session, nullptr);
  auto network = MakeTestNetwork(*session);
  auto images = session->ec2().DescribeImages({{"architecture", {"x86_64"}}}, {}, {"amazon"});
  ASSERT_TRUE(images.ok() && !images->empty());

  LaunchTemplateData data;
  data.image_id = (*images)[0].id;
  data.security_group_ids = {network.group};
  data.block_devices.push_back({"/dev/xvda", 20, "gp3", true, true, std::nullopt, std::nullopt, "", ""});
  Tags tags = LaunchTags("demo", "default", "default", {{"team", "platform"}});
  const std::string lt_name = LaunchTemplateName(data);
  ASSERT_TRUE(session->ec2().CreateLaunchTemplate(lt_name, data, tags).ok());

  api::NodeClaim claim;
  claim.metadata.name = "default-x7k2p";
  claim.spec.requirements = {{"karpenter.k8s.aws/instance-family", "In", {"m5", "c5"}, std::nullopt},
                             {"kubernetes.io/arch", "In", {"amd64"}, std::nullopt}};
  claim.spec.resource_requests = api::ResourceList{{"cpu", api::Quantity::MustParse("6")}};
  cloud::AwsCatalogOptions options;
  auto types = cloud::AwsInstanceTypes(options);
  ASSERT_TRUE(types.ok());
  FleetPlanInput in;
  in.instance_types = *types;
  in.node_claim = &claim;
  auto subnets = session->ec2().DescribeSubnets({{"tag:karpenter.sh/discovery", {"demo"}}});
  ASSERT_TRUE(subnets.ok());
  in.zonal_subnets = SubnetPerZone(*subnets);
  in.has_image = [](const cloud::InstanceType&) { return true; };
  in.launch_template_for = [&](const cloud::InstanceType&) -> core::Result<std::string> { return lt_name; };
  in.tags = tags;
  auto plan = PlanFleet(in);
  ASSERT_TRUE(plan.ok()) << plan.status().message();

  MotoRecorder("reset-recording");
  MotoRecorder("start-recording");
  auto fleet = session->ec2().CreateFleet(plan->request);
  MotoRecorder("stop-recording");
  ASSERT_TRUE(fleet.ok()) << fleet.status().message();
  FleetOutcome outcome = InterpretFleet(*fleet, *plan, 1, claim.metadata.name);
  ASSERT_EQ(outcome.instances.size(), 1u) << outcome.error.message();
  // moto launches the first override: the cheapest fitting type (8 vCPUs for 6 requested).
  EXPECT_EQ(outcome.instances[0].instance_type, plan->request.configs[0].overrides[0].instance_type);
  EXPECT_EQ(outcome.instances[0].instance_type, "c5.2xlarge");

  std::vector<std::string> sent = RecordedBodies("CreateFleet");
  ASSERT_EQ(sent.size(), 1u);
  const std::string& body = sent[0];
  EXPECT_THAT(body, HasSubstr("Type=instant"));
  EXPECT_THAT(body, HasSubstr("TargetCapacitySpecification.DefaultTargetCapacityType=spot"));
  EXPECT_THAT(body, HasSubstr("TargetCapacitySpecification.TotalTargetCapacity=1"));
  EXPECT_THAT(body, HasSubstr("SpotOptions.AllocationStrategy=price-capacity-optimized"));
  EXPECT_THAT(body, HasSubstr("LaunchTemplateConfigs.1.LaunchTemplateSpecification.LaunchTemplateName=" +
                              UriEncode(lt_name)));
  EXPECT_THAT(body, HasSubstr("LaunchTemplateConfigs.1.LaunchTemplateSpecification.Version=%24Latest"));
  EXPECT_THAT(body, HasSubstr("LaunchTemplateConfigs.1.Overrides.1.InstanceType=c5.2xlarge"));
  for (const char* type : {"fleet", "instance", "volume"}) EXPECT_THAT(body, HasSubstr(std::string("ResourceType=") + type));
  EXPECT_THAT(body, HasSubstr("Tag.1.Key=eks%3Aeks-cluster-name"));

  auto described = session->ec2().DescribeInstances({}, {outcome.instances[0].instance_id});
  ASSERT_TRUE(described.ok() && described->size() == 1);
  const Instance& instance = (*described)[0];
  EXPECT_TRUE(instance.is_spot());
  for (const char* key : {"karpenter.sh/nodepool", "eks:eks-cluster-name", "kubernetes.io/cluster/demo",
                          "karpenter.k8s.aws/ec2nodeclass", "team"})
    EXPECT_FALSE(TagValue(instance.tags, key).empty()) << key;
  auto gone = session->ec2().TerminateInstances({instance.id});
  ASSERT_TRUE(gone.ok());
  EXPECT_EQ(*gone, std::vector<std::string>{instance.id});
}

}  // namespace
}  // namespace nodesmith::aws
