// JsonView and JsonParser: a document read through simdjson's DOM is the same document as read
// through nlohmann::json — the same values, members in the same order, the same decoded objects
// and the same error messages — so the API server's pages decode exactly as files do.
#include "api/json_view.h"

#include <filesystem>
#include <fstream>
#include <functional>
#include <map>
#include <sstream>

#include <gtest/gtest.h>
#include <nlohmann/json.hpp>

#include "api/codec.h"
#include "api/yaml_json.h"

namespace nodesmith::api {
namespace {

using Json = nlohmann::ordered_json;

// What a view shows, written out: type tags, values and member order. Integers are tagged alike:
// nlohmann reads a non-negative one as unsigned, simdjson as signed when it fits, and the
// decoders treat both the same.
std::string Describe(const JsonView& v) {
  switch (v.type()) {
    case JsonView::Type::kNull: return "null";
    case JsonView::Type::kBool: return v.GetBool() ? "true" : "false";
    case JsonView::Type::kInt: return "i" + std::to_string(v.GetInt64());
    case JsonView::Type::kUint: return "i" + std::to_string(v.GetUint64());
    case JsonView::Type::kDouble: return "d" + v.Dump();
    case JsonView::Type::kString: return "s\"" + std::string(v.GetString()) + "\"";
    case JsonView::Type::kArray: {
      std::string out = "[" + std::to_string(v.size()) + ":";
      v.ForEachElement([&](size_t i, const JsonView& e) { out += std::to_string(i) + "=" + Describe(e) + ","; });
      return out + "]";
    }
    case JsonView::Type::kObject: {
      std::string out = "{" + std::to_string(v.size()) + ":";
      v.ForEachMember([&](std::string_view k, const JsonView& e) { out += std::string(k) + "=" + Describe(e) + ","; });
      return out + "}";
    }
  }
  return "?";
}

const char* kEveryKindOfValue = R"({"b": true, "f": false, "n": null, "i": -42, "z": 0,
  "u": 18446744073709551615, "big": 9223372036854775807, "d": 2.5, "whole": 3.0, "e": 1e+21,
  "s": "héllo \"quoted\" \u00e9\n", "esc\"key": 1, "empty": {}, "list": [1, "two", [3], {"four": 4}],
  "nested": {"deep": {"deeper": [null, {"x": "y"}]}}, "last": "z"})";

TEST(JsonView, ADocumentReadsTheSameThroughEitherParser) {
  const Json doc = Json::parse(kEveryKindOfValue);
  JsonParser parser;
  auto view = parser.Parse(kEveryKindOfValue);
  ASSERT_TRUE(view.ok()) << view.status().message();
  EXPECT_EQ(Describe(*view), Describe(JsonView(doc)));
  EXPECT_EQ(view->ToJson(), doc);
  EXPECT_EQ(view->Dump(), doc.dump());
  EXPECT_EQ(view->Find("whole").Dump(), "3.0") << "a whole double stays written as one";
  EXPECT_EQ(view->Find("u").type(), JsonView::Type::kUint);
  EXPECT_EQ(view->Find("u").GetUint64(), 18446744073709551615ull);
  EXPECT_EQ(view->Find("big").GetInt64(), INT64_MAX);
  EXPECT_EQ(view->Find("esc\"key").GetInt64(), 1);
}

TEST(JsonView, AbsentAndNullMembersAreNullViewsButOnlyNullOnesAreContained) {
  JsonParser parser;
  auto view = parser.Parse(R"({"a": null, "b": {"c": 1}})");
  ASSERT_TRUE(view.ok());
  const Json doc = Json::parse(R"({"a": null, "b": {"c": 1}})");
  for (const JsonView& v : {*view, JsonView(doc)}) {
    EXPECT_TRUE(v.Find("a").is_null());
    EXPECT_TRUE(v.Contains("a"));
    EXPECT_TRUE(v.Find("missing").is_null());
    EXPECT_FALSE(v.Contains("missing"));
    EXPECT_TRUE(v.Find("b").Find("c").Find("not an object").is_null());
    EXPECT_EQ(v.Find("b").Find("c").size(), 0u);
  }
}

