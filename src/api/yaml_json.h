// YAML/JSON text <-> nlohmann::ordered_json, the neutral form every manifest passes through.
//
// Parsing follows the YAML 1.2 core schema: quoted scalars are strings; plain scalars are
// null, booleans, integers, floats or strings by their spelling. JSON text is parsed as JSON.
// Limits keep hostile input from crashing the process: nesting deeper than kMaxDepth, scalars
// longer than kMaxScalarBytes and documents that expand (through aliases) past kMaxNodes are
// errors. Internal to api/ and cli/ (it pulls in nlohmann/json).
#pragma once

#include <string>
#include <string_view>
#include <vector>

#include <nlohmann/json.hpp>

#include "core/status.h"

namespace nodesmith::api {

inline constexpr int kMaxDepth = 512;
inline constexpr size_t kMaxScalarBytes = 2 << 20;  // etcd stores objects of at most 1.5 MiB
inline constexpr size_t kMaxNodes = 2'000'000;

// One parsed document. `error` is set (and `value` partial) when the document parsed as YAML but
// could not become JSON (e.g. a float out of range); `error_path` is the field path.
struct ParsedDocument {
  nlohmann::ordered_json value;
  std::string error;
  std::string error_path;
};

// Splits `text` into documents (multi-document YAML, or one JSON value). Empty documents are
// kept as null values so numbering matches the file. A syntax error fails the whole text with
// "document N: line L, column C: <reason>".
core::Result<std::vector<ParsedDocument>> ParseDocuments(std::string_view text);

// Block-style YAML for `value` (keys in their stored order). Strings that a YAML reader would
// take for another type ("true", "5", "") are quoted, so the text parses back to `value`.
std::string EmitYaml(const nlohmann::ordered_json& value);

// The JSON field path of a child: "spec" + "replicas" => "spec.replicas", "x" + 3 => "x[3]".
std::string JoinPath(const std::string& parent, const std::string& key);
std::string JoinPath(const std::string& parent, size_t index);

}  // namespace nodesmith::api
