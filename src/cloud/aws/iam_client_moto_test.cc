// IamClient against moto: an instance profile's life as a role-only EC2NodeClass drives it —
// created with a path and tags, given a role, listed, emptied and deleted.
#include <gmock/gmock.h>
#include <gtest/gtest.h>

#include "cloud/aws/aws_error.h"
#include "cloud/aws/iam_client.h"
#include "moto_test_env.h"

namespace nodesmith::aws {
namespace {

using nodesmith::testing::MotoSession;
using nodesmith::testing::ResetMoto;
using ::testing::ElementsAre;
using ::testing::HasSubstr;
using ::testing::IsEmpty;
using ::testing::Pair;
using ::testing::UnorderedElementsAre;

class IamClientMotoTest : public ::testing::Test {
 protected:
  void SetUp() override {
    ResetMoto();
    session_ = MotoSession(&clock_);
    ASSERT_NE(session_, nullptr);
    iam_ = std::make_unique<IamClient>(&session_->iam());
  }

  void CreateRole(const std::string& name, const std::string& path = "/") {
    nodesmith::testing::CreateMotoRole(*session_, name, path);
  }

  void CreateProfile(const std::string& name, const std::string& path = "/") {
    auto created = iam_->CreateInstanceProfile(name, path, {});
    ASSERT_TRUE(created.ok()) << created.status().message();
  }

