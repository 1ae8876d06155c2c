// EKS's DescribeCluster against moto: a cluster created through the same signed REST-JSON
// client reads back with its endpoint, CA and service CIDR; a missing one is NotFound.
#include "cloud/aws/eks_client.h"

#include <gmock/gmock.h>
#include <gtest/gtest.h>

#include "moto_test_env.h"

namespace nodesmith::aws {
namespace {

using nodesmith::testing::MotoSession;
using nodesmith::testing::ResetMoto;

TEST(EksClientMotoTest, DescribeClusterReadsWhatTheNodesJoinWith) {
  ResetMoto();
  core::SystemClock clock;
  auto session = MotoSession(&clock);
  ASSERT_NE(session, nullptr);
  // moto's EKS: CreateCluster, as `aws eks create-cluster` sends it.
  ServiceRequest create;
  create.operation = "CreateCluster";
  create.method = "POST";
  create.path = "/clusters";
  create.headers.emplace_back("Content-Type", "application/json");
  create.body = nlohmann::json{{"name", "demo"},
                               {"roleArn", "arn:aws:iam::123456789012:role/eks"},
                               {"version", "1.32"},
                               {"resourcesVpcConfig", {{"subnetIds", {"subnet-1"}}}},
                               {"kubernetesNetworkConfig", {{"serviceIpv4Cidr", "172.20.0.0/16"}}}}
                    .dump();
  auto created = session->eks().Send(create, DecodeRestJsonError);
  ASSERT_TRUE(created.ok()) << created.status().message();

  EksClient eks(&session->eks());
  auto cluster = eks.DescribeCluster("demo");
  ASSERT_TRUE(cluster.ok()) << cluster.status().message();
  EXPECT_EQ(cluster->name, "demo");
  EXPECT_EQ(cluster->version, "1.32");
  EXPECT_EQ(cluster->service_ipv4_cidr, "172.20.0.0/16");
  EXPECT_EQ(cluster->endpoint.rfind("https://", 0), 0u) << cluster->endpoint;
  EXPECT_FALSE(cluster->ca_data.empty());

  auto missing = eks.DescribeCluster("nope");
  ASSERT_FALSE(missing.ok());
  EXPECT_EQ(missing.status().code(), core::StatusCode::kNotFound) << missing.status().message();
  EXPECT_EQ(ErrorCodeOf(missing.status()), "ResourceNotFoundException");
}

}  // namespace
}  // namespace nodesmith::aws
