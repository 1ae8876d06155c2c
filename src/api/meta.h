// ObjectMeta and the small shared pieces of every Kubernetes object (owner references,
// conditions). Plain value types; decode/encode live in api/codec.h.
#pragma once

#include <cstdint>
#include <map>
#include <optional>
#include <string>
#include <vector>

#include "core/time.h"

namespace nodesmith::api {

using Labels = std::map<std::string, std::string>;

struct OwnerReference {
  std::string api_version;
  std::string kind;
  std::string name;
  std::string uid;
  bool controller = false;
};

struct ObjectMeta {
  std::string name;
  std::string generate_name;
  std::string namespace_;  // "" for cluster-scoped kinds; "default" is filled in for namespaced ones
  std::string uid;
  std::string resource_version;
  int64_t generation = 0;
  Labels labels;
  std::map<std::string, std::string> annotations;
  std::vector<OwnerReference> owner_references;
  std::vector<std::string> finalizers;
  std::optional<core::Time> creation_timestamp;
  std::optional<core::Time> deletion_timestamp;

  // "namespace/name" for namespaced objects, "name" otherwise.
  std::string Key() const { return namespace_.empty() ? name : namespace_ + "/" + name; }
};

// Sets annotation `key` to `value`; true when that changed the object.
bool SetAnnotation(ObjectMeta& meta, const std::string& key, const std::string& value);

// A status condition (metav1.Condition / NodeCondition / PodCondition share these fields).
struct Condition {
  std::string type;
  std::string status;  // "True", "False", "Unknown"
  std::string reason;
  std::string message;
  std::optional<core::Time> last_transition_time;
  int64_t observed_generation = 0;  // metav1.Condition's; 0: not set (Node and Pod conditions)
  bool operator==(const Condition&) const = default;
};

// Where an object came from: for error messages ("pools.yaml: document 2 (NodePool default)").
struct SourceRef {
  std::string file;   // path as given, or "<stdin>"
  int document = 0;   // 1-based document number within the file
  std::string kind;
  std::string name;
  int item = 0;  // 1-based item within a `kind: List` document; 0 when not a List item
  std::string Describe() const;  // "pools.yaml: document 2 (NodePool default)"
};

}  // namespace nodesmith::api
