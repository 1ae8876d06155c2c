// ParseDocuments (YAML 1.2 core schema and JSON -> ordered_json, with the depth, scalar and alias
// expansion limits) on arbitrary text. Every document that converted cleanly must survive
// EmitYaml: the emitted text parses back to one document equal to it.
#include <cstddef>
#include <cstdint>
#include <string>
#include <string_view>

#include "api/yaml_json.h"
#include "fuzz_check.h"

extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size) {
  namespace api = nodesmith::api;
  const std::string_view text(reinterpret_cast<const char*>(data), size);
  auto docs = api::ParseDocuments(text);
  if (!docs.ok()) return 0;
  for (const auto& doc : *docs) {
    if (!doc.error.empty()) continue;
    const std::string yaml = api::EmitYaml(doc.value);
    auto again = api::ParseDocuments(yaml);
    if (!again.ok()) nodesmith::fuzz::Fail("emitted YAML does not parse", yaml + "\n" + again.status().message());
    if (again->size() != 1 || !(*again)[0].error.empty() || (*again)[0].value != doc.value) {
      nodesmith::fuzz::Fail("emitted YAML reads back different", yaml);
    }
  }
  return 0;
}
