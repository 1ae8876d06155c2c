// A fixture for tests of the EC2 cloud provider against moto: moto emptied, the test network
// (moto_test_env.h) tagged karpenter.sh/discovery=demo, the al2023@latest alias of Kubernetes
// 1.34 pointing at one of moto's amazon x86_64 images, an EC2NodeClass "default" selecting them
// all, and an AwsCloudProvider over the built-in catalog that looks the class up in node_class_.
#pragma once

#include <gtest/gtest.h>

#include <functional>
#include <memory>
#include <string>

#include "cloud/aws/aws_cloud_provider.h"
#include "cloud/aws_catalog.h"
#include "moto_test_env.h"

namespace nodesmith::testing {

inline constexpr const char* kAl2023X86Alias =
    "/aws/service/eks/optimized-ami/1.34/amazon-linux-2023/x86_64/standard/recommended/image_id";

class AwsCloudProviderFixture : public ::testing::Test {
 protected:
  void SetUp() override {
    ResetMoto();
    session_ = MotoSession(&clock_);
    ASSERT_NE(session_, nullptr);
    MakeTestNetwork(*session_);
    auto images = session_->ec2().DescribeImages({{"architecture", {"x86_64"}}}, {}, {"amazon"});
    ASSERT_TRUE(images.ok() && !images->empty());
    image_ = (*images)[0].id;
    PutMotoParameter(kAl2023X86Alias, image_);

    node_class_.metadata.name = "default";
    node_class_.metadata.generation = 1;
    api::SelectorTerm discovery;
    discovery.tags = {{"karpenter.sh/discovery", "demo"}};
    node_class_.subnet_selector_terms = {discovery};
    node_class_.security_group_selector_terms = {discovery};
    api::SelectorTerm alias;
    alias.alias = "al2023@latest";
    node_class_.ami_selector_terms = {alias};
    node_class_.tags = {{"team", "platform"}};

    provider_ = MakeProvider();
  }

  // A provider of the cluster "demo" over the built-in catalog, with the fixture's class;
  // `options` may change its options first.
  std::unique_ptr<aws::AwsCloudProvider> MakeProvider(
      const std::function<void(aws::AwsCloudProviderOptions&)>& options = {}) {
    aws::AwsCloudProviderOptions o;
    o.cluster = {"demo", "https://demo.eks.example", "Y2E=", "10.100.0.10", "10.100.0.0/16", "1.34"};
    cloud::AwsCatalogOptions catalog;
    auto types = cloud::AwsInstanceTypes(catalog);
    EXPECT_TRUE(types.ok());
    if (types.ok()) o.instance_types = *types;
    o.node_classes = [this](const std::string& name) -> core::Result<api::EC2NodeClass> {
      if (name != node_class_.metadata.name) return core::Status::NotFound("EC2NodeClass " + name + " not found");
      return node_class_;
    };
    if (options) options(o);
    return std::make_unique<aws::AwsCloudProvider>(*session_, clock_, std::move(o));
  }

  // The NodePool "default" of the fixture's class.
  static api::NodePool Pool() {
    api::NodePool pool;
    pool.metadata.name = "default";
    pool.template_.spec.node_class_ref = {"karpenter.k8s.aws", "EC2NodeClass", "default"};
    return pool;
  }

  api::NodeClaim Claim(const std::string& name) {
    api::NodeClaim c;
    c.metadata.name = name;
    c.metadata.labels = {{"karpenter.sh/nodepool", "default"}};
    c.spec.node_class_ref = {"karpenter.k8s.aws", "EC2NodeClass", "default"};
    c.spec.requirements = {{"karpenter.k8s.aws/instance-family", "In", {"c5", "m5"}, std::nullopt},
                           {"kubernetes.io/arch", "In", {"amd64"}, std::nullopt}};
    c.spec.resource_requests = api::ResourceList{{"cpu", api::Quantity::MustParse("6")}};
    return c;
  }

  core::SystemClock clock_;
  std::unique_ptr<aws::AwsSession> session_;
  std::string image_;
  api::EC2NodeClass node_class_;
  std::unique_ptr<aws::AwsCloudProvider> provider_;
};

}  // namespace nodesmith::testing
