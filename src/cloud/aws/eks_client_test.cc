// What nodesmith reads of a DescribeCluster answer, given the bytes EKS (or something in its
// place) sends back: the members the nodes' bootstrap needs, nothing else, and a clean error
// naming the cluster for an answer that is not one.
#include "cloud/aws/eks_client.h"

#include <gmock/gmock.h>
#include <gtest/gtest.h>

namespace nodesmith::aws {
namespace {

using ::testing::HasSubstr;

TEST(DecodeDescribeClusterAnswer, ReadsWhatTheNodesJoinWithAndIgnoresTheRest) {
  auto cluster = DecodeDescribeClusterAnswer("prod", R"({"cluster": {
      "name": "prod", "arn": "arn:aws:eks:us-west-2:111122223333:cluster/prod", "createdAt": 1.7e9,
      "version": "1.35", "endpoint": "https://ABCD.gr7.us-west-2.eks.amazonaws.com",
      "resourcesVpcConfig": {"subnetIds": ["subnet-1"]},
      "kubernetesNetworkConfig": {"serviceIpv4Cidr": "172.20.0.0/16", "ipFamily": "ipv4"},
      "status": "ACTIVE", "certificateAuthority": {"data": "LS0tLS1CRUdJTg=="}, "tags": {}}})");
  ASSERT_TRUE(cluster.ok()) << cluster.status().message();
  EXPECT_EQ(cluster->name, "prod");
  EXPECT_EQ(cluster->version, "1.35");
  EXPECT_EQ(cluster->endpoint, "https://ABCD.gr7.us-west-2.eks.amazonaws.com");
  EXPECT_EQ(cluster->service_ipv4_cidr, "172.20.0.0/16");
  EXPECT_EQ(cluster->service_ipv6_cidr, "");
  EXPECT_EQ(cluster->status, "ACTIVE");
  EXPECT_EQ(cluster->ca_data, "LS0tLS1CRUdJTg==");
}

TEST(DecodeDescribeClusterAnswer, AMemberOfTheWrongTypeReadsAsAbsent) {
  auto cluster = DecodeDescribeClusterAnswer(
      "prod", R"({"cluster": {"name": 5, "endpoint": null, "certificateAuthority": "data",
                  "kubernetesNetworkConfig": [1, 2], "version": {"major": 1}, "status": "ACTIVE"}})");
  ASSERT_TRUE(cluster.ok()) << cluster.status().message();
  EXPECT_EQ(cluster->name, "");
  EXPECT_EQ(cluster->endpoint, "");
  EXPECT_EQ(cluster->ca_data, "");
  EXPECT_EQ(cluster->service_ipv4_cidr, "");
  EXPECT_EQ(cluster->version, "");
  EXPECT_EQ(cluster->status, "ACTIVE");
}

TEST(DecodeDescribeClusterAnswer, AnAnswerThatIsNotAClusterIsAnErrorNamingIt) {
  for (const char* body : {"", "not json", "[]", "{}", R"({"cluster": "prod"})", "{\"cluster\": {\"name\": \"\xff\"}}"}) {
    auto cluster = DecodeDescribeClusterAnswer("prod", body);
    ASSERT_FALSE(cluster.ok()) << body;
    EXPECT_THAT(cluster.status().message(), HasSubstr("eks DescribeCluster prod: ")) << body;
  }
}

}  // namespace
}  // namespace nodesmith::aws
