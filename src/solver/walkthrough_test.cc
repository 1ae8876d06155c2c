// The seed walkthrough, end to end through the manifest loader and the aws catalog: a legacy
// Provisioner (spot; c, m and r families; 4-32 vCPUs; nitro; generation > 2) and the `inflate`
// Deployment with 5 one-CPU pods.
#include <map>

#include <gmock/gmock.h>
#include <gtest/gtest.h>

#include "api/manifest.h"
#include "api/workload_pods.h"
#include "cloud/catalog.h"
#include "solver/scheduler.h"
#include "solver/snapshot.h"

namespace nodesmith::solver {
namespace {

using ::testing::ElementsAre;
using ::testing::SizeIs;

constexpr const char* kProvisioner = R"(
apiVersion: karpenter.sh/v1alpha5
kind: Provisioner
metadata: {name: default}
spec:
  requirements:
  - {key: karpenter.k8s.aws/instance-category, operator: In, values: [c, m, r]}
  - {key: karpenter.k8s.aws/instance-cpu, operator: In, values: ["4", "8", "16", "32"]}
  - {key: karpenter.k8s.aws/instance-hypervisor, operator: In, values: [nitro]}
  - {key: karpenter.k8s.aws/instance-generation, operator: Gt, values: ["2"]}
  - {key: kubernetes.io/arch, operator: In, values: [arm64, amd64]}
  - {key: karpenter.sh/capacity-type, operator: In, values: [spot]}
  limits: {resources: {cpu: 1000}}
  providerRef: {name: default}
)";

std::string Inflate(const std::string& node_selector) {
  return R"(
---
apiVersion: apps/v1
kind: Deployment
metadata: {name: inflate}
spec:
  replicas: 5
  selector: {matchLabels: {app: inflate}}
  template:
    metadata: {labels: {app: inflate}}
    spec:
)" + node_selector + R"(
      containers:
      - name: inflate
        image: public.ecr.aws/eks-distro/kubernetes/pause:3.2
        resources: {requests: {cpu: "1"}}
)";
}

class SeedWalkthrough : public ::testing::Test {
 protected:
  void SetUp() override {
    auto catalog = cloud::LoadCatalog(cloud::CatalogSource::FromFlag("aws"), "us-west-2");
    ASSERT_TRUE(catalog.ok()) << catalog.status().message();
    catalog_ = std::move(catalog).value();
    for (const auto& t : catalog_.instance_types) by_name_[t->name] = t.get();
  }

  Results Plan(const std::string& yaml) {
    auto objects = api::LoadManifestsFromString(yaml, "walkthrough.yaml");
    EXPECT_TRUE(objects.ok()) << objects.status().message();
    if (!objects.ok()) return {};
    core::Status expanded = api::ExpandWorkloads(*objects);
    EXPECT_TRUE(expanded.ok()) << expanded.message();
    auto snapshot = BuildSnapshot(std::move(*objects), {}, catalog_.instance_types, catalog_.well_known_labels);
    EXPECT_TRUE(snapshot.ok()) << snapshot.status().message();
    if (!snapshot.ok()) return {};
    auto results = Solve(*snapshot, SchedulerOptions{});
    EXPECT_TRUE(results.ok()) << results.status().message();
    return results.ok() ? *results : Results{};
  }

  std::string Label(const std::string& type, const std::string& key) {
    const auto* req = by_name_.at(type)->requirements.Find(key);
    return req && !req->Values().empty() ? req->Values().front() : "";
  }

  cloud::Catalog catalog_;
  std::map<std::string, const cloud::InstanceType*> by_name_;
};

TEST_F(SeedWalkthrough, FiveOneCpuPodsBecomeOneSpotNodeClaimOfEightVcpuTypes) {
  Results r = Plan(std::string(kProvisioner) + Inflate(""));
  ASSERT_THAT(r.new_node_claims, SizeIs(1));
  const NewNodeClaim& n = r.new_node_claims[0];
  EXPECT_EQ(n.node_pool, "default");
  EXPECT_THAT(n.pods, SizeIs(5));
  EXPECT_EQ(n.launch.capacity_type, "spot");
  ASSERT_FALSE(n.instance_type_options.empty());
  EXPECT_LE(n.instance_type_options.size(), 60u);
  EXPECT_EQ(n.instance_type_options.front(), n.launch.instance_type);
  EXPECT_EQ(Label(n.instance_type_options.front(), "karpenter.k8s.aws/instance-cpu"), "8");
  // Cheapest first: every option's cheapest spot price is at least the one before it.
  double previous = 0;
  for (const auto& name : n.instance_type_options) {
    const cloud::Offering* o = by_name_.at(name)->CheapestOffering(n.requirements);
    ASSERT_NE(o, nullptr) << name;
    EXPECT_EQ(o->capacity_type, "spot") << name;
    EXPECT_GE(o->price, previous) << name;
    previous = o->price;
    const std::string category = Label(name, "karpenter.k8s.aws/instance-category");
    EXPECT_TRUE(category == "c" || category == "m" || category == "r") << name;
  }
  EXPECT_EQ(r.scheduled, 5);
  EXPECT_GT(r.lower_bound_per_hour, 0);
  EXPECT_LE(r.lower_bound_per_hour, r.price_per_hour);
}

TEST_F(SeedWalkthrough, PinnedToC5XlargeTheyBecomeTwoNodeClaimsOfThreeAndTwo) {
  Results r = Plan(std::string(kProvisioner) +
                   Inflate("      nodeSelector: {node.kubernetes.io/instance-type: c5.xlarge}"));
  ASSERT_THAT(r.new_node_claims, SizeIs(2));
  EXPECT_THAT(r.new_node_claims[0].pods, SizeIs(3));
  EXPECT_THAT(r.new_node_claims[1].pods, SizeIs(2));
  for (const auto& n : r.new_node_claims) {
    EXPECT_THAT(n.instance_type_options, ElementsAre("c5.xlarge"));
    EXPECT_EQ(n.launch.instance_type, "c5.xlarge");
    EXPECT_EQ(n.launch.capacity_type, "spot");
  }
  EXPECT_NE(r.new_node_claims[0].name, r.new_node_claims[1].name);
}

}  // namespace
}  // namespace nodesmith::solver