  core::SystemClock clock_;
  std::unique_ptr<AwsSession> session_;
  std::unique_ptr<IamClient> iam_;
};

TEST_F(IamClientMotoTest, ACreatedProfileIsReadBackWithItsPathAndTagsAndNoRole) {
  const std::map<std::string, std::string> tags = {{"karpenter.k8s.aws/ec2nodeclass", "default"},
                                                   {"kubernetes.io/cluster/demo", "owned"}};
  auto created = iam_->CreateInstanceProfile("demo_1234", "/karpenter/us-west-2/demo/", tags);
  ASSERT_TRUE(created.ok()) << created.status().message();
  EXPECT_EQ(created->name, "demo_1234");
  EXPECT_EQ(created->path, "/karpenter/us-west-2/demo/");
  EXPECT_THAT(created->tags, UnorderedElementsAre(Pair("karpenter.k8s.aws/ec2nodeclass", "default"),
                                                  Pair("kubernetes.io/cluster/demo", "owned")));

  auto got = iam_->GetInstanceProfile("demo_1234");
  ASSERT_TRUE(got.ok()) << got.status().message();
  EXPECT_EQ(got->name, "demo_1234");
  EXPECT_EQ(got->id, created->id);
  EXPECT_FALSE(got->id.empty());
  EXPECT_EQ(got->arn, created->arn);
  EXPECT_THAT(got->arn, HasSubstr(":instance-profile/karpenter/us-west-2/demo/demo_1234"));
  EXPECT_EQ(got->path, "/karpenter/us-west-2/demo/");
  EXPECT_EQ(got->tags, tags);
  EXPECT_THAT(got->roles, IsEmpty());
}

TEST_F(IamClientMotoTest, AProfileCreatedWithoutAPathIsUnderTheRoot) {
  CreateProfile("plain", "");
  auto got = iam_->GetInstanceProfile("plain");
  ASSERT_TRUE(got.ok()) << got.status().message();
  EXPECT_EQ(got->path, "/");
  EXPECT_THAT(got->tags, IsEmpty());
}

TEST_F(IamClientMotoTest, AnAddedRoleIsShownOnTheProfile) {
  CreateRole("KarpenterNodeRole-demo");
  CreateProfile("demo_1234");
  ASSERT_TRUE(iam_->AddRoleToInstanceProfile("demo_1234", "KarpenterNodeRole-demo").ok());
  auto got = iam_->GetInstanceProfile("demo_1234");
  ASSERT_TRUE(got.ok()) << got.status().message();
  EXPECT_THAT(got->roles, ElementsAre("KarpenterNodeRole-demo"));
}

TEST_F(IamClientMotoTest, ARoleGivenWithItsPathIsAddedByItsLastSegment) {
  CreateRole("KarpenterNodeRole-demo", "/nodes/eks/");
  CreateProfile("demo_1234");
  auto added = iam_->AddRoleToInstanceProfile("demo_1234", "nodes/eks/KarpenterNodeRole-demo");
  ASSERT_TRUE(added.ok()) << added.message();
  auto got = iam_->GetInstanceProfile("demo_1234");
  ASSERT_TRUE(got.ok()) << got.status().message();
  EXPECT_THAT(got->roles, ElementsAre("KarpenterNodeRole-demo"));
}

TEST_F(IamClientMotoTest, AddingAMissingRoleIsRoleNotFound) {
  CreateProfile("demo_1234");
  core::Status added = iam_->AddRoleToInstanceProfile("demo_1234", "NoSuchRole");
  ASSERT_FALSE(added.ok());
  EXPECT_EQ(added.code(), core::StatusCode::kNotFound);
  EXPECT_EQ(ErrorCodeOf(added), "NoSuchEntity");
  EXPECT_THAT(added.message(), HasSubstr("NoSuchRole"));
  EXPECT_TRUE(IsRoleNotFound(added)) << added.message();
}

TEST_F(IamClientMotoTest, AddingARoleToAMissingProfileIsNotRoleNotFound) {
  CreateRole("KarpenterNodeRole-demo");
  // "role" in the profile's name must not make its absence read as the role's.
  core::Status added = iam_->AddRoleToInstanceProfile("node-role-profile", "KarpenterNodeRole-demo");
  ASSERT_FALSE(added.ok());
  EXPECT_EQ(added.code(), core::StatusCode::kNotFound);
  EXPECT_FALSE(IsRoleNotFound(added)) << added.message();
}

TEST_F(IamClientMotoTest, AMissingProfileIsNotFoundWithIamsCodeMessageAndRequestId) {
  auto got = iam_->GetInstanceProfile("no-such-profile");
  ASSERT_FALSE(got.ok());
  EXPECT_EQ(got.status().code(), core::StatusCode::kNotFound);
  EXPECT_EQ(ErrorCodeOf(got.status()), "NoSuchEntity");
  EXPECT_THAT(got.status().message(), HasSubstr("no-such-profile"));
  EXPECT_THAT(got.status().message(), HasSubstr("(iam GetInstanceProfile, request id "));
  EXPECT_FALSE(IsRoleNotFound(got.status()));
}

TEST_F(IamClientMotoTest, AProfileWithARoleIsDeletedOnlyOnceTheRoleIsRemoved) {
  CreateRole("KarpenterNodeRole-demo");
  CreateProfile("demo_1234");
  ASSERT_TRUE(iam_->AddRoleToInstanceProfile("demo_1234", "KarpenterNodeRole-demo").ok());

  core::Status refused = iam_->DeleteInstanceProfile("demo_1234");
  ASSERT_FALSE(refused.ok());
  EXPECT_EQ(ErrorCodeOf(refused), "DeleteConflict") << refused.message();

  core::Status removed = iam_->RemoveRoleFromInstanceProfile("demo_1234", "KarpenterNodeRole-demo");
  ASSERT_TRUE(removed.ok()) << removed.message();
  auto emptied = iam_->GetInstanceProfile("demo_1234");
  ASSERT_TRUE(emptied.ok()) << emptied.status().message();
  EXPECT_THAT(emptied->roles, IsEmpty());

  core::Status deleted = iam_->DeleteInstanceProfile("demo_1234");
  ASSERT_TRUE(deleted.ok()) << deleted.message();
  auto gone = iam_->GetInstanceProfile("demo_1234");
  ASSERT_FALSE(gone.ok());
  EXPECT_EQ(gone.status().code(), core::StatusCode::kNotFound);
}

TEST_F(IamClientMotoTest, ListingByPathPrefixReturnsOnlyTheProfilesUnderIt) {
  CreateProfile("demo_a", "/karpenter/us-west-2/demo/");
  CreateProfile("demo_b", "/karpenter/us-west-2/demo/");
  CreateProfile("other", "/other/");

  auto under = iam_->ListInstanceProfiles("/karpenter/us-west-2/demo/");
  ASSERT_TRUE(under.ok()) << under.status().message();
  std::vector<std::string> names;
  for (const InstanceProfile& p : *under) {
    names.push_back(p.name);
    EXPECT_EQ(p.path, "/karpenter/us-west-2/demo/");
  }
  EXPECT_THAT(names, UnorderedElementsAre("demo_a", "demo_b"));

  auto all = iam_->ListInstanceProfiles("");
  ASSERT_TRUE(all.ok()) << all.status().message();
  EXPECT_EQ(all->size(), 3u);
}

// IAM's own wording differs from moto's; these Statuses are what the real service answers.
core::Status IamAnswered(const std::string& message) {
  return AwsError{"iam", "AddRoleToInstanceProfile", "NoSuchEntity", message, "0f1e2d3c", 404}.ToStatus();
}

TEST(IamRoleNotFoundTest, IamsWordsForAMissingRoleAreRoleNotFoundEvenWithContextAdded) {
  core::Status missing = IamAnswered("The role with name KarpenterNodeRole-demo cannot be found.");
  EXPECT_TRUE(IsRoleNotFound(missing));
  EXPECT_TRUE(IsRoleNotFound(missing.WithPrefix("instance profile demo_1234")));
}

TEST(IamRoleNotFoundTest, IamsWordsForAMissingProfileAreNotRoleNotFound) {
  EXPECT_FALSE(IsRoleNotFound(IamAnswered("Instance Profile node-role-profile cannot be found.")));
  EXPECT_FALSE(IsRoleNotFound(core::Status::NotFound("role KarpenterNodeRole-demo not found")));
}

}  // namespace
}  // namespace nodesmith::aws
