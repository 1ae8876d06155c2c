// What the aws cloud's set-up reads from the API server, as a specification.
#include "operator/aws_cloud.h"

#include <gmock/gmock.h>
#include <gtest/gtest.h>

namespace nodesmith::op {
namespace {

TEST(KubernetesMinorVersion, ReadsMajorAndMinorAsTheAmiAliasesNeedThem) {
  EXPECT_EQ(KubernetesMinorVersion(kube::Json::parse(R"({"major":"1","minor":"35","gitVersion":"v1.35.2"})")), "1.35");
  // EKS spells a minor "35+".
  EXPECT_EQ(KubernetesMinorVersion(kube::Json::parse(R"({"major":"1","minor":"35+","gitVersion":"v1.35.2-eks-1"})")), "1.35");
  // Some distributions leave major and minor empty: gitVersion says it.
  EXPECT_EQ(KubernetesMinorVersion(kube::Json::parse(R"({"major":"","minor":"","gitVersion":"v1.34.0-k3s1"})")), "1.34");
  EXPECT_EQ(KubernetesMinorVersion(kube::Json::parse(R"({"gitVersion":"unknown"})")), "");
  EXPECT_EQ(KubernetesMinorVersion(kube::Json::parse(R"("v1.35")")), "");
}

aws::EksCluster Eks() {
  aws::EksCluster c;
  c.name = "demo";
  c.endpoint = "https://ABCD.gr7.us-west-2.eks.amazonaws.com";
  c.ca_data = "LS0tQ0E=";
  c.service_ipv4_cidr = "172.20.0.0/16";
  return c;
}

TEST(CompleteFromEks, InsideTheClusterTheNodesJoinTheEksEndpointNotTheServiceIp) {
  aws::ClusterIdentity id;
  id.name = "demo";
  id.ca_bundle_base64 = "LS0tSU4tQ0xVU1RFUg==";  // the service account's CA: kept
  std::vector<std::string> warnings;
  int calls = 0;
  CompleteFromEks(id, "https://10.100.0.1:443", [&] { ++calls; return core::Result<aws::EksCluster>(Eks()); },
                  &warnings);
  EXPECT_EQ(calls, 1);
  EXPECT_EQ(id.endpoint, "https://ABCD.gr7.us-west-2.eks.amazonaws.com");
  EXPECT_EQ(id.ca_bundle_base64, "LS0tSU4tQ0xVU1RFUg==");
  EXPECT_EQ(id.service_cidr, "172.20.0.0/16") << "a cluster before 1.33 has no ServiceCIDR object";
  EXPECT_TRUE(warnings.empty());
}

TEST(CompleteFromEks, NothingMissingAsksEksNothing) {
  aws::ClusterIdentity id{"demo", "https://given", "LS0t", "10.0.0.10", "10.96.0.0/12", "1.35"};
  std::vector<std::string> warnings;
  CompleteFromEks(id, "https://10.100.0.1:443",
                  [&]() -> core::Result<aws::EksCluster> { ADD_FAILURE() << "asked EKS"; return Eks(); },
                  &warnings);
  EXPECT_EQ(id.endpoint, "https://given");
  EXPECT_EQ(id.service_cidr, "10.96.0.0/12");
}

TEST(CompleteFromEks, NoEksClusterFallsBackToTheApiServerAndSaysWhy) {
  aws::ClusterIdentity id;
  id.name = "kind";
  std::vector<std::string> warnings;
  CompleteFromEks(id, "https://127.0.0.1:6443", [] {
    return core::Result<aws::EksCluster>(core::Status::NotFound("No cluster found for name: kind."));
  }, &warnings);
  EXPECT_EQ(id.endpoint, "https://127.0.0.1:6443");
  EXPECT_TRUE(id.service_cidr.empty());
  ASSERT_EQ(warnings.size(), 1u);
  EXPECT_THAT(warnings[0], ::testing::HasSubstr("DescribeCluster kind: No cluster found for name: kind."));
  EXPECT_THAT(warnings[0], ::testing::HasSubstr("set CLUSTER_ENDPOINT"));
}

}  // namespace
}  // namespace nodesmith::op
