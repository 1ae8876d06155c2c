// Schema: each builder call adds exactly its keyword.
#include "crds/schema.h"

#include <gtest/gtest.h>

#include "crds/custom_resource_definition.h"

namespace nodesmith::crds {
namespace {

using Json = nlohmann::ordered_json;

TEST(Schema, QuantityIsIntOrStringWithTheQuantitySyntax) {
  Json q = Schema::Quantity().ToJson();
  EXPECT_EQ(q["anyOf"], Json::parse(R"([{"type":"integer"},{"type":"string"}])"));
  EXPECT_EQ(q["x-kubernetes-int-or-string"], true);
  EXPECT_EQ(q["pattern"].get<std::string>().substr(0, 8), R"(^(\+|-)?)");
  EXPECT_FALSE(q.contains("type"));
}

TEST(Schema, ChainsKeywords) {
  Json s =
      Schema::Object()
          .Description("d")
          .Property("a", Schema::Int32().Minimum(1).Maximum(3).Default(2))
          .Property("b",
                    Schema::Array(Schema::String().Enum({"x", "y"})).MaxItems(4).ListType("set"))
          .Property("c", Schema::Map(Schema::String()).MapType("atomic").MaxProperties(5))
          .Required({"a"})
          .ToJson();
  EXPECT_EQ(s, Json::parse(R"({"type":"object","description":"d",
    "properties":{"a":{"type":"integer","format":"int32","minimum":1,"maximum":3,"default":2},
                  "b":{"type":"array","items":{"type":"string","enum":["x","y"]},"maxItems":4,
                       "x-kubernetes-list-type":"set"},
                  "c":{"type":"object","additionalProperties":{"type":"string"},
                       "x-kubernetes-map-type":"atomic","maxProperties":5}},
    "required":["a"]})"));
}

TEST(Schema, RulesCarryOnlyTheFieldsGiven) {
  Json s = Schema::String()
               .Rule("self != ''", "empty")
               .Rule({.rule = "self.size() < 3",
                      .message_expression = "'too long: ' + self",
                      .reason = "FieldValueForbidden",
                      .field_path = ".x"})
               .ToJson();
  EXPECT_EQ(s["x-kubernetes-validations"], Json::parse(R"([{"rule":"self != ''","message":"empty"},
    {"rule":"self.size() < 3","messageExpression":"'too long: ' + self",
     "reason":"FieldValueForbidden","fieldPath":".x"}])"));
}

TEST(Schema, FreeFormAndAnyKeepUnknownFields) {
  EXPECT_EQ(Schema::FreeForm().ToJson(),
            Json::parse(R"({"type":"object","x-kubernetes-preserve-unknown-fields":true})"));
  EXPECT_EQ(Schema::Any().ToJson(),
            Json::parse(R"({"x-kubernetes-preserve-unknown-fields":true})"));
}

TEST(CustomResourceDefinition, RendersNamesColumnsAndSubresourcesWithSortedKeys) {
  CustomResourceDefinition d;
  d.group = "example.com";
  d.version = "v1";
  d.kind = "Widget";
  d.plural = "widgets";
  d.singular = "widget";
  d.short_names = {"wg"};
  d.printer_columns = {{"Size", "integer", ".spec.size", 1}};
  d.scale = ScaleSubresource{".spec.replicas", ".status.replicas"};
  d.schema = Schema::Object().Property("spec", Schema::Object());
  Json j = d.ToJson();
  EXPECT_EQ(j["metadata"]["name"], "widgets.example.com");
  EXPECT_EQ(j["spec"]["names"]["listKind"], "WidgetList");
  const Json& v = j["spec"]["versions"][0];
  EXPECT_EQ(
      v["additionalPrinterColumns"][0],
      Json::parse(R"({"jsonPath":".spec.size","name":"Size","priority":1,"type":"integer"})"));
  EXPECT_EQ(v["subresources"]["scale"]["statusReplicasPath"], ".status.replicas");
  EXPECT_TRUE(v["subresources"]["status"].is_object());
  std::vector<std::string> keys;
  for (auto it = j.begin(); it != j.end(); ++it) keys.push_back(it.key());
  EXPECT_EQ(keys, (std::vector<std::string>{"apiVersion", "kind", "metadata", "spec"}));
  Json schema = v["schema"]["openAPIV3Schema"];
  EXPECT_EQ(schema.begin().key(), "properties");  // sorted: properties < type
}

}  // namespace
}  // namespace nodesmith::crds
