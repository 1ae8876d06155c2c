// The EC2NodeClass hash: what of an EC2NodeClass a launched instance cannot follow without being
// replaced, as one stamp (api/hash_stamp.h) — karpenter.k8s.aws/ec2nodeclass-hash and
// karpenter.k8s.aws/ec2nodeclass-hash-version. The class carries the hash of its spec now; each
// NodeClaim carries the hash of the spec it was launched from; they differ: NodeClassDrift.
//
// Hashed as Karpenter hashes it: the spec without the selector terms (subnets, security groups,
// capacity reservations, AMIs: their drift is judged from what they resolve to) and without
// ipPrefixCount, plus the AMI family it resolves to (so naming the family an alias implies is
// no change), the kubelet settings and the cluster's CA bundle. Lists are sets (reordering block
// device mappings is no drift). The scheme is nodesmith's own, so its version names it
// (kEC2NodeClassHashVersion): a class or NodeClaim stamped by Karpenter is re-stamped, not
// taken for drift.
//
// NodeClassHashController keeps the class's stamp current and, when the class was stamped by
// another version, first moves the class's NodeClaims (spec.nodeClassRef) onto this one.
// Writes only what changes. Not thread-safe. REQUIRES: `cluster` outlives the controller.
#pragma once

#include <string>
#include <vector>

#include "api/ec2nodeclass.h"
#include "api/hash_stamp.h"
#include "cluster/cluster_api.h"
#include "runtime/controller.h"

namespace nodesmith::aws {

inline constexpr const char* kNodeClassHashControllerName = "nodeclass.hash";
inline constexpr const char* kEC2NodeClassHashAnnotation = "karpenter.k8s.aws/ec2nodeclass-hash";
inline constexpr const char* kEC2NodeClassHashVersionAnnotation =
    "karpenter.k8s.aws/ec2nodeclass-hash-version";
inline constexpr const char* kEC2NodeClassHashVersion = "nodesmith-v1";
inline constexpr api::HashStamp kEC2NodeClassHashStamp{
    kEC2NodeClassHashAnnotation, kEC2NodeClassHashVersionAnnotation, kEC2NodeClassHashVersion};

// The class's hash (decimal) with the cluster's CA bundle as the nodes' user data carries it.
std::string EC2NodeClassHash(const api::EC2NodeClass& node_class, const std::string& ca_bundle);

class NodeClassHashController : public runtime::Controller {
 public:
  NodeClassHashController(cluster::ClusterApi& cluster, std::string ca_bundle);

  std::string Name() const override { return kNodeClassHashControllerName; }
  std::vector<cluster::Kind> Watches() const override { return {cluster::Kind::kEC2NodeClass}; }
  bool Singleton() const override { return false; }
  core::Result<runtime::ReconcileResult> Reconcile(const runtime::Request& request) override;

 private:
  core::Status RestampNodeClaims(const std::string& node_class, const std::string& hash);

  cluster::ClusterApi& cluster_;
  std::string ca_bundle_;
};

}  // namespace nodesmith::aws