TEST(JsonParser, AnIntegerBeyondSixtyFourBitsReadsAsNlohmannReadsIt) {
  const std::string text = R"({"huge": 123456789012345678901234567890, "name": "x"})";
  JsonParser parser;
  auto view = parser.Parse(text);
  ASSERT_TRUE(view.ok()) << view.status().message();
  EXPECT_EQ(view->Find("huge").type(), JsonView::Type::kDouble);
  EXPECT_EQ(view->ToJson(), Json::parse(text));
  EXPECT_EQ(view->Find("name").GetString(), "x");
}

TEST(JsonParser, InvalidTextFailsWithAReasonAndTheParserStaysUsable) {
  JsonParser parser;
  for (const char* bad : {"", "{", "{\"a\": }", "[1, 2", "{\"s\": \"\xff\xfe\"}", "nul",
                          "{\"e\": 1.5e380}", "{\"e\": 123456789012345678901234567890"}) {
    auto view = parser.Parse(bad);
    EXPECT_FALSE(view.ok()) << bad;
    if (!view.ok()) {
      EXPECT_NE(view.status().message().find("not valid JSON"), std::string::npos);
    }
  }
  auto view = parser.Parse(R"({"ok": true})");
  ASSERT_TRUE(view.ok());
  EXPECT_TRUE(view->Find("ok").GetBool());
}

// Decodes `doc` both ways by its kind and returns (what the nlohmann view gave, what the
// simdjson view gave): the encoded object, or the error.
using Decoder = std::function<std::string(const JsonView&)>;

template <typename T>
Decoder DecoderOf(core::Status (*decode)(const JsonView&, T*), Json (*encode)(const T&)) {
  return [decode, encode](const JsonView& doc) {
    T value{};
    core::Status st = decode(doc, &value);
    return st.ok() ? encode(value).dump() : "error: " + st.message();
  };
}

const std::map<std::string, Decoder>& Decoders() {
  static const auto* decoders = new std::map<std::string, Decoder>{
      {"Pod", DecoderOf(DecodePod, EncodePod)},
      {"Node", DecoderOf(DecodeNode, EncodeNode)},
      {"PersistentVolumeClaim", DecoderOf(DecodePersistentVolumeClaim, EncodePersistentVolumeClaim)},
      {"PersistentVolume", DecoderOf(DecodePersistentVolume, EncodePersistentVolume)},
      {"StorageClass", DecoderOf(DecodeStorageClass, EncodeStorageClass)},
      {"Deployment", DecoderOf(DecodeReplicatedWorkload, EncodeReplicatedWorkload)},
      {"ReplicaSet", DecoderOf(DecodeReplicatedWorkload, EncodeReplicatedWorkload)},
      {"StatefulSet", DecoderOf(DecodeReplicatedWorkload, EncodeReplicatedWorkload)},
      {"DaemonSet", DecoderOf(DecodeDaemonSet, EncodeDaemonSet)},
      {"Job", DecoderOf(DecodeJob, EncodeJob)},
      {"PodDisruptionBudget", DecoderOf(DecodePodDisruptionBudget, EncodePodDisruptionBudget)},
      {"NodePool", DecoderOf(DecodeNodePool, EncodeNodePool)},
      {"NodeClaim", DecoderOf(DecodeNodeClaim, EncodeNodeClaim)},
      {"EC2NodeClass", DecoderOf(DecodeEC2NodeClass, EncodeEC2NodeClass)},
      {"InstanceTypeCatalog", DecoderOf(DecodeInstanceTypeCatalog, EncodeInstanceTypeCatalog)},
  };
  return *decoders;
}

