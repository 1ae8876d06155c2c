#include "api/hash_stamp.h"

namespace nodesmith::api {
namespace {

const std::string* Annotation(const ObjectMeta& meta, const char* key) {
  auto it = meta.annotations.find(key);
  return it == meta.annotations.end() ? nullptr : &it->second;
}

}  // namespace

bool HasCurrentHashVersion(const ObjectMeta& meta, const HashStamp& stamp) {
  const std::string* version = Annotation(meta, stamp.version_annotation);
  return version != nullptr && *version == stamp.version;
}

bool SetHashStamp(ObjectMeta& meta, const HashStamp& stamp, const std::string& hash) {
  bool changed = SetAnnotation(meta, stamp.hash_annotation, hash);
  return SetAnnotation(meta, stamp.version_annotation, stamp.version) || changed;
}

bool RestampNodeClaim(NodeClaim& claim, const HashStamp& stamp, const std::string& hash) {
  if (HasCurrentHashVersion(claim.metadata, stamp)) return false;
  bool changed = SetAnnotation(claim.metadata, stamp.version_annotation, stamp.version);
  if (claim.FindCondition("Drifted") == nullptr) {
    changed = SetAnnotation(claim.metadata, stamp.hash_annotation, hash) || changed;
  }
  return changed;
}

bool HashStampsDiffer(const ObjectMeta& launched_from, const ObjectMeta& claim,
                      const HashStamp& stamp) {
  const std::string* from_hash = Annotation(launched_from, stamp.hash_annotation);
  const std::string* from_version = Annotation(launched_from, stamp.version_annotation);
  const std::string* claim_hash = Annotation(claim, stamp.hash_annotation);
  const std::string* claim_version = Annotation(claim, stamp.version_annotation);
  if (!from_hash || !from_version || !claim_hash || !claim_version) return false;
  if (*from_version != *claim_version) return false;
  return *from_hash != *claim_hash;
}

}  // namespace nodesmith::api
