// The EC2NodeClass status controller against moto: given a class in the cluster, expect its
// status to list what its selectors match and say Ready — or say which selector matched nothing.
#include "cloud/aws/nodeclass_status_controller.h"

#include <gmock/gmock.h>
#include <gtest/gtest.h>

#include <set>

#include "api/conditions.h"
#include "aws_cloud_provider_fixture.h"
#include "cluster/memory_cluster.h"
#include "runtime/event_recorder.h"

namespace nodesmith::aws {
namespace {

using ::testing::HasSubstr;

class NodeClassStatusControllerMotoTest : public nodesmith::testing::AwsCloudProviderFixture {
 protected:
  void SetUp() override {
    AwsCloudProviderFixture::SetUp();
    ASSERT_NE(provider_, nullptr);
    iam_ = std::make_unique<IamClient>(&session_->iam());
    profiles_ = std::make_unique<InstanceProfileReconciler>(
        iam_.get(), InstanceProfileOptions{"demo", "us-west-2"});
    NodeClassStatusOptions options;
    options.instance_profiles = profiles_.get();
    options.recorder = &recorder_;
    controller_ = std::make_unique<NodeClassStatusController>(clock_, cluster_, *provider_, options);
  }

  // An IAM role nodes could run as.
  void CreateRole(const std::string& name) {
    auto r = session_->iam().Call(
        "CreateRole", QueryParams().Add("RoleName", name).Add(
                          "AssumeRolePolicyDocument",
                          R"({"Version":"2012-10-17","Statement":[{"Effect":"Allow","Principal":)"
                          R"({"Service":"ec2.amazonaws.com"},"Action":"sts:AssumeRole"}]})"));
    ASSERT_TRUE(r.ok()) << r.status().message();
  }
  const api::Condition* Condition(const api::EC2NodeClass& c, const std::string& type) {
    return api::FindCondition(c.conditions, type);
  }

  // The class reconciled while moto refuses `action`'s dry runs as a role without the right
  // would be refused, as stored then.
  api::EC2NodeClass ReconciledRefusing(const std::string& action) {
    nodesmith::testing::InjectMotoFault(action, "UnauthorizedOperation",
                                        "You are not authorized to perform this operation.", true);
    EXPECT_TRUE(cluster_.Create(node_class_).ok());
    auto reconciled = controller_->Reconcile({"", "default"});
    EXPECT_TRUE(reconciled.ok()) << reconciled.status().message();
    return Stored();
  }

  api::EC2NodeClass Stored() {
    auto got = cluster_.Get<api::EC2NodeClass>("", "default");
    EXPECT_TRUE(got.ok()) << got.status().message();
    return got.ok() ? *got : api::EC2NodeClass{};
  }

