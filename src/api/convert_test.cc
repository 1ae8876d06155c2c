// ConvertToYaml: the text `nodesmith convert` prints loads again, and the walkthrough example
// converts to exactly its hand-written v1 equivalent.
#include "api/convert.h"

#include <gtest/gtest.h>
#include <nlohmann/json.hpp>

#include "api/codec.h"
#include "api/manifest.h"

namespace nodesmith::api {
namespace {

const std::string kExamples = std::string(NODESMITH_SOURCE_DIR) + "/examples/";

std::string ConvertPaths(const std::vector<std::string>& paths) {
  std::vector<std::string> warnings;
  auto docs = ReadDocuments(paths, &warnings);
  EXPECT_TRUE(docs.ok()) << docs.status().message();
  if (!docs.ok()) return "";
  auto yaml = ConvertToYaml(*docs);
  EXPECT_TRUE(yaml.ok()) << yaml.status().message();
  return yaml.ok() ? *yaml : "";
}

class ConvertedExample : public ::testing::TestWithParam<const char*> {};

TEST_P(ConvertedExample, LoadsAgainWithoutError) {
  std::string yaml = ConvertPaths({kExamples + GetParam()});
  ASSERT_FALSE(yaml.empty());
  auto again = LoadManifestsFromString(yaml, "converted.yaml");
  ASSERT_TRUE(again.ok()) << again.status().message() << "\n" << yaml;
  EXPECT_TRUE(again->warnings.empty());
  // Converting converted output changes nothing.
  std::vector<std::string> warnings;
  auto docs = ReadDocumentsFromString(yaml, "converted.yaml", &warnings);
  ASSERT_TRUE(docs.ok());
  EXPECT_EQ(*ConvertToYaml(*docs), yaml);
}

INSTANTIATE_TEST_SUITE_P(Examples, ConvertedExample,
                         ::testing::Values("seed-walkthrough", "seed-nodeselector", "gpu", "v1"),
                         [](const ::testing::TestParamInfo<const char*>& info) {
                           std::string name = info.param;
                           for (char& c : name) {
                             if (c == '-') c = '_';
                           }
                           return name;
                         });

TEST(ConvertToYaml, TheWalkthroughBecomesTheHandWrittenV1Example) {
  auto converted = LoadManifestsFromString(ConvertPaths({kExamples + "seed-walkthrough"}), "converted.yaml");
  auto v1 = LoadManifests({kExamples + "v1"});
  ASSERT_TRUE(converted.ok()) << converted.status().message();
  ASSERT_TRUE(v1.ok()) << v1.status().message();
  ASSERT_EQ(converted->node_pools.size(), 1u);
  ASSERT_EQ(v1->node_pools.size(), 1u);
  EXPECT_EQ(EncodeNodePool(converted->node_pools[0].object), EncodeNodePool(v1->node_pools[0].object));
  ASSERT_EQ(converted->ec2_node_classes.size(), 1u);
  EXPECT_EQ(EncodeEC2NodeClass(converted->ec2_node_classes[0].object),
            EncodeEC2NodeClass(v1->ec2_node_classes[0].object));
  EXPECT_EQ(EncodeReplicatedWorkload(converted->replicated_workloads[0].object),
            EncodeReplicatedWorkload(v1->replicated_workloads[0].object));
}

TEST(ConvertToYaml, PrintsUnusedKindsAsGiven) {
  std::vector<std::string> warnings;
  auto docs = ReadDocumentsFromString("apiVersion: v1\nkind: ConfigMap\nmetadata: {name: c}\ndata: {k: \"1\"}\n",
                                      "cm.yaml", &warnings);
  ASSERT_TRUE(docs.ok());
  EXPECT_EQ(*ConvertToYaml(*docs), "apiVersion: v1\nkind: ConfigMap\nmetadata:\n  name: c\ndata:\n  k: \"1\"\n");
}

}  // namespace
}  // namespace nodesmith::api
