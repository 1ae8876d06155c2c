// ResourceType: where a kind lives in the Kubernetes REST API (group, version, plural
// resource, scope), and the table of every kind nodesmith reads or writes.
//
// The cluster::Kind of the controllers maps to one resource, except ReplicatedWorkload, which is
// three (Deployments, ReplicaSets, StatefulSets). Leases, Events, Namespaces, CSINodes and
// VolumeAttachments are used by the client itself (leader election, the event recorder) and by
// controllers that need them; they have no cluster::Kind.
#pragma once

#include <string>
#include <string_view>
#include <vector>

#include "cluster/cluster_api.h"

namespace nodesmith::kube {

struct ResourceType {
  std::string_view group;     // "" for the core group
  std::string_view version;   // "v1"
  std::string_view resource;  // plural, lower case: "pods"
  std::string_view kind;      // "Pod"
  bool namespaced;

  std::string ApiVersion() const;  // "v1", "apps/v1", "karpenter.sh/v1"
  // "/api/v1" or "/apis/<group>/<version>".
  std::string GroupVersionPath() const;
  // The collection: ".../namespaces/<ns>/pods", or ".../pods" across namespaces (ns "") and for
  // cluster-scoped kinds.
  std::string CollectionPath(const std::string& ns) const;
  // One object, and optionally a subresource: ".../namespaces/<ns>/pods/<name>/eviction".
  std::string ObjectPath(const std::string& ns, const std::string& name,
                         const std::string& subresource = "") const;
  // "pods", or "nodepools.karpenter.sh": how RBAC and kubectl name it.
  std::string QualifiedResource() const;
};

namespace resources {
extern const ResourceType kPods, kNodes, kNamespaces, kEvents, kPersistentVolumeClaims,
    kPersistentVolumes, kServices;
extern const ResourceType kServiceCIDRs;
extern const ResourceType kDeployments, kReplicaSets, kStatefulSets, kDaemonSets;
extern const ResourceType kJobs, kPodDisruptionBudgets, kStorageClasses, kCSINodes,
    kVolumeAttachments, kLeases, kEventsV1;
extern const ResourceType kNodePools, kNodeClaims, kEC2NodeClasses;
// The kwok provider's node class; read directly, not through a cluster::Kind.
extern const ResourceType kKWOKNodeClasses;
}  // namespace resources

// The resources a cluster::Kind is stored in (three for kReplicatedWorkload, one otherwise).
std::vector<const ResourceType*> ResourcesOf(cluster::Kind kind);
// The resource of a workload kind name ("Deployment", "ReplicaSet", "StatefulSet"); null otherwise.
const ResourceType* WorkloadResource(std::string_view kind);
// The resource holding `object` (for a ReplicatedWorkload, by its workload kind).
const ResourceType& ResourceOfObject(const cluster::Object& object);
// URL query escaping of one value.
std::string QueryEscape(std::string_view value);

}  // namespace nodesmith::kube
