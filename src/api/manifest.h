// Loading manifests: files, directories and stdin -> documents -> current API versions ->
// typed, defaulted and validated objects (ObjectSet). The entry point for every command's -f.
//
// A path is a file, a directory (every *.yaml, *.yml and *.json below it, recursively, in sorted
// order) or "-" (stdin, named "<stdin>"). A file holds multi-document YAML or JSON; a document of
// `kind: List` is unpacked into its items. Legacy kinds are converted (api/legacy.h). Kinds
// nodesmith does not use produce one warning each and are skipped; namespaced objects without a
// namespace get "default".
//
// Failures are all-or-nothing: the first problem fails the load with ONE message naming the
// file, the document (and List item), the object and the field path, e.g.
//   pools.yaml: document 2 (NodePool default): spec.template.spec.requirements[0].minValues: 3 is
//   more than the 2 values given
#pragma once

#include <string>
#include <string_view>
#include <vector>

#include <nlohmann/json_fwd.hpp>

#include "api/object_set.h"
#include "core/status.h"

namespace nodesmith::api {

core::Result<ObjectSet> LoadManifests(const std::vector<std::string>& paths);
// The same for text in memory; `file_name` stands for the file in messages.
core::Result<ObjectSet> LoadManifestsFromString(std::string_view text,
                                                const std::string& file_name = "<string>");

// The same for documents already read (from a live cluster, say): legacy kinds are converted,
// then each is decoded, defaulted and validated; `warnings` start the set's warnings.
core::Result<ObjectSet> LoadDocuments(std::vector<Sourced<nlohmann::ordered_json>> docs,
                                      std::vector<std::string> warnings = {});

// The documents of `paths` (Lists unpacked, legacy kinds converted to current versions), in
// input order, before typed decoding. Conversion notes go to `warnings`.
core::Result<std::vector<Sourced<nlohmann::ordered_json>>> ReadDocuments(
    const std::vector<std::string>& paths, std::vector<std::string>* warnings);
core::Result<std::vector<Sourced<nlohmann::ordered_json>>> ReadDocumentsFromString(
    std::string_view text, const std::string& file_name, std::vector<std::string>* warnings);

// Decodes, defaults and validates one current-version document into `set` (an unused kind adds
// a warning). Fails with the full one-line message.
core::Status AddDocument(const Sourced<nlohmann::ordered_json>& doc, ObjectSet* set);

// "pools.yaml: document 1, item 3 (Pod web-1)": SourceRef::Describe plus the List item.
std::string DescribeSource(const SourceRef& source);

}  // namespace nodesmith::api
