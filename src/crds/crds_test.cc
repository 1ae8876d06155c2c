// The CRDs nodesmith serves: the same schemas as Karpenter's reference CRDs (descriptions aside),
// deploy/crds/ exactly what the code renders, and the output stable and parseable.
#include "crds/crds.h"

#include <gmock/gmock.h>
#include <gtest/gtest.h>

#include <filesystem>
#include <set>

#include "api/ami_family.h"
#include "api/yaml_json.h"
#include "crds/ami_families.h"
#include "crds/crd_test_util.h"

namespace nodesmith::crds {
namespace {

using ::testing::ElementsAre;
using Json = nlohmann::ordered_json;
using namespace nodesmith::crds::testutil;

Json Find(const std::string& name) {
  for (const Json& crd : AllCrds()) {
    if (crd["metadata"]["name"] == name) return crd;
  }
  return nullptr;
}

// Ours and the reference, compared without descriptions and without the reference's
// controller-gen annotation.
void ExpectSameAsReference(const std::string& name) {
  SCOPED_TRACE(name);
  Json ours = Find(name);
  ASSERT_FALSE(ours.is_null());
  std::string group = ours["spec"]["group"], plural = ours["spec"]["names"]["plural"];
  Json reference = FirstDocument(ReferenceCrdText(group + "_" + plural + ".yaml"));
  ASSERT_FALSE(reference.is_null()) << "reference CRD for " << name << " not found";
  reference["metadata"].erase("annotations");
  std::vector<std::string> diffs;
  Differences(WithoutDescriptions(ours), WithoutDescriptions(reference), "", &diffs);
  EXPECT_THAT(diffs, ::testing::IsEmpty()) << ::testing::PrintToString(diffs);
}

TEST(Crds, NodePoolIsKarpentersSchema) { ExpectSameAsReference("nodepools.karpenter.sh"); }
TEST(Crds, NodeClaimIsKarpentersSchema) { ExpectSameAsReference("nodeclaims.karpenter.sh"); }
TEST(Crds, EC2NodeClassIsKarpentersSchema) {
  ExpectSameAsReference("ec2nodeclasses.karpenter.k8s.aws");
}

TEST(Crds, KWOKNodeClassIsTheKwokProvidersNodeClass) {
  Json crd = Find("kwoknodeclasses.karpenter.kwok.sh");
  ASSERT_FALSE(crd.is_null());
  EXPECT_EQ(crd["spec"]["group"], "karpenter.kwok.sh");
  EXPECT_EQ(crd["spec"]["scope"], "Cluster");
  EXPECT_EQ(crd["spec"]["names"]["kind"], "KWOKNodeClass");
  EXPECT_EQ(crd["spec"]["names"]["shortNames"], Json::array({"kwoknc", "kwokncs"}));
  EXPECT_EQ(crd["spec"]["names"]["categories"], Json::array({"karpenter"}));
  const Json& v = crd["spec"]["versions"][0];
  EXPECT_EQ(v["name"], "v1alpha1");
  EXPECT_EQ(v["subresources"], Json({{"status", Json::object()}}));
  const Json& schema = v["schema"]["openAPIV3Schema"];
  EXPECT_EQ(schema["properties"]["spec"]["properties"]["nodeRegistrationDelay"]["pattern"],
            "^([0-9]+(s|m|h))+$");
  const Json& status_default = schema["properties"]["status"]["default"];
  ASSERT_EQ(status_default["conditions"].size(), 1u);
  EXPECT_EQ(status_default["conditions"][0]["type"], "Ready");
  EXPECT_EQ(status_default["conditions"][0]["status"], "True");
  // Its conditions follow the same (strict) condition schema as the EC2NodeClass's.
  Json ec2 = Find("ec2nodeclasses.karpenter.k8s.aws");
  EXPECT_EQ(WithoutDescriptions(schema["properties"]["status"]["properties"]["conditions"]),
            WithoutDescriptions(ec2["spec"]["versions"][0]["schema"]["openAPIV3Schema"]
                                   ["properties"]["status"]["properties"]["conditions"]));
}

TEST(Crds, AreSortedByNameAndClusterScopedInTheKarpenterCategory) {
  std::vector<std::string> names;
  for (const Json& crd : AllCrds()) {
    names.push_back(crd["metadata"]["name"]);
    EXPECT_EQ(crd["spec"]["scope"], "Cluster");
    EXPECT_EQ(crd["spec"]["names"]["categories"], Json::array({"karpenter"}));
  }
  EXPECT_THAT(names,
              ElementsAre("ec2nodeclasses.karpenter.k8s.aws", "kwoknodeclasses.karpenter.kwok.sh",
                          "nodeclaims.karpenter.sh", "nodepools.karpenter.sh"));
}

// Every field says what it is, in a line or two.
void ExpectDescribed(const Json& node, const std::string& path, std::vector<std::string>* bare) {
  if (!node.is_object()) return;
  if (node.contains("properties")) {
    for (auto it = node["properties"].begin(); it != node["properties"].end(); ++it) {
      if (it.key() == "metadata" && path.empty()) continue;  // the API server's own
      if (!it.value().contains("description")) bare->push_back(path + "." + it.key());
      ExpectDescribed(it.value(), path + "." + it.key(), bare);
    }
  }
  if (node.contains("items")) ExpectDescribed(node["items"], path + "[]", bare);
  if (node.contains("additionalProperties")) {
    ExpectDescribed(node["additionalProperties"], path + ".*", bare);
  }
}

TEST(Crds, EveryFieldIsDescribed) {
  for (const Json& crd : AllCrds()) {
    std::vector<std::string> bare;
    ExpectDescribed(crd["spec"]["versions"][0]["schema"]["openAPIV3Schema"], "", &bare);
    EXPECT_THAT(bare, ::testing::IsEmpty()) << crd["metadata"]["name"];
  }
}

TEST(Crds, AliasFamiliesAreTheOnesTheDecoderKnows) {
  for (const AmiFamily& f : AliasAmiFamilies()) {
    EXPECT_EQ(api::AmiFamilyOfAlias(std::string(f.alias) + "@latest"), f.ami_family) << f.alias;
  }
}

TEST(Crds, YamlParsesBackToTheSameObjects) {
  auto docs = api::ParseDocuments(RenderYaml());
  ASSERT_TRUE(docs.ok()) << docs.status().message();
  std::vector<Json> crds = AllCrds();
  ASSERT_EQ(docs->size(), crds.size());
  for (size_t i = 0; i < crds.size(); ++i) {
    EXPECT_EQ((*docs)[i].error, "");
    EXPECT_EQ(WithoutDescriptions((*docs)[i].value, true), WithoutDescriptions(crds[i], true));
    EXPECT_EQ((*docs)[i].value.dump(), crds[i].dump()) << "key order changed on the way back";
  }
  EXPECT_EQ(RenderYaml(), RenderYaml());
}

TEST(Crds, ListHoldsEveryCrd) {
  Json list = RenderList();
  EXPECT_EQ(list["apiVersion"], "v1");
  EXPECT_EQ(list["kind"], "List");
  EXPECT_EQ(list["items"].size(), 4u);
}

// deploy/crds/ is the rendering checked in: regenerate with `nodesmith crds --dir deploy/crds`.
TEST(Crds, DeployDirectoryIsWhatTheCodeRenders) {
  namespace fs = std::filesystem;
  const fs::path dir = fs::path(NODESMITH_SOURCE_DIR) / "deploy" / "crds";
  std::set<std::string> expected;
  for (const CrdFile& f : RenderFiles()) {
    expected.insert(f.name);
    EXPECT_TRUE(ReadTextFile((dir / f.name).string()) == f.yaml)
        << (dir / f.name) << " differs from what nodesmith renders; regenerate it with "
        << "`nodesmith crds --dir deploy/crds`";
  }
  for (const auto& entry : fs::directory_iterator(dir)) {
    std::string name = entry.path().filename().string();
    if (name == "README.md") continue;
    EXPECT_TRUE(expected.count(name)) << (dir / name) << " is not a CRD nodesmith renders";
  }
}

TEST(Crds, FileNamesAreGroupAndPlural) {
  std::vector<std::string> names;
  for (const CrdFile& f : RenderFiles()) names.push_back(f.name);
  EXPECT_THAT(names, ElementsAre("karpenter.k8s.aws_ec2nodeclasses.yaml",
                                 "karpenter.kwok.sh_kwoknodeclasses.yaml",
                                 "karpenter.sh_nodeclaims.yaml", "karpenter.sh_nodepools.yaml"));
}

}  // namespace
}  // namespace nodesmith::crds
