// What the aws cloud's set-up reads from the API server, as a specification.
#include "operator/aws_cloud.h"

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

}  // namespace
}  // namespace nodesmith::op
