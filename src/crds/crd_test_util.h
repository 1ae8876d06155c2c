// Helpers of the crds tests: the reference CRDs (Karpenter's, in the shared test data), and
// schemas compared without their descriptions.
#pragma once

#include <cstdlib>
#include <fstream>
#include <nlohmann/json.hpp>
#include <sstream>
#include <string>
#include <vector>

#include "api/yaml_json.h"

namespace nodesmith::crds::testutil {

inline std::string ReadTextFile(const std::string& path) {
  std::ifstream in(path);
  std::stringstream ss;
  ss << in.rdbuf();
  return ss.str();
}

inline std::string SharedData() {
  const char* d = std::getenv("NODESMITH_SHARED_DATA");
  return d != nullptr && d[0] != '\0' ? d : NODESMITH_SHARED_DATA;
}

// The reference CRD file "<group>_<plural>.yaml", as text.
inline std::string ReferenceCrdText(const std::string& file) {
  return ReadTextFile(SharedData() + "/karpenter-crds/" + file);
}

// The first document of `text`, or null.
inline nlohmann::ordered_json FirstDocument(const std::string& text) {
  auto docs = api::ParseDocuments(text);
  if (!docs.ok()) return nullptr;
  for (const api::ParsedDocument& d : *docs) {
    if (!d.value.is_null()) return d.value;
  }
  return nullptr;
}

// `value` without the `description` of any schema node (a property *named* description, under
// "properties", is kept) and as an unordered JSON value, so key order does not matter.
inline nlohmann::json WithoutDescriptions(const nlohmann::ordered_json& value,
                                          bool in_properties = false) {
  if (value.is_array()) {
    nlohmann::json out = nlohmann::json::array();
    for (const auto& item : value) out.push_back(WithoutDescriptions(item));
    return out;
  }
  if (!value.is_object()) return nlohmann::json::parse(value.dump());
  nlohmann::json out = nlohmann::json::object();
  for (auto it = value.begin(); it != value.end(); ++it) {
    if (!in_properties && it.key() == "description") continue;
    out[it.key()] = WithoutDescriptions(it.value(), !in_properties && it.key() == "properties");
  }
  return out;
}

// The paths at which `a` and `b` differ ("spec.versions[0]...: only in a").
inline void Differences(const nlohmann::json& a, const nlohmann::json& b, const std::string& path,
                        std::vector<std::string>* out) {
  if (a.type() != b.type()) {
    out->push_back(path + ": " + a.dump() + " vs " + b.dump());
    return;
  }
  if (a.is_object()) {
    for (auto it = a.begin(); it != a.end(); ++it) {
      if (!b.contains(it.key())) {
        out->push_back(path + "." + it.key() + ": only in the first");
      } else {
        Differences(it.value(), b[it.key()], path + "." + it.key(), out);
      }
    }
    for (auto it = b.begin(); it != b.end(); ++it) {
      if (!a.contains(it.key())) out->push_back(path + "." + it.key() + ": only in the second");
    }
  } else if (a.is_array() && a.size() == b.size()) {
    for (size_t i = 0; i < a.size(); ++i) {
      Differences(a[i], b[i], path + "[" + std::to_string(i) + "]", out);
    }
  } else if (a != b) {
    out->push_back(path + ": " + a.dump() + " vs " + b.dump());
  }
}

}  // namespace nodesmith::crds::testutil
