// The EC2 client against moto: each call nodesmith makes, as moto's EC2 answers it.
#include "cloud/aws/ec2_client.h"

#include <gmock/gmock.h>
#include <gtest/gtest.h>

#include "moto_test_env.h"

namespace nodesmith::aws {
namespace {

using ::testing::HasSubstr;
using nodesmith::testing::MotoSession;
using nodesmith::testing::ResetMoto;

std::string TagValue(const Tags& tags, const std::string& key) {
  for (const auto& [k, v] : tags)
    if (k == key) return v;
  return "";
}

class Ec2ClientMotoTest : public ::testing::Test {
 protected:
  void SetUp() override {
    ResetMoto();
    session_ = MotoSession(&clock_);
    ASSERT_NE(session_, nullptr);
  }
  Ec2Client& ec2() { return session_->ec2(); }

  using Network = nodesmith::testing::TestNetwork;
  Network MakeNetwork() { return nodesmith::testing::MakeTestNetwork(*session_); }

  std::string SomeImage() {
    auto images = ec2().DescribeImages({}, {}, {"amazon"});
    EXPECT_TRUE(images.ok() && !images->empty());
    return images.ok() && !images->empty() ? (*images)[0].id : "";
  }

  core::SystemClock clock_;
  std::unique_ptr<AwsSession> session_;
};

TEST_F(Ec2ClientMotoTest, ThrottlingIsRetriedUntilTheAnswerComes) {
  MakeNetwork();
  nodesmith::testing::InjectMotoFault("DescribeSubnets", "RequestLimitExceeded", "Request limit exceeded.",
                                      std::nullopt, 2);
  const uint64_t before = session_->attempts_sent();
  auto subnets = ec2().DescribeSubnets({{"tag:karpenter.sh/discovery", {"demo"}}});
  ASSERT_TRUE(subnets.ok()) << subnets.status().message();
  EXPECT_EQ(subnets->size(), 2u);
  EXPECT_EQ(session_->attempts_sent() - before, 3u) << "two throttled attempts, then the answer";
}

TEST_F(Ec2ClientMotoTest, AServerErrorThatLastsIsRetriedThenReportedWithItsCode) {
  nodesmith::testing::InjectMotoFault("DescribeSecurityGroups", "InternalError",
                                      "An internal error has occurred.");
  const uint64_t before = session_->attempts_sent();
  auto groups = ec2().DescribeSecurityGroups({{"tag:karpenter.sh/discovery", {"demo"}}});
  ASSERT_FALSE(groups.ok());
  EXPECT_EQ(groups.status().code(), core::StatusCode::kUnavailable);
  EXPECT_EQ(ErrorCodeOf(groups.status()), "InternalError");
  EXPECT_THAT(groups.status().message(), HasSubstr("DescribeSecurityGroups"));
  EXPECT_EQ(session_->attempts_sent() - before, 3u) << "AWS_MAX_ATTEMPTS' default";
}

TEST_F(Ec2ClientMotoTest, SubnetsAndSecurityGroupsAreFoundByTheirDiscoveryTag) {
  Network n = MakeNetwork();
  auto subnets = ec2().DescribeSubnets({{"tag:karpenter.sh/discovery", {"demo"}}});
  ASSERT_TRUE(subnets.ok()) << subnets.status().message();
  ASSERT_EQ(subnets->size(), 2u);
  for (const Subnet& s : *subnets) {
    EXPECT_EQ(s.vpc_id, n.vpc);
    EXPECT_GT(s.available_ip_addresses, 200);
    EXPECT_EQ(TagValue(s.tags, "karpenter.sh/discovery"), "demo");
  }
  auto by_id = ec2().DescribeSubnets({}, {n.subnet_b});
  ASSERT_TRUE(by_id.ok());
  ASSERT_EQ(by_id->size(), 1u);
  EXPECT_EQ((*by_id)[0].zone, "us-west-2b");
  auto groups = ec2().DescribeSecurityGroups({{"group-name", {"nodes"}}});
  ASSERT_TRUE(groups.ok()) << groups.status().message();
  ASSERT_EQ(groups->size(), 1u);
  EXPECT_EQ((*groups)[0].id, n.group);
  auto none = ec2().DescribeSubnets({{"tag:karpenter.sh/discovery", {"other"}}});
  ASSERT_TRUE(none.ok());
  EXPECT_TRUE(none->empty());
}

TEST_F(Ec2ClientMotoTest, AnUnknownIdIsNotFoundWithTheServiceCode) {
  auto r = ec2().DescribeSubnets({}, {"subnet-00000000000000000"});
  ASSERT_FALSE(r.ok());
  EXPECT_EQ(r.status().code(), core::StatusCode::kNotFound);
  EXPECT_EQ(ErrorCodeOf(r.status()), "InvalidSubnetID.NotFound");
  EXPECT_THAT(r.status().message(), HasSubstr("(ec2 DescribeSubnets, request id "));
}

TEST_F(Ec2ClientMotoTest, ImagesZonesAndInstanceTypesAreListed) {
  EXPECT_FALSE(SomeImage().empty());
  auto zones = ec2().DescribeAvailabilityZones();
  ASSERT_TRUE(zones.ok()) << zones.status().message();
  EXPECT_GE(zones->size(), 3u);
  auto offerings = ec2().DescribeInstanceTypeOfferings();
  ASSERT_TRUE(offerings.ok()) << offerings.status().message();
  EXPECT_GT(offerings->size(), 100u);
  auto pages = ec2().DescribeInstanceTypesPages(
      {{"supported-virtualization-type", {"hvm"}}, {"processor-info.supported-architecture", {"x86_64", "arm64"}}});
  ASSERT_TRUE(pages.ok()) << pages.status().message();
  size_t types = 0;
  for (const XmlAnswer& page : *pages) {
    for (pugi::xml_node item : page.root.child("instanceTypeSet").children("item")) {
      ++types;
      EXPECT_GT(item.child("vCpuInfo").child("defaultVCpus").text().as_int(), 0);
    }
  }
  EXPECT_GT(types, 100u);
}

TEST_F(Ec2ClientMotoTest, ALaunchTemplateIsCreatedFoundAndDeleted) {
  Network n = MakeNetwork();
  LaunchTemplateData data;
  data.image_id = SomeImage();
  data.user_data = "IyEvYmluL2Jhc2gK";
  data.security_group_ids = {n.group};
  data.block_devices.push_back({"/dev/xvda", 20, "gp3", true, true, std::nullopt, std::nullopt, "", ""});
  auto lt = ec2().CreateLaunchTemplate("karpenter.k8s.aws/123", data, {{"karpenter.k8s.aws/cluster", "demo"}});
  ASSERT_TRUE(lt.ok()) << lt.status().message();
  EXPECT_EQ(lt->name, "karpenter.k8s.aws/123");
  auto found = ec2().DescribeLaunchTemplates({{"tag:karpenter.k8s.aws/cluster", {"demo"}}});
  ASSERT_TRUE(found.ok()) << found.status().message();
  ASSERT_EQ(found->size(), 1u);
  EXPECT_EQ((*found)[0].id, lt->id);
  auto again = ec2().CreateLaunchTemplate("karpenter.k8s.aws/123", data, {});
  ASSERT_FALSE(again.ok());
  EXPECT_EQ(ErrorCodeOf(again.status()), "InvalidLaunchTemplateName.AlreadyExistsException");
  ASSERT_TRUE(ec2().DeleteLaunchTemplate("karpenter.k8s.aws/123").ok());
  auto gone = ec2().DescribeLaunchTemplates({}, {"karpenter.k8s.aws/123"});
  EXPECT_TRUE(!gone.ok() || gone->empty());
}

TEST_F(Ec2ClientMotoTest, AnInstantFleetLaunchesTaggedInstancesThatTerminate) {
  Network n = MakeNetwork();
  LaunchTemplateData data;
  data.image_id = SomeImage();
  data.security_group_ids = {n.group};
  ASSERT_TRUE(ec2().CreateLaunchTemplate("karpenter.k8s.aws/fleet", data, {}).ok());
  CreateFleetRequest request;
  request.capacity_type = "on-demand";
  request.total_target_capacity = 2;
  request.configs.push_back({"karpenter.k8s.aws/fleet",
                             {{"m5.large", n.subnet_a, "us-west-2a", "", 0.096},
                              {"m5.large", n.subnet_b, "us-west-2b", "", 0.096}}});
  request.tags = {{"karpenter.sh/nodepool", "default"}, {"kubernetes.io/cluster/demo", "owned"}};
  auto fleet = ec2().CreateFleet(request);
  ASSERT_TRUE(fleet.ok()) << fleet.status().message();
  EXPECT_FALSE(fleet->fleet_id.empty());
  ASSERT_EQ(fleet->instances.size(), 2u);
  EXPECT_TRUE(fleet->errors.empty());
  std::vector<std::string> ids;
  for (const FleetInstance& i : fleet->instances) ids.push_back(i.instance_id);

  auto described = ec2().DescribeInstances({{"instance-state-name", {"pending", "running"}}}, ids);
  ASSERT_TRUE(described.ok()) << described.status().message();
  ASSERT_EQ(described->size(), 2u);
  for (const Instance& i : *described) {
    EXPECT_EQ(i.type, "m5.large");
    EXPECT_FALSE(i.is_spot());
    EXPECT_EQ(TagValue(i.tags, "karpenter.sh/nodepool"), "default");
  }
  auto by_tag = ec2().DescribeInstances({{"tag:karpenter.sh/nodepool", {"default"}}});
  ASSERT_TRUE(by_tag.ok());
  EXPECT_EQ(by_tag->size(), 2u);

  ASSERT_TRUE(ec2().CreateTags({ids[0]}, {{"Name", "node-1"}}).ok());
  auto named = ec2().DescribeInstances({}, {ids[0]});
  ASSERT_TRUE(named.ok() && named->size() == 1);
  EXPECT_EQ(TagValue((*named)[0].tags, "Name"), "node-1");

  auto terminated = ec2().TerminateInstances(ids);
  ASSERT_TRUE(terminated.ok()) << terminated.status().message();
  EXPECT_EQ(terminated->size(), 2u);
  auto live = ec2().DescribeInstances({{"instance-state-name", {"pending", "running"}}}, {});
  ASSERT_TRUE(live.ok());
  EXPECT_TRUE(live->empty());
}

TEST_F(Ec2ClientMotoTest, ASpotFleetReportsItsInstancesAsSpot) {
  Network n = MakeNetwork();
  LaunchTemplateData data;
  data.image_id = SomeImage();
  ASSERT_TRUE(ec2().CreateLaunchTemplate("karpenter.k8s.aws/spot", data, {}).ok());
  CreateFleetRequest request;
  request.capacity_type = "spot";
  request.configs.push_back({"karpenter.k8s.aws/spot", {{"c5.xlarge", n.subnet_a, "us-west-2a", "", std::nullopt}}});
  auto fleet = ec2().CreateFleet(request);
  ASSERT_TRUE(fleet.ok()) << fleet.status().message();
  ASSERT_EQ(fleet->instances.size(), 1u);
  auto described = ec2().DescribeInstances({}, {fleet->instances[0].instance_id});
  ASSERT_TRUE(described.ok() && described->size() == 1);
  EXPECT_TRUE((*described)[0].is_spot());  // moto reports InstanceLifecycle=spot
  EXPECT_EQ((*described)[0].zone, "us-west-2a");
}

}  // namespace
}  // namespace nodesmith::aws