  cluster::MemoryCluster cluster_{clock_};
  runtime::RecordingEventRecorder recorder_;
  std::unique_ptr<IamClient> iam_;
  std::unique_ptr<InstanceProfileReconciler> profiles_;
  std::unique_ptr<NodeClassStatusController> controller_;  // after the fixture's provider
};

TEST_F(NodeClassStatusControllerMotoTest, ListsTheMatchedSubnetsGroupsAndImageAndSaysReady) {
  ASSERT_TRUE(cluster_.Create(node_class_).ok());
  auto r = controller_->Reconcile({"", "default"});
  ASSERT_TRUE(r.ok()) << r.status().message();
  EXPECT_EQ(r->requeue_after, std::chrono::minutes(1)) << "new AMIs appear without an event";

  const api::EC2NodeClass stored = Stored();
  ASSERT_EQ(stored.status_subnets.size(), 2u);
  std::set<std::string> zones;
  for (const auto& s : stored.status_subnets) zones.insert(s.zone);
  EXPECT_EQ(zones, (std::set<std::string>{"us-west-2a", "us-west-2b"}));
  ASSERT_EQ(stored.status_security_groups.size(), 1u);
  EXPECT_EQ(stored.status_security_groups[0].name, "nodes");
  ASSERT_EQ(stored.status_amis.size(), 1u);
  EXPECT_EQ(stored.status_amis[0].id, image_);
  // The alias's standard image, with Karpenter's requirements: its architecture, no GPU, no
  // accelerator.
  std::vector<std::string> requirements;
  for (const auto& r : stored.status_amis[0].requirements)
    requirements.push_back(r.key + " " + r.op + (r.values.empty() ? "" : " " + r.values[0]));
  EXPECT_THAT(requirements, ::testing::UnorderedElementsAre("kubernetes.io/arch In amd64",
                                                            "karpenter.k8s.aws/instance-gpu-count DoesNotExist",
                                                            "karpenter.k8s.aws/instance-accelerator-count DoesNotExist"));
  EXPECT_EQ(stored.metadata.finalizers, std::vector<std::string>{"karpenter.k8s.aws/termination"});
  for (const char* type : {"SubnetsReady", "SecurityGroupsReady", "AMIsReady", "InstanceProfileReady",
                           "ValidationSucceeded", "Ready"}) {
    EXPECT_TRUE(api::IsConditionTrue(stored.conditions, type)) << type;
  }
  // The validation's CreateFleet and RunInstances were dry runs: nothing was launched.
  auto instances = session_->ec2().DescribeInstances({{"instance-state-name", {"pending", "running"}}});
  ASSERT_TRUE(instances.ok()) << instances.status().message();
  EXPECT_TRUE(instances->empty());

  // Nothing changed: nothing is written.
  const std::string version = stored.metadata.resource_version;
  ASSERT_TRUE(controller_->Reconcile({"", "default"}).ok());
  EXPECT_EQ(Stored().metadata.resource_version, version);
}

TEST_F(NodeClassStatusControllerMotoTest, ASelectorThatMatchesNothingIsAFalseConditionNamingIt) {
  node_class_.security_group_selector_terms[0].tags = {{"karpenter.sh/discovery", "typo"}};
  ASSERT_TRUE(cluster_.Create(node_class_).ok());
  auto reconciled = controller_->Reconcile({"", "default"});
  ASSERT_TRUE(reconciled.ok()) << reconciled.status().message();

  const api::EC2NodeClass stored = Stored();
  const api::Condition* groups = api::FindCondition(stored.conditions, "SecurityGroupsReady");
  ASSERT_NE(groups, nullptr);
  EXPECT_EQ(groups->status, "False");
  EXPECT_THAT(groups->message, HasSubstr("SecurityGroupSelector did not match any SecurityGroups"));
  const api::Condition* ready = api::FindCondition(stored.conditions, "Ready");
  ASSERT_NE(ready, nullptr);
  EXPECT_EQ(ready->status, "False");
  EXPECT_TRUE(stored.status_security_groups.empty());
  EXPECT_EQ(stored.status_subnets.size(), 2u) << "what did match is still listed";
  // Nothing is validated against a class that cannot launch.
  const api::Condition* validation = api::FindCondition(stored.conditions, "ValidationSucceeded");
  ASSERT_NE(validation, nullptr);
  EXPECT_EQ(validation->status, "False");
  EXPECT_EQ(validation->reason, "DependenciesNotReady");
}

TEST_F(NodeClassStatusControllerMotoTest, ARoleThatMayNotCreateFleetsIsValidationSucceededFalseNamingTheCall) {
  const api::EC2NodeClass stored = ReconciledRefusing("CreateFleet");
  const api::Condition* validation = Condition(stored, "ValidationSucceeded");
  ASSERT_NE(validation, nullptr);
  EXPECT_EQ(validation->status, "False");
  EXPECT_EQ(validation->reason, "CreateFleetAuthCheckFailed");
  EXPECT_THAT(validation->message, HasSubstr("Controller isn't authorized to call ec2:CreateFleet: "
                                             "UnauthorizedOperation: You are not authorized"));
  const api::Condition* ready = Condition(stored, "Ready");
  ASSERT_NE(ready, nullptr);
  EXPECT_EQ(ready->status, "False");
  EXPECT_THAT(ready->message, HasSubstr("ValidationSucceeded=False"));
  EXPECT_TRUE(api::IsConditionTrue(stored.conditions, "SubnetsReady"));
  // And a log line a person can act on.
  bool logged = false;
  for (const auto& e : recorder_.events()) {
    if (e.message == "unauthorized to call ec2:CreateFleet") logged = true;
  }
  EXPECT_TRUE(logged);
}

TEST_F(NodeClassStatusControllerMotoTest, ARoleThatMayNotRunInstancesIsValidationSucceededFalseNamingTheCall) {
  const api::EC2NodeClass stored = ReconciledRefusing("RunInstances");
  const api::Condition* validation = Condition(stored, "ValidationSucceeded");
  ASSERT_NE(validation, nullptr);
  EXPECT_EQ(validation->status, "False");
  EXPECT_EQ(validation->reason, "RunInstancesAuthCheckFailed");
  EXPECT_THAT(validation->message, HasSubstr("Controller isn't authorized to call ec2:RunInstances"));
}

TEST_F(NodeClassStatusControllerMotoTest, DisableDryRunValidatesWithoutTheCalls) {
  // The calls would be refused; with DISABLE_DRY_RUN they are not made.
  nodesmith::testing::InjectMotoFault("CreateFleet", "UnauthorizedOperation",
                                      "You are not authorized to perform this operation.", true);
  NodeClassStatusOptions options;
  options.instance_profiles = profiles_.get();
  options.disable_dry_run = true;
  NodeClassStatusController controller(clock_, cluster_, *provider_, options);
  ASSERT_TRUE(cluster_.Create(node_class_).ok());
  ASSERT_TRUE(controller.Reconcile({"", "default"}).ok());
  const api::EC2NodeClass stored = Stored();
  EXPECT_TRUE(api::IsConditionTrue(stored.conditions, "ValidationSucceeded"));
  EXPECT_TRUE(api::IsConditionTrue(stored.conditions, "Ready"));
}

TEST_F(NodeClassStatusControllerMotoTest, AClassThatIsGoneIsNoError) {
  auto r = controller_->Reconcile({"", "default"});
  ASSERT_TRUE(r.ok()) << r.status().message();
  EXPECT_FALSE(r->requeue_after.has_value());
}

TEST_F(NodeClassStatusControllerMotoTest, ARoleGetsAnInstanceProfileThatLaunchesUseAndDeletionRemoves) {
  CreateRole("KarpenterNodeRole-demo");
  node_class_.role = "KarpenterNodeRole-demo";
  ASSERT_TRUE(cluster_.Create(node_class_).ok());
  auto r = controller_->Reconcile({"", "default"});
  ASSERT_TRUE(r.ok()) << r.status().message();

  node_class_ = Stored();
  const std::string profile = node_class_.status_instance_profile;
  EXPECT_EQ(profile.rfind("demo_", 0), 0u) << profile;
  EXPECT_EQ(Condition(node_class_, "InstanceProfileReady")->status, "True");
  EXPECT_EQ(Condition(node_class_, "Ready")->status, "True");
  auto made = iam_->GetInstanceProfile(profile);
  ASSERT_TRUE(made.ok()) << made.status().message();
  EXPECT_EQ(made->roles, std::vector<std::string>{"KarpenterNodeRole-demo"});
  EXPECT_EQ(made->path, "/karpenter/us-west-2/demo/" + node_class_.metadata.uid + "/");
  EXPECT_EQ(made->tags.at("karpenter.k8s.aws/ec2nodeclass"), "default");
  EXPECT_EQ(made->tags.at("kubernetes.io/cluster/demo"), "owned");
  EXPECT_EQ(made->tags.at("team"), "platform") << "the class's own tags";

  // Reconciled again: the same profile, nothing new made.
  ASSERT_TRUE(controller_->Reconcile({"", "default"}).ok());
  EXPECT_EQ(Stored().status_instance_profile, profile);
  auto all = iam_->ListInstanceProfiles("/karpenter/");
  ASSERT_TRUE(all.ok());
  EXPECT_EQ(all->size(), 1u);

  // A launch runs with it.
  api::NodeClaim claim = Claim("default-p");
  auto launched = provider_->Create(claim);
  ASSERT_TRUE(launched.ok()) << launched.status().message();
  auto instances = session_->ec2().DescribeInstances(
      {}, {AwsCloudProvider::InstanceIdOf(launched->status.provider_id)});
  ASSERT_TRUE(instances.ok() && instances->size() == 1);

  // Deleted while a NodeClaim still names it: the class waits, and says why.
  claim.status = launched->status;
  ASSERT_TRUE(cluster_.Create(claim).ok());
  ASSERT_TRUE(cluster_.Delete<api::EC2NodeClass>("", "default").ok());
  r = controller_->Reconcile({"", "default"});
  ASSERT_TRUE(r.ok()) << r.status().message();
  EXPECT_EQ(r->requeue_after, std::chrono::seconds(15));
  ASSERT_TRUE(cluster_.Get<api::EC2NodeClass>("", "default").ok()) << "held by its finalizer";
  auto waiting = recorder_.OfType("WaitingOnNodeClaimTermination");
  ASSERT_EQ(waiting.size(), 1u);
  EXPECT_EQ(waiting[0].message, "Waiting on NodeClaim termination for default-p");

  // Once the NodeClaim is gone: the profile and the launch templates go, then the class.
  ASSERT_TRUE(cluster_.Delete<api::NodeClaim>("", "default-p").ok());
  r = controller_->Reconcile({"", "default"});
  ASSERT_TRUE(r.ok()) << r.status().message();
  EXPECT_EQ(cluster_.Get<api::EC2NodeClass>("", "default").status().code(), core::StatusCode::kNotFound);
  EXPECT_EQ(iam_->GetInstanceProfile(profile).status().code(), core::StatusCode::kNotFound);
  auto templates = session_->ec2().DescribeLaunchTemplates(
      {{"tag:karpenter.k8s.aws/ec2nodeclass", {"default"}}});
  ASSERT_TRUE(templates.ok());
  EXPECT_TRUE(templates->empty());
}

TEST_F(NodeClassStatusControllerMotoTest, AMissingRoleIsInstanceProfileReadyFalseNamingIt) {
  node_class_.role = "NoSuchRole";
  ASSERT_TRUE(cluster_.Create(node_class_).ok());
  auto r = controller_->Reconcile({"", "default"});
  EXPECT_FALSE(r.ok()) << "retried with backoff";

  const api::EC2NodeClass stored = Stored();
  const api::Condition* profile = Condition(stored, "InstanceProfileReady");
  ASSERT_NE(profile, nullptr);
  EXPECT_EQ(profile->status, "False");
  EXPECT_THAT(profile->message, HasSubstr("NoSuchRole"));
  EXPECT_EQ(Condition(stored, "Ready")->status, "False");
  EXPECT_THAT(Condition(stored, "Ready")->message, HasSubstr("InstanceProfileReady=False"));
  EXPECT_TRUE(stored.status_instance_profile.empty());
  auto all = iam_->ListInstanceProfiles("/karpenter/");
  ASSERT_TRUE(all.ok());
  EXPECT_TRUE(all->empty()) << "no profile left without its role";
  node_class_ = stored;
  EXPECT_THAT(provider_->Create(Claim("default-q")).status().message(),
              HasSubstr("instance profile for role NoSuchRole"));
}

}  // namespace
}  // namespace nodesmith::aws
