// HashStamp: a pair of annotations — a hash of what an object was launched from, and the
// version of the hashing scheme — as Karpenter stamps NodePools (karpenter.sh/nodepool-hash)
// and EC2NodeClasses (karpenter.k8s.aws/ec2nodeclass-hash) and copies the stamp onto each
// NodeClaim at launch. Drift compares two stamps only when their versions agree: a hash made
// by another scheme (an older release, or another autoscaler) says nothing about drift.
//
// Moving a NodeClaim to the current version follows Karpenter's drift-hash-versioning design:
// it takes the current version and, unless it is already Drifted (a drift the old hash can
// neither confirm nor clear), the current hash.
#pragma once

#include <string>

#include "api/meta.h"
#include "api/nodeclaim.h"

namespace nodesmith::api {

struct HashStamp {
  const char* hash_annotation;
  const char* version_annotation;
  const char* version;  // the current scheme
};

// The object carries `stamp.version`.
bool HasCurrentHashVersion(const ObjectMeta& meta, const HashStamp& stamp);
// Stamps `meta` with `hash` at the current version; true when that changed it.
bool SetHashStamp(ObjectMeta& meta, const HashStamp& stamp, const std::string& hash);
// Moves a NodeClaim stamped by another version onto the current one (see above); true when
// that changed it. A NodeClaim already on the current version is left alone.
bool RestampNodeClaim(NodeClaim& claim, const HashStamp& stamp, const std::string& hash);
// Both carry a hash at the same version and the hashes differ. False when either lacks a
// stamp or the versions differ.
bool HashStampsDiffer(const ObjectMeta& launched_from, const ObjectMeta& claim,
                      const HashStamp& stamp);

}  // namespace nodesmith::api
