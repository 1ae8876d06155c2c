// The instance-profile collector against moto's IAM: a class's role changes, and the profile it
// replaces goes once no NodeClaim runs with it and its protection has passed; the class's own
// profile, other clusters' and a user's are kept.
#include "cloud/aws/instance_profile_gc_controller.h"

#include <gmock/gmock.h>
#include <gtest/gtest.h>

#include "cluster/memory_cluster.h"
#include "moto_test_env.h"

namespace nodesmith::aws {
namespace {

using nodesmith::testing::MotoSession;
using nodesmith::testing::ResetMoto;
using ::testing::UnorderedElementsAre;

class InstanceProfileGcMotoTest : public ::testing::Test {
 protected:
  void SetUp() override {
    ResetMoto();
    session_ = MotoSession(&wall_);
    ASSERT_NE(session_, nullptr);
    iam_ = std::make_unique<IamClient>(&session_->iam());
    for (const char* role : {"NodeRoleA", "NodeRoleB"}) nodesmith::testing::CreateMotoRole(*session_, role);
    InstanceProfileOptions options;
    options.cluster_name = "demo";
    options.region = "us-west-2";
    profiles_ = std::make_unique<InstanceProfileReconciler>(iam_.get(), options);
  }

  std::vector<std::string> ProfileNames() {
    auto all = iam_->ListInstanceProfiles("/");
    EXPECT_TRUE(all.ok());
    std::vector<std::string> names;
    for (const InstanceProfile& p : *all) names.push_back(p.name);
    return names;
  }

  core::SystemClock wall_;
  core::FakeClock clock_{wall_.Now()};
  std::unique_ptr<AwsSession> session_;
  std::unique_ptr<IamClient> iam_;
  std::unique_ptr<InstanceProfileReconciler> profiles_;
};

TEST_F(InstanceProfileGcMotoTest, AReplacedProfileGoesOnceNothingRunsWithItAndItsProtectionPassed) {
  cluster::MemoryCluster cluster(clock_);
  api::EC2NodeClass nc;
  nc.metadata.name = "default";
  nc.metadata.uid = "uid-1";
  nc.metadata.generation = 1;
  nc.role = "NodeRoleA";
  ASSERT_TRUE(profiles_->Reconcile(nc, clock_.Now()).ok());
  const std::string first = nc.status_instance_profile;
  ASSERT_TRUE(cluster.Create(nc).ok());
  // An instance launched with it.
  api::NodeClaim claim;
  claim.metadata.name = "default-a";
  claim.metadata.annotations[kAnnotationInstanceProfile] = first;
  ASSERT_TRUE(cluster.Create(claim).ok());

  // The role changes: a new profile, the first one replaced.
  nc = cluster.Get<api::EC2NodeClass>("", "default").value();
  nc.role = "NodeRoleB";
  ASSERT_TRUE(profiles_->Reconcile(nc, clock_.Now()).ok());
  const std::string second = nc.status_instance_profile;
  ASSERT_NE(first, second);
  ASSERT_TRUE(cluster.Update(nc).ok());
  // Another cluster's profile and a user's own.
  ASSERT_TRUE(iam_->CreateInstanceProfile("other-cluster", "/karpenter/us-west-2/other/uid-9/", {}).ok());
  ASSERT_TRUE(iam_->CreateInstanceProfile("teams-own", "/", {}).ok());

  InstanceProfileGcController gc(clock_, cluster, *iam_, *profiles_);
  auto pass = gc.Reconcile({});
  ASSERT_TRUE(pass.ok()) << pass.status().message();
  EXPECT_EQ(pass->requeue_after, std::chrono::minutes(30));
  EXPECT_THAT(ProfileNames(), UnorderedElementsAre(first, second, "other-cluster", "teams-own"));

  // Its protection passes, but the NodeClaim still runs with it.
  clock_.Step(std::chrono::minutes(16));
  ASSERT_TRUE(gc.Reconcile({}).ok());
  EXPECT_THAT(ProfileNames(), UnorderedElementsAre(first, second, "other-cluster", "teams-own"));

  // The NodeClaim is gone: so is the profile, its role removed first.
  ASSERT_TRUE(cluster.Delete<api::NodeClaim>("", "default-a").ok());
  ASSERT_TRUE(gc.Reconcile({}).ok());
  EXPECT_THAT(ProfileNames(), UnorderedElementsAre(second, "other-cluster", "teams-own"));
}

}  // namespace
}  // namespace nodesmith::aws
