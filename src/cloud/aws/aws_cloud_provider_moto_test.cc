// The EC2 cloud provider against moto: given an EC2NodeClass and a NodeClaim, expect one
// launch, the instance found again by id and by tags, and terminated on delete.
#include "cloud/aws/aws_cloud_provider.h"

#include <gmock/gmock.h>
#include <gtest/gtest.h>

#include <set>

#include "aws_cloud_provider_fixture.h"
#include "cloud/aws/nodeclass_hash.h"
#include "core/base64.h"
#include "scheduling/well_known_labels.h"

namespace nodesmith::aws {
namespace {

using ::testing::HasSubstr;
using nodesmith::testing::FormValue;
using nodesmith::testing::MotoRecorder;
using nodesmith::testing::PutMotoParameter;
using nodesmith::testing::RecordedBodies;

using AwsCloudProviderMotoTest = nodesmith::testing::AwsCloudProviderFixture;

TEST_F(AwsCloudProviderMotoTest, ANodeClaimLaunchesOneInstanceThatIsFoundAndTerminated) {
  auto launched = provider_->Create(Claim("default-7xk2p"));
  ASSERT_TRUE(launched.ok()) << launched.status().message();
  const std::string& id = launched->status.provider_id;
  EXPECT_EQ(id.rfind("aws:///us-west-2", 0), 0u) << id;
  EXPECT_FALSE(AwsCloudProvider::InstanceIdOf(id).empty());
  EXPECT_EQ(launched->metadata.labels.at("node.kubernetes.io/instance-type"), "c5.2xlarge");
  EXPECT_EQ(launched->metadata.labels.at("karpenter.sh/capacity-type"), "spot");
  EXPECT_EQ(launched->metadata.labels.at("topology.kubernetes.io/region"), "us-west-2");
  EXPECT_EQ(launched->status.image_id, image_);
  EXPECT_FALSE(launched->status.allocatable.items().empty());

  auto got = provider_->Get(id);
  ASSERT_TRUE(got.ok()) << got.status().message();
  // The instance names no NodeClaim until its node joined (the tagging controller's
  // karpenter.sh/nodeclaim), as Karpenter's; the cluster knows it by its provider id.
  EXPECT_EQ(got->metadata.name, "");
  EXPECT_EQ(got->metadata.labels.at("karpenter.sh/capacity-type"), "spot");
  auto listed = provider_->List();
  ASSERT_EQ(listed.size(), 1u);
  EXPECT_EQ(listed[0].status.provider_id, id);
  EXPECT_TRUE(provider_->IsDrifted(*launched).reason.empty());

  ASSERT_TRUE(provider_->Delete(*launched).ok());
  auto gone = provider_->Get(id);
  ASSERT_FALSE(gone.ok());
  EXPECT_EQ(gone.status().code(), core::StatusCode::kNotFound);
  EXPECT_TRUE(provider_->List().empty());
}

TEST_F(AwsCloudProviderMotoTest, NodeClaimsOfOneShapeLaunchedTogetherAreOneFleet) {
  // Three NodeClaims of one shape and one that needs a bigger type, launched at once (a burst
  // the provisioner planned in one pass).
  std::vector<api::NodeClaim> claims = {Claim("default-b1"), Claim("default-b2"), Claim("default-b3"),
                                        Claim("default-big")};
  claims[3].spec.resource_requests = api::ResourceList{{"cpu", api::Quantity::MustParse("14")}};
  MotoRecorder("reset-recording");
  MotoRecorder("start-recording");
  auto launched = provider_->CreateAll(claims);
  MotoRecorder("stop-recording");

  // Two fleets: the three equal launches as one for three instances, the other alone.
  std::vector<std::string> fleets = RecordedBodies("CreateFleet");
  ASSERT_EQ(fleets.size(), 2u);
  EXPECT_EQ(FormValue(fleets[0], "TargetCapacitySpecification.TotalTargetCapacity"), "3");
  EXPECT_EQ(FormValue(fleets[1], "TargetCapacitySpecification.TotalTargetCapacity"), "1");
  // Each template (one per max pods of the types offered) was made once, for all four.
  std::set<std::string> templates;
  for (const std::string& body : fleets)
    for (int i = 1; i <= 10; ++i) {
      std::string name = FormValue(body, "LaunchTemplateConfigs." + std::to_string(i) +
                                             ".LaunchTemplateSpecification.LaunchTemplateName");
      if (!name.empty()) templates.insert(name);
    }
  EXPECT_GE(templates.size(), 2u) << "58-pod and 234-pod types";
  EXPECT_EQ(RecordedBodies("CreateLaunchTemplate").size(), templates.size());

  // Each NodeClaim got an instance of its own, of the type its fleet offered first.
  ASSERT_EQ(launched.size(), 4u);
  std::set<std::string> ids;
  for (size_t i = 0; i < launched.size(); ++i) {
    ASSERT_TRUE(launched[i].ok()) << claims[i].metadata.name << ": " << launched[i].status().message();
    EXPECT_EQ(launched[i]->metadata.name, claims[i].metadata.name);
    ids.insert(launched[i]->status.provider_id);
  }
  EXPECT_EQ(ids.size(), 4u);
  EXPECT_EQ(launched[0]->metadata.labels.at("node.kubernetes.io/instance-type"), "c5.2xlarge");
  EXPECT_EQ(launched[3]->metadata.labels.at("node.kubernetes.io/instance-type"), "c5.4xlarge");
  EXPECT_EQ(provider_->List().size(), 4u);
}

TEST_F(AwsCloudProviderMotoTest, GetAsksAboutEveryInstanceOfInterestInOneCall) {
  auto launched = provider_->CreateAll({Claim("default-g1"), Claim("default-g2"), Claim("default-g3")});
  for (const auto& l : launched) ASSERT_TRUE(l.ok()) << l.status().message();

  // The terminator polls each instance: one DescribeInstances answers for all three.
  MotoRecorder("reset-recording");
  MotoRecorder("start-recording");
  for (const auto& l : launched) ASSERT_TRUE(provider_->Get(l->status.provider_id).ok());
  MotoRecorder("stop-recording");
  std::vector<std::string> calls = RecordedBodies("DescribeInstances");
  ASSERT_EQ(calls.size(), 1u);
  for (const auto& l : launched)
    EXPECT_THAT(calls[0], HasSubstr(AwsCloudProvider::InstanceIdOf(l->status.provider_id)));

  // A deleted instance is asked about again at once, and is gone; the others are still there.
  ASSERT_TRUE(provider_->Delete(*launched[0]).ok());
  EXPECT_EQ(provider_->Get(launched[0]->status.provider_id).status().code(), core::StatusCode::kNotFound);
  EXPECT_TRUE(provider_->Get(launched[1]->status.provider_id).ok());

  // An id EC2 does not know fails a batched call: each is then asked alone, and only it is
  // not found. (A window of nothing: every Get asks.)
  auto fresh = MakeProvider([](AwsCloudProviderOptions& o) { o.describe_batch_window = core::Duration(0); });
  ASSERT_TRUE(fresh->Get(launched[1]->status.provider_id).ok());
  auto unknown = fresh->Get("aws:///us-west-2a/i-0123456789abcdef0");
  EXPECT_EQ(unknown.status().code(), core::StatusCode::kNotFound) << unknown.status().message();
  EXPECT_TRUE(fresh->Get(launched[2]->status.provider_id).ok());
}

TEST_F(AwsCloudProviderMotoTest, TerminationsGoTogetherInOneCall) {
  auto launched = provider_->CreateAll({Claim("default-t1"), Claim("default-t2"), Claim("default-t3")});
  for (const auto& l : launched) ASSERT_TRUE(l.ok()) << l.status().message();

  // The terminator's batch of two drained NodeClaims: one TerminateInstances for both.
  MotoRecorder("reset-recording");
  MotoRecorder("start-recording");
  std::vector<core::Status> deleted = provider_->DeleteAll({*launched[0], *launched[1]});
  MotoRecorder("stop-recording");
  std::vector<std::string> calls = RecordedBodies("TerminateInstances");
  ASSERT_EQ(calls.size(), 1u);
  for (size_t i = 0; i < 2; ++i) {
    EXPECT_TRUE(deleted[i].ok()) << deleted[i].message();
    EXPECT_THAT(calls[0], HasSubstr(AwsCloudProvider::InstanceIdOf(launched[i]->status.provider_id)));
    EXPECT_EQ(provider_->Get(launched[i]->status.provider_id).status().code(), core::StatusCode::kNotFound)
        << "asked again after the termination, and gone";
  }

  // An id EC2 does not know fails the whole call: each instance is then terminated alone, and
  // only the unknown one is not found.
  api::NodeClaim unknown = *launched[2];
  unknown.status.provider_id = "aws:///us-west-2a/i-0123456789abcdef0";
  MotoRecorder("reset-recording");
  MotoRecorder("start-recording");
  deleted = provider_->DeleteAll({unknown, *launched[2]});
  MotoRecorder("stop-recording");
  EXPECT_EQ(RecordedBodies("TerminateInstances").size(), 3u) << "the batch, then one each";
  EXPECT_EQ(deleted[0].code(), core::StatusCode::kNotFound) << deleted[0].message();
  EXPECT_TRUE(deleted[1].ok()) << deleted[1].message();
  EXPECT_TRUE(provider_->List().empty());
}

TEST_F(AwsCloudProviderMotoTest, LaunchesShareTheirLaunchTemplatesWithTheClassesTags) {
  ASSERT_TRUE(provider_->Create(Claim("default-a")).ok());
  auto first = session_->ec2().DescribeLaunchTemplates({{"tag:karpenter.sh/nodepool", {"default"}}});
  ASSERT_TRUE(first.ok()) << first.status().message();
  ASSERT_TRUE(provider_->Create(Claim("default-b")).ok());
  auto templates = session_->ec2().DescribeLaunchTemplates({{"tag:karpenter.sh/nodepool", {"default"}}});
  ASSERT_TRUE(templates.ok()) << templates.status().message();
  EXPECT_EQ(templates->size(), first->size()) << "the second launch made none";
  for (const LaunchTemplate& t : *templates) EXPECT_EQ(t.name.rfind("karpenter.k8s.aws/", 0), 0u) << t.name;
  EXPECT_EQ(provider_->List().size(), 2u);
}

TEST_F(AwsCloudProviderMotoTest, AGpuTypeLaunchesWithTheAliasesNvidiaImageAndWithoutOneCannot) {
  api::NodeClaim claim = Claim("default-gpu");
  claim.spec.requirements = {{"node.kubernetes.io/instance-type", "In", {"g5.xlarge"}, std::nullopt}};
  claim.spec.resource_requests = api::ResourceList{{"cpu", api::Quantity::MustParse("1")}};
  // The fixture's alias publishes only the standard image: nothing for a GPU.
  auto refused = provider_->Create(claim);
  ASSERT_FALSE(refused.ok());
  EXPECT_EQ(refused.status().code(), core::StatusCode::kUnavailable) << refused.status().message();

  auto images = session_->ec2().DescribeImages({{"architecture", {"x86_64"}}}, {}, {"amazon"});
  ASSERT_TRUE(images.ok() && images->size() > 1);
  const std::string nvidia = (*images)[1].id == image_ ? (*images)[0].id : (*images)[1].id;
  PutMotoParameter("/aws/service/eks/optimized-ami/1.34/amazon-linux-2023/x86_64/nvidia/recommended/image_id",
                   nvidia);
  auto gpu = MakeProvider();
  MotoRecorder("reset-recording");
  MotoRecorder("start-recording");
  auto launched = gpu->Create(claim);
  MotoRecorder("stop-recording");
  ASSERT_TRUE(launched.ok()) << launched.status().message();
  EXPECT_EQ(launched->metadata.labels.at("node.kubernetes.io/instance-type"), "g5.xlarge");
  EXPECT_EQ(launched->status.image_id, nvidia);
  std::vector<std::string> made = RecordedBodies("CreateLaunchTemplate");
  ASSERT_EQ(made.size(), 1u);
  EXPECT_EQ(FormValue(made[0], "LaunchTemplateData.ImageId"), nvidia);
  // A type without a GPU keeps the standard image.
  auto plain = gpu->Create(Claim("default-cpu"));
  ASSERT_TRUE(plain.ok()) << plain.status().message();
  EXPECT_EQ(plain->status.image_id, image_);
}

TEST_F(AwsCloudProviderMotoTest, EachTypesKubeletIsToldTheMaxPodsTheSchedulerPlannedWith) {
  // c5.2xlarge, the cheapest fit, allows 58 pods (4 ENIs of 15 addresses); its template's
  // NodeConfig says so; the bigger types offered beside it get templates of their own.
  MotoRecorder("reset-recording");
  MotoRecorder("start-recording");
  auto launched = provider_->Create(Claim("default-p"));
  MotoRecorder("stop-recording");
  ASSERT_TRUE(launched.ok()) << launched.status().message();
  ASSERT_EQ(launched->metadata.labels.at("node.kubernetes.io/instance-type"), "c5.2xlarge");
  std::vector<std::string> made = RecordedBodies("CreateLaunchTemplate");
  auto user_data_of = [&](const std::string& pods_line) {
    int found = 0;
    for (const std::string& body : made) {
      std::string text = core::Base64Decode(FormValue(body, "LaunchTemplateData.UserData")).value_or("");
      if (text.find(pods_line) != std::string::npos) ++found;
    }
    return found;
  };
  EXPECT_EQ(user_data_of("maxPods: 58"), 1);
  EXPECT_EQ(user_data_of("maxPods: 234"), 1);

  // A class with its own kubelet.maxPods keeps it, in one template for every type.
  node_class_.kubelet = api::KubeletConfiguration{};
  node_class_.kubelet->max_pods = 40;
  auto own = MakeProvider();
  MotoRecorder("reset-recording");
  MotoRecorder("start-recording");
  ASSERT_TRUE(own->Create(Claim("default-q")).ok());
  MotoRecorder("stop-recording");
  made = RecordedBodies("CreateLaunchTemplate");
  ASSERT_EQ(made.size(), 1u);
  EXPECT_EQ(user_data_of("maxPods: 40"), 1);
}

TEST_F(AwsCloudProviderMotoTest, AClassThatIsNotReadyLaunchesNothingAndSaysWhy) {
  node_class_.subnet_selector_terms[0].tags = {{"karpenter.sh/discovery", "typo"}};
  auto launched = provider_->Create(Claim("default-c"));
  ASSERT_FALSE(launched.ok());
  EXPECT_EQ(launched.status().code(), core::StatusCode::kFailedPrecondition);
  EXPECT_THAT(launched.status().message(), HasSubstr("EC2NodeClass/default is not ready: SubnetsReady=False"));
  EXPECT_TRUE(provider_->List().empty());
  auto missing = Claim("default-d");
  missing.spec.node_class_ref.name = "nope";
  EXPECT_EQ(provider_->Create(missing).status().code(), core::StatusCode::kUnavailable);
}

TEST_F(AwsCloudProviderMotoTest, OfferingsOutsideTheClassesZonesAreUnavailable) {
  const api::NodePool pool = Pool();
  auto types = provider_->GetInstanceTypes(pool);
  ASSERT_TRUE(types.ok()) << types.status().message();
  for (const auto& t : *types) {
    if (t->name != "m5.large") continue;
    for (const auto& o : t->offerings) EXPECT_EQ(o.available, o.zone != "us-west-2c") << o.zone;
  }
  // A spot interruption reported by the interruption controller closes that offering too.
  provider_->MarkOfferingUnavailable({"m5.large", "us-west-2a", "spot", "spot", std::chrono::minutes(3)});
  auto after = provider_->GetInstanceTypes(pool);
  ASSERT_TRUE(after.ok());
  for (const auto& t : *after) {
    if (t->name != "m5.large") continue;
    for (const auto& o : t->offerings) {
      bool open = o.zone != "us-west-2c" && !(o.zone == "us-west-2a" && o.capacity_type == "spot");
      EXPECT_EQ(o.available, open) << o.zone << "/" << o.capacity_type;
    }
  }
}

TEST_F(AwsCloudProviderMotoTest, LaunchesUseTheRefreshedInstanceTypes) {
  // The account stops offering c5 (the 12-hourly refresh of the live catalog finds no c5 type):
  // the same claim that launched a c5.2xlarge launches the cheapest m5 that fits.
  const api::NodePool pool = Pool();
  auto before = provider_->GetInstanceTypes(pool);
  ASSERT_TRUE(before.ok()) << before.status().message();
  cloud::InstanceTypes refreshed;
  for (const auto& t : *before) {
    if (t->name.rfind("c5.", 0) != 0) refreshed.push_back(t);
  }
  ASSERT_LT(refreshed.size(), before->size());
  provider_->SetInstanceTypes(refreshed);

  auto after = provider_->GetInstanceTypes(pool);
  ASSERT_TRUE(after.ok());
  EXPECT_EQ(after->size(), refreshed.size());
  auto launched = provider_->Create(Claim("default-r"));
  ASSERT_TRUE(launched.ok()) << launched.status().message();
  EXPECT_EQ(launched->metadata.labels.at("node.kubernetes.io/instance-type"), "m5.2xlarge");
}

TEST_F(AwsCloudProviderMotoTest, UnusedLaunchTemplatesOfTheClusterAreDeletedAndTheUsersOwnAreKept) {
  // A template the user made for their own instances: not this cluster's, never touched.
  LaunchTemplateData own;
  own.image_id = image_;
  ASSERT_TRUE(session_->ec2().CreateLaunchTemplate("team-own-template", own, {{"team", "platform"}}).ok());

  ASSERT_TRUE(provider_->Create(Claim("default-g")).ok());
  // Just used: kept for the TTL (a minute).
  auto kept = provider_->DeleteUnusedLaunchTemplates();
  ASSERT_TRUE(kept.ok()) << kept.status().message();
  EXPECT_TRUE(kept->empty());
  auto templates = session_->ec2().DescribeLaunchTemplates({});
  ASSERT_TRUE(templates.ok());
  const size_t made = templates->size() - 1;  // one per max pods of the types the fleet offered
  ASSERT_GE(made, 1u);

  // A later life of the controller, here with a TTL of nothing: the template of the earlier one
  // is found by the cluster's tag and deleted once unused; the user's stays.
  auto restarted = MakeProvider([](AwsCloudProviderOptions& o) { o.launch_template_ttl = core::Duration(0); });
  auto deleted = restarted->DeleteUnusedLaunchTemplates();
  ASSERT_TRUE(deleted.ok()) << deleted.status().message();
  ASSERT_EQ(deleted->size(), made);
  for (const std::string& name : *deleted) EXPECT_EQ(name.rfind("karpenter.k8s.aws/", 0), 0u) << name;
  templates = session_->ec2().DescribeLaunchTemplates({});
  ASSERT_TRUE(templates.ok());
  ASSERT_EQ(templates->size(), 1u);
  EXPECT_EQ((*templates)[0].name, "team-own-template");

  // A launch afterwards makes its templates again.
  ASSERT_TRUE(restarted->Create(Claim("default-h")).ok());
  templates = session_->ec2().DescribeLaunchTemplates({{"tag:karpenter.sh/nodepool", {"default"}}});
  ASSERT_TRUE(templates.ok());
  EXPECT_EQ(templates->size(), made);
}

TEST_F(AwsCloudProviderMotoTest, ACapacityErrorClosesTheOfferingsAndTheNextLaunchTakesAnotherType) {
  nodesmith::testing::InjectMotoCapacityError("c5.2xlarge");
  auto first = provider_->Create(Claim("default-i"));
  ASSERT_FALSE(first.ok());
  EXPECT_EQ(first.status().code(), core::StatusCode::kUnavailable);
  EXPECT_THAT(first.status().message(), HasSubstr("InsufficientInstanceCapacity"));
  EXPECT_TRUE(provider_->List().empty());

  // Both zones' spot c5.2xlarge are closed for the next three minutes...
  const api::NodePool pool = Pool();
  auto types = provider_->GetInstanceTypes(pool);
  ASSERT_TRUE(types.ok());
  for (const auto& t : *types) {
    if (t->name != "c5.2xlarge") continue;
    for (const auto& o : t->offerings) {
      if (o.capacity_type == "spot") {
        EXPECT_FALSE(o.available) << o.zone;
      }
    }
  }
  // ...so the NodeClaim's next launch takes the next cheapest type that fits.
  auto second = provider_->Create(Claim("default-i"));
  ASSERT_TRUE(second.ok()) << second.status().message();
  EXPECT_NE(second->metadata.labels.at("node.kubernetes.io/instance-type"), "c5.2xlarge");

  // With no time to stay closed, the offering is tried, and refused, again.
  auto forgetful = MakeProvider([](AwsCloudProviderOptions& o) { o.unavailable_for = core::Duration(0); });
  ASSERT_FALSE(forgetful->Create(Claim("default-j")).ok());
  auto again = forgetful->Create(Claim("default-j"));
  ASSERT_FALSE(again.ok());
  EXPECT_THAT(again.status().message(), HasSubstr("c5.2xlarge"));
}

TEST_F(AwsCloudProviderMotoTest, ANewImageForTheAliasDriftsTheInstance) {
  auto launched = provider_->Create(Claim("default-e"));
  ASSERT_TRUE(launched.ok()) << launched.status().message();
  auto images = session_->ec2().DescribeImages({{"architecture", {"x86_64"}}}, {}, {"amazon"});
  ASSERT_TRUE(images.ok() && images->size() > 1);
  std::string newer = (*images)[1].id == image_ ? (*images)[0].id : (*images)[1].id;
  PutMotoParameter(nodesmith::testing::kAl2023X86Alias, newer);
  node_class_.metadata.generation = 2;  // a changed class is resolved again at once
  EXPECT_EQ(provider_->IsDrifted(*launched).reason, "AMIDrift");
}

TEST_F(AwsCloudProviderMotoTest, ANodeClaimCarriesTheClassHashAndDriftsWhenTheClassChanges) {
  SetHashStamp(node_class_.metadata, kEC2NodeClassHashStamp,
               EC2NodeClassHash(node_class_, "Y2E="));
  auto launched = provider_->Create(Claim("default-h"));
  ASSERT_TRUE(launched.ok()) << launched.status().message();
  EXPECT_EQ(launched->metadata.annotations.at(kEC2NodeClassHashAnnotation),
            node_class_.metadata.annotations.at(kEC2NodeClassHashAnnotation));
  EXPECT_EQ(launched->metadata.annotations.at(kEC2NodeClassHashVersionAnnotation),
            kEC2NodeClassHashVersion);
  EXPECT_EQ(provider_->IsDrifted(*launched).reason, "");

  node_class_.user_data = "echo hello";
  node_class_.metadata.generation = 2;
  SetHashStamp(node_class_.metadata, kEC2NodeClassHashStamp,
               EC2NodeClassHash(node_class_, "Y2E="));
  EXPECT_EQ(provider_->IsDrifted(*launched).reason, "NodeClassDrift");

  // A class stamped by another scheme (Karpenter's) says nothing about this NodeClaim.
  node_class_.metadata.annotations[kEC2NodeClassHashVersionAnnotation] = "v6";
  EXPECT_EQ(provider_->IsDrifted(*launched).reason, "");
}

TEST_F(AwsCloudProviderMotoTest, AnInstanceOutsideTheClassesSubnetsIsSubnetDrifted) {
  auto launched = provider_->Create(Claim("default-s"));
  ASSERT_TRUE(launched.ok()) << launched.status().message();
  const std::string zone = launched->metadata.labels.at("topology.kubernetes.io/zone");
  auto subnets = session_->ec2().DescribeSubnets({{"tag:karpenter.sh/discovery", {"demo"}}}, {});
  ASSERT_TRUE(subnets.ok() && subnets->size() == 2);
  api::SelectorTerm other;
  for (const Subnet& s : *subnets)
    if (s.zone != zone) other.id = s.id;
  node_class_.subnet_selector_terms = {other};
  node_class_.metadata.generation = 2;
  EXPECT_EQ(provider_->IsDrifted(*launched).reason, "SubnetDrift");
}

TEST_F(AwsCloudProviderMotoTest, AnInstanceWithoutTheClassesSecurityGroupsIsDrifted) {
  auto launched = provider_->Create(Claim("default-g"));
  ASSERT_TRUE(launched.ok()) << launched.status().message();
  // moto's fleet instances list no security groups: no evidence, no drift.
  EXPECT_EQ(provider_->IsDrifted(*launched).reason, "");

  auto groups = session_->ec2().DescribeSecurityGroups({{"group-name", {"nodes"}}});
  ASSERT_TRUE(groups.ok() && groups->size() == 1);
  const std::string id = AwsCloudProvider::InstanceIdOf(launched->status.provider_id);
  ASSERT_TRUE(session_->ec2_query()
                  .Call("ModifyInstanceAttribute",
                        QueryParams().Add("InstanceId", id).Add("GroupId.1", (*groups)[0].id))
                  .ok());
  auto extra = session_->ec2_query().Call(
      "CreateSecurityGroup", QueryParams()
                                 .Add("GroupName", "extra")
                                 .Add("GroupDescription", "added later")
                                 .Add("VpcId", (*groups)[0].vpc_id));
  ASSERT_TRUE(extra.ok()) << extra.status().message();
  ASSERT_TRUE(session_->ec2()
                  .CreateTags({ChildText(extra->root, "groupId")}, {{"karpenter.sh/discovery", "demo"}})
                  .ok());
  node_class_.metadata.generation = 2;
  EXPECT_EQ(provider_->IsDrifted(*launched).reason, "SecurityGroupDrift");
}

}  // namespace
}  // namespace nodesmith::aws
