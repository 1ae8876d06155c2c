// DecodeObject: a list page's items, read through simdjson, decode as the same objects read one
// by one through nlohmann::json — including the items that carry no apiVersion or kind.
#include "kube/object_codec.h"

#include <gtest/gtest.h>
#include <nlohmann/json.hpp>

namespace nodesmith::kube {
namespace {

const char* kDeploymentList = R"({"kind": "DeploymentList", "apiVersion": "apps/v1",
  "metadata": {"resourceVersion": "42"},
  "items": [{"metadata": {"name": "web", "namespace": "prod", "uid": "u1", "resourceVersion": "41",
                          "managedFields": [{"manager": "kubectl", "fieldsV1": {"f:spec": {}}}]},
             "spec": {"replicas": 3, "selector": {"matchLabels": {"app": "web"}},
                      "template": {"metadata": {"labels": {"app": "web"}},
                                   "spec": {"containers": [{"name": "app",
                                       "resources": {"requests": {"cpu": "250m", "memory": 1073741824}}}]}}}}]})";

TEST(DecodeObject, AListItemWithoutKindTakesItsResourcesKind) {
  api::JsonParser parser;
  auto list = parser.Parse(kDeploymentList);
  ASSERT_TRUE(list.ok()) << list.status().message();
  ASSERT_EQ(list->Find("items").size(), 1u);
  api::JsonView item;
  list->Find("items").ForEachElement([&](size_t, const api::JsonView& v) { item = v; });
  auto decoded = DecodeObject(resources::kDeployments, item);
  ASSERT_TRUE(decoded.ok()) << decoded.status().message();
  const auto& workload = std::get<api::ReplicatedWorkload>(*decoded);
  EXPECT_EQ(workload.kind, "Deployment");
  EXPECT_EQ(workload.metadata.name, "web");
  EXPECT_EQ(workload.replicas, 3);

  // The same item read alone through nlohmann::json, as a write's answer is, decodes alike.
  nlohmann::ordered_json alone = nlohmann::ordered_json::parse(kDeploymentList)["items"][0];
  auto again = DecodeObject(resources::kDeployments, alone);
  ASSERT_TRUE(again.ok()) << again.status().message();
  EXPECT_EQ(EncodeObject(*again), EncodeObject(*decoded));
}

TEST(DecodeObject, AnItemThatDoesNotDecodeNamesTheField) {
  api::JsonParser parser;
  auto pod = parser.Parse(R"({"metadata": {"name": "p"}, "spec": {"priority": "high"}})");
  ASSERT_TRUE(pod.ok());
  auto decoded = DecodeObject(resources::kPods, *pod);
  ASSERT_FALSE(decoded.ok());
  EXPECT_NE(decoded.status().message().find("spec.priority"), std::string::npos)
      << decoded.status().message();
}

}  // namespace
}  // namespace nodesmith::kube