// Returns what the nlohmann view decoded to.
std::string ExpectSameDecodeBothWays(const Json& doc, const std::string& where) {
  const std::string kind = doc.is_object() && doc.contains("kind") && doc["kind"].is_string()
                               ? doc["kind"].get<std::string>()
                               : "Pod";
  auto it = Decoders().find(kind);
  if (it == Decoders().end()) return "";
  JsonParser parser;
  const std::string text = doc.dump();
  auto view = parser.Parse(text);
  EXPECT_TRUE(view.ok()) << where << ": " << view.status().message();
  if (!view.ok()) return "";
  const std::string decoded = it->second(JsonView(doc));
  EXPECT_EQ(it->second(*view), decoded) << where << ": " << text.substr(0, 300);
  return decoded;
}

TEST(JsonView, EveryExampleManifestDecodesTheSameThroughEitherParser) {
  int documents = 0;
  for (const auto& entry :
       std::filesystem::recursive_directory_iterator(std::string(NODESMITH_SOURCE_DIR) + "/examples")) {
    if (entry.path().extension() != ".yaml") continue;
    std::ifstream in(entry.path());
    std::stringstream text;
    text << in.rdbuf();
    auto docs = ParseDocuments(text.str());
    if (!docs.ok()) continue;
    for (const ParsedDocument& doc : *docs) {
      ExpectSameDecodeBothWays(doc.value, entry.path().string());
      ++documents;
    }
  }
  EXPECT_GT(documents, 50);
}

TEST(JsonView, AWrongFieldFailsWithTheSameMessageThroughEitherParser) {
  const char* bad[] = {
      R"({"kind": "Pod", "metadata": {"name": 3}})",
      R"({"kind": "Pod", "metadata": "x"})",
      R"({"kind": "Pod", "metadata": {"labels": {"a": 1}}})",
      R"({"kind": "Pod", "spec": {"containers": "x"}})",
      R"({"kind": "Pod", "spec": {"containers": [{"resources": {"requests": {"cpu": true}}}]}})",
      R"({"kind": "Pod", "spec": {"containers": [{"resources": {"requests": {"cpu": 1.5}}}]}})",
      R"({"kind": "Pod", "spec": {"containers": [{"resources": {"requests": {"cpu": 1e40}}}]}})",
      R"({"kind": "Pod", "spec": {"priority": 1e30}})",
      R"({"kind": "Pod", "spec": {"priority": 3.0}})",
      R"({"kind": "Pod", "spec": {"priority": 18446744073709551615}})",
      R"({"kind": "Pod", "spec": {"priority": -1, "nodeSelector": ["a"]}})",
      R"({"kind": "Pod", "spec": {"tolerations": [{"key": "a"}, {"key": ["b"]}]}})",
      R"({"kind": "Pod", "metadata": {"creationTimestamp": "yesterday"}})",
      R"({"kind": "Pod", "metadata": {"name": "a string far longer than forty bytes, to be summarised"}})",
      R"({"kind": "Node", "spec": {"taints": [{"key": "k", "effect": null}]}, "status": {"capacity": {"cpu": "x"}}})",
      R"({"kind": "PodDisruptionBudget", "spec": {"minAvailable": "50%", "maxUnavailable": 1.5}})",
      R"({"kind": "NodePool", "spec": {"disruption": {"budgets": [{"nodes": 5}, {"nodes": true}]}}})",
      R"({"kind": "NodePool", "spec": {"disruption": {"consolidateAfter": "5 minutes"}}})",
      R"({"kind": "NodePool", "spec": {"weight": "heavy"}})",
      R"({"kind": "EC2NodeClass", "spec": {"blockDeviceMappings": [{"ebs": {"volumeSize": 20}}, {"ebs": {"volumeSize": []}}]}})",
      R"({"kind": "InstanceTypeCatalog", "spec": {"instanceTypes": [{"price": "0.83"}, {"price": "cheap"}]}})",
  };
  int errors = 0;
  for (const char* text : bad) {
    if (ExpectSameDecodeBothWays(Json::parse(text), text).rfind("error: ", 0) == 0) ++errors;
  }
  EXPECT_GE(errors, 17) << "most of these documents are wrong";
}

}  // namespace
}  // namespace nodesmith::api
