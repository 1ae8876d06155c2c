#include "api/meta.h"

namespace nodesmith::api {

// "pools.yaml: document 2 (NodePool default)"; the document number is left out when unknown
// (0) and the parenthesis keeps only the parts that are set.
std::string SourceRef::Describe() const {
  std::string out = file.empty() ? "<unknown>" : file;
  if (document > 0) out += ": document " + std::to_string(document);
  std::string what = kind;
  if (!name.empty()) {
    if (!what.empty()) what += ' ';
    what += name;
  }
  if (!what.empty()) out += " (" + what + ")";
  return out;
}

bool SetAnnotation(ObjectMeta& meta, const std::string& key, const std::string& value) {
  auto [it, added] = meta.annotations.try_emplace(key, value);
  if (added) return true;
  if (it->second == value) return false;
  it->second = value;
  return true;
}

}  // namespace nodesmith::api
