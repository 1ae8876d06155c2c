#include "kube/resources.h"

#include <cctype>
#include <cstdio>

namespace nodesmith::kube {

namespace resources {
const ResourceType kPods{"", "v1", "pods", "Pod", true};
const ResourceType kNodes{"", "v1", "nodes", "Node", false};
const ResourceType kNamespaces{"", "v1", "namespaces", "Namespace", false};
const ResourceType kEvents{"", "v1", "events", "Event", true};
const ResourceType kPersistentVolumeClaims{"", "v1", "persistentvolumeclaims",
                                           "PersistentVolumeClaim", true};
const ResourceType kPersistentVolumes{"", "v1", "persistentvolumes", "PersistentVolume", false};
const ResourceType kServices{"", "v1", "services", "Service", true};
const ResourceType kServiceCIDRs{"networking.k8s.io", "v1", "servicecidrs", "ServiceCIDR", false};
const ResourceType kDeployments{"apps", "v1", "deployments", "Deployment", true};
const ResourceType kReplicaSets{"apps", "v1", "replicasets", "ReplicaSet", true};
const ResourceType kStatefulSets{"apps", "v1", "statefulsets", "StatefulSet", true};
const ResourceType kDaemonSets{"apps", "v1", "daemonsets", "DaemonSet", true};
const ResourceType kJobs{"batch", "v1", "jobs", "Job", true};
const ResourceType kPodDisruptionBudgets{"policy", "v1", "poddisruptionbudgets",
                                         "PodDisruptionBudget", true};
const ResourceType kStorageClasses{"storage.k8s.io", "v1", "storageclasses", "StorageClass", false};
const ResourceType kCSINodes{"storage.k8s.io", "v1", "csinodes", "CSINode", false};
const ResourceType kVolumeAttachments{"storage.k8s.io", "v1", "volumeattachments",
                                      "VolumeAttachment", false};
const ResourceType kLeases{"coordination.k8s.io", "v1", "leases", "Lease", true};
const ResourceType kEventsV1{"events.k8s.io", "v1", "events", "Event", true};
const ResourceType kNodePools{"karpenter.sh", "v1", "nodepools", "NodePool", false};
const ResourceType kNodeClaims{"karpenter.sh", "v1", "nodeclaims", "NodeClaim", false};
const ResourceType kEC2NodeClasses{"karpenter.k8s.aws", "v1", "ec2nodeclasses", "EC2NodeClass",
                                   false};
const ResourceType kKWOKNodeClasses{"karpenter.kwok.sh", "v1alpha1", "kwoknodeclasses",
                                    "KWOKNodeClass", false};
}  // namespace resources

std::string ResourceType::ApiVersion() const {
  return group.empty() ? std::string(version) : std::string(group) + "/" + std::string(version);
}

std::string ResourceType::GroupVersionPath() const {
  return group.empty() ? "/api/" + std::string(version) : "/apis/" + ApiVersion();
}

std::string ResourceType::CollectionPath(const std::string& ns) const {
  std::string path = GroupVersionPath();
  if (namespaced && !ns.empty()) path += "/namespaces/" + QueryEscape(ns);
  return path + "/" + std::string(resource);
}

std::string ResourceType::ObjectPath(const std::string& ns, const std::string& name,
                                     const std::string& subresource) const {
  std::string path = CollectionPath(namespaced ? ns : "") + "/" + QueryEscape(name);
  if (!subresource.empty()) path += "/" + subresource;
  return path;
}

std::string ResourceType::QualifiedResource() const {
  return group.empty() ? std::string(resource) : std::string(resource) + "." + std::string(group);
}

std::vector<const ResourceType*> ResourcesOf(cluster::Kind kind) {
  using cluster::Kind;
  switch (kind) {
    case Kind::kPod: return {&resources::kPods};
    case Kind::kNode: return {&resources::kNodes};
    case Kind::kNodeClaim: return {&resources::kNodeClaims};
    case Kind::kNodePool: return {&resources::kNodePools};
    case Kind::kEC2NodeClass: return {&resources::kEC2NodeClasses};
    case Kind::kReplicatedWorkload:
      return {&resources::kDeployments, &resources::kReplicaSets, &resources::kStatefulSets};
    case Kind::kDaemonSet: return {&resources::kDaemonSets};
    case Kind::kJob: return {&resources::kJobs};
    case Kind::kPodDisruptionBudget: return {&resources::kPodDisruptionBudgets};
    case Kind::kPersistentVolumeClaim: return {&resources::kPersistentVolumeClaims};
    case Kind::kPersistentVolume: return {&resources::kPersistentVolumes};
    case Kind::kStorageClass: return {&resources::kStorageClasses};
  }
  return {};
}

const ResourceType* WorkloadResource(std::string_view kind) {
  if (kind == "Deployment") return &resources::kDeployments;
  if (kind == "ReplicaSet") return &resources::kReplicaSets;
  if (kind == "StatefulSet") return &resources::kStatefulSets;
  return nullptr;
}

const ResourceType& ResourceOfObject(const cluster::Object& object) {
  if (const auto* w = std::get_if<api::ReplicatedWorkload>(&object)) {
    const ResourceType* r = WorkloadResource(w->kind);
    return r != nullptr ? *r : resources::kDeployments;
  }
  return *ResourcesOf(cluster::KindOfObject(object)).front();
}

std::string QueryEscape(std::string_view value) {
  std::string out;
  out.reserve(value.size());
  for (unsigned char c : value) {
    if (std::isalnum(c) || c == '-' || c == '_' || c == '.' || c == '~') {
      out.push_back(static_cast<char>(c));
    } else {
      char buf[4];
      std::snprintf(buf, sizeof buf, "%%%02X", c);
      out += buf;
    }
  }
  return out;
}

}  // namespace nodesmith::kube
