// An EC2NodeClass's selector terms as the lookups they become, and the choice among the answers.
#include "cloud/aws/nodeclass_selectors.h"

#include <gmock/gmock.h>
#include <gtest/gtest.h>

#include "cloud/aws_catalog.h"

namespace nodesmith::aws {
namespace {

using ::testing::HasSubstr;

api::SelectorTerm Tags(std::map<std::string, std::string> tags) {
  api::SelectorTerm t;
  t.tags = std::move(tags);
  return t;
}

TEST(NodeClassSelectorsTest, EachSubnetTermIsOneCallWithItsTagsAnded) {
  api::SelectorTerm by_id;
  by_id.id = "subnet-123";
  auto queries = SubnetQueries({Tags({{"karpenter.sh/discovery", "demo"}, {"tier", "*"}}), by_id});
  ASSERT_EQ(queries.size(), 2u);
  ASSERT_EQ(queries[0].filters.size(), 2u);
  EXPECT_EQ(queries[0].filters[0].name, "tag:karpenter.sh/discovery");
  EXPECT_EQ(queries[0].filters[0].values, std::vector<std::string>{"demo"});
  EXPECT_EQ(queries[0].filters[1].name, "tag-key");  // "*": the key is present, any value
  EXPECT_EQ(queries[0].filters[1].values, std::vector<std::string>{"tier"});
  EXPECT_EQ(queries[1].filters[0].name, "subnet-id");
}

TEST(NodeClassSelectorsTest, SecurityGroupsMatchByIdNameOrTags) {
  api::SelectorTerm by_name;
  by_name.name = "eks-cluster-sg-demo";
  auto queries = SecurityGroupQueries({by_name});
  ASSERT_EQ(queries.size(), 1u);
  EXPECT_EQ(queries[0].filters[0].name, "group-name");
}

TEST(NodeClassSelectorsTest, AnImageNameAloneIsLookedUpAmongOwnAndAmazonImages) {
  api::SelectorTerm by_name;
  by_name.name = "my-golden-ami-*";
  api::SelectorTerm with_owner = by_name;
  with_owner.owner = "123456789012";
  api::SelectorTerm alias;
  alias.alias = "al2023@latest";
  auto queries = ImageQueries({by_name, with_owner, alias});
  ASSERT_EQ(queries.size(), 2u);  // the alias goes through SSM
  EXPECT_EQ(queries[0].owners, (std::vector<std::string>{"self", "amazon"}));
  EXPECT_EQ(queries[1].owners, std::vector<std::string>{"123456789012"});
  EXPECT_EQ(queries[0].filters.back().name, "state");
}

TEST(NodeClassSelectorsTest, Al2023LatestReadsTheRecommendedParameterPerArchitectureAndVariant) {
  auto p = AliasParameters("al2023@latest", "1.34");
  ASSERT_TRUE(p.ok()) << p.status().message();
  ASSERT_EQ(p->size(), 5u);
  EXPECT_EQ((*p)[0].name, "/aws/service/eks/optimized-ami/1.34/amazon-linux-2023/x86_64/standard/recommended/image_id");
  EXPECT_EQ((*p)[4].name, "/aws/service/eks/optimized-ami/1.34/amazon-linux-2023/arm64/nvidia/recommended/image_id");
  auto pinned = AliasParameters("al2023@v20250715", "1.33");
  ASSERT_TRUE(pinned.ok());
  EXPECT_EQ((*pinned)[0].name,
            "/aws/service/eks/optimized-ami/1.33/amazon-linux-2023/x86_64/standard/amazon-eks-node-al2023-x86_64-standard-1.33-v20250715/image_id");
}

TEST(NodeClassSelectorsTest, BottlerocketWindowsAndAl2Aliases) {
  auto br = AliasParameters("bottlerocket@v1.40.0", "1.34");
  ASSERT_TRUE(br.ok());
  EXPECT_EQ((*br)[1].name, "/aws/service/bottlerocket/aws-k8s-1.34-nvidia/x86_64/1.40.0/image_id");
  auto win = AliasParameters("windows2022@latest", "1.34");
  ASSERT_TRUE(win.ok());
  ASSERT_EQ(win->size(), 1u);
  EXPECT_EQ((*win)[0].name, "/aws/service/ami-windows-latest/Windows_Server-2022-English-Core-EKS_Optimized-1.34/image_id");
  auto al2 = AliasParameters("al2@latest", "1.32");
  ASSERT_TRUE(al2.ok());
  EXPECT_EQ((*al2)[2].name, "/aws/service/eks/optimized-ami/1.32/amazon-linux-2-gpu/recommended/image_id");
}

TEST(NodeClassSelectorsTest, AliasesThatCannotResolveSayWhy) {
  auto al2 = AliasParameters("al2@latest", "1.34");
  ASSERT_FALSE(al2.ok());
  EXPECT_THAT(al2.status().message(), HasSubstr("use al2023@latest"));
  EXPECT_THAT(AliasParameters("ubuntu@latest", "1.34").status().message(), HasSubstr("unknown family \"ubuntu\""));
  EXPECT_THAT(AliasParameters("al2023", "1.34").status().message(), HasSubstr("family@version"));
  EXPECT_THAT(AliasParameters("windows2019@v1", "1.34").status().message(), HasSubstr("only @latest"));
}

TEST(NodeClassSelectorsTest, ThePerZoneSubnetIsTheOneWithTheMostFreeAddresses) {
  std::vector<Subnet> subnets = {{"subnet-b", "us-west-2a", "", "", 100, {}},
                                 {"subnet-a", "us-west-2a", "", "", 4000, {}},
                                 {"subnet-c", "us-west-2b", "", "", 10, {}}};
  auto chosen = SubnetPerZone(subnets);
  ASSERT_EQ(chosen.size(), 2u);
  EXPECT_EQ(chosen[0].id, "subnet-a");
  EXPECT_EQ(chosen[1].id, "subnet-c");
}

TEST(NodeClassSelectorsTest, TheNewestImageWinsAndADeprecatedOneOnlyWhenAlone) {
  std::vector<ResolvedImage> images = {
      {"ami-old", "", "x86_64", "", "2025-01-01T00:00:00.000Z", false},
      {"ami-new", "", "x86_64", "", "2025-06-01T00:00:00.000Z", false},
      {"ami-newest-deprecated", "", "x86_64", "", "2025-09-01T00:00:00.000Z", true},
      {"ami-arm-deprecated", "", "arm64", "", "2025-02-01T00:00:00.000Z", true}};
  auto chosen = NewestImages(images);
  ASSERT_EQ(chosen.size(), 2u);
  EXPECT_EQ(chosen[0].id, "ami-new");
  EXPECT_EQ(chosen[1].id, "ami-arm-deprecated");
}

const cloud::InstanceType& CatalogType(const std::string& name) {
  static const cloud::InstanceTypes types = *cloud::AwsInstanceTypes({});
  for (const auto& t : types)
    if (t->name == name) return *t;
  ADD_FAILURE() << name << " is not in the catalog";
  return *types.front();
}

TEST(NodeClassSelectorsTest, AnAliasesVariantsServeTheTypesTheirRequirementsAllow) {
  const ResolvedImage standard{"ami-std", "", "x86_64", "standard", "2025-06-01T00:00:00.000Z", false};
  const ResolvedImage nvidia{"ami-gpu", "", "x86_64", "nvidia", "2025-07-01T00:00:00.000Z", false};
  const ResolvedImage neuron{"ami-inf", "", "x86_64", "neuron", "2025-05-01T00:00:00.000Z", false};
  const ResolvedImage arm{"ami-arm", "", "arm64", "standard", "2025-06-01T00:00:00.000Z", false};
  // The status's requirements, as Karpenter writes them.
  EXPECT_EQ(ImageRequirements(standard).String(),
            "karpenter.k8s.aws/instance-accelerator-count DoesNotExist, "
            "karpenter.k8s.aws/instance-gpu-count DoesNotExist, kubernetes.io/arch In [amd64]");
  EXPECT_EQ(ImageRequirements(nvidia).String(),
            "karpenter.k8s.aws/instance-gpu-count Exists, kubernetes.io/arch In [amd64]");

  const std::vector<ResolvedImage> images = NewestImages({standard, nvidia, neuron, arm});
  auto image_of = [&](const std::string& type) {
    const ResolvedImage* image = ImageForType(images, CatalogType(type));
    return image == nullptr ? std::string("none") : image->id;
  };
  EXPECT_EQ(image_of("m5.large"), "ami-std") << "the newer nvidia image is not for a type without GPU";
  EXPECT_EQ(image_of("g5.xlarge"), "ami-gpu");
  EXPECT_EQ(image_of("inf2.xlarge"), "ami-inf");
  EXPECT_EQ(image_of("m6g.large"), "ami-arm");
  // Without the nvidia image a GPU type has none; an image found by id or name serves all.
  EXPECT_EQ(ImageForType(NewestImages({standard}), CatalogType("g5.xlarge")), nullptr);
  const ResolvedImage own{"ami-own", "", "x86_64", "", "2025-01-01T00:00:00.000Z", false};
  EXPECT_EQ(ImageForType({own}, CatalogType("g5.xlarge"))->id, "ami-own");
}

}  // namespace
}  // namespace nodesmith::aws
