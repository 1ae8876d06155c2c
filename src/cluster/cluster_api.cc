#include "cluster/cluster_api.h"

namespace nodesmith::cluster {

const char* KindName(Kind kind) {
  switch (kind) {
    case Kind::kPod:
      return "Pod";
    case Kind::kNode:
      return "Node";
    case Kind::kNodeClaim:
      return "NodeClaim";
    case Kind::kNodePool:
      return "NodePool";
    case Kind::kEC2NodeClass:
      return "EC2NodeClass";
    case Kind::kReplicatedWorkload:
      return "ReplicatedWorkload";
    case Kind::kDaemonSet:
      return "DaemonSet";
    case Kind::kJob:
      return "Job";
    case Kind::kPodDisruptionBudget:
      return "PodDisruptionBudget";
    case Kind::kPersistentVolumeClaim:
      return "PersistentVolumeClaim";
    case Kind::kPersistentVolume:
      return "PersistentVolume";
    case Kind::kStorageClass:
      return "StorageClass";
  }
  return "Unknown";
}

bool IsNamespaced(Kind kind) {
  switch (kind) {
    case Kind::kPod:
    case Kind::kReplicatedWorkload:
    case Kind::kDaemonSet:
    case Kind::kJob:
    case Kind::kPodDisruptionBudget:
    case Kind::kPersistentVolumeClaim:
      return true;
    case Kind::kNode:
    case Kind::kNodeClaim:
    case Kind::kNodePool:
    case Kind::kEC2NodeClass:
    case Kind::kPersistentVolume:
    case Kind::kStorageClass:
      return false;
  }
  return false;
}

const api::ObjectMeta& MetaOf(const Object& object) {
  return std::visit([](const auto& o) -> const api::ObjectMeta& { return o.metadata; }, object);
}

api::ObjectMeta& MetaOf(Object& object) {
  return std::visit([](auto& o) -> api::ObjectMeta& { return o.metadata; }, object);
}

std::string StoreName(const Object& object) {
  if (const auto* w = std::get_if<api::ReplicatedWorkload>(&object)) {
    return w->kind + "/" + w->metadata.name;
  }
  return MetaOf(object).name;
}

const std::string& ProviderIdOf(const Object& object) {
  static const std::string kNone;
  if (const auto* node = std::get_if<api::Node>(&object)) return node->spec.provider_id;
  if (const auto* claim = std::get_if<api::NodeClaim>(&object)) return claim->status.provider_id;
  return kNone;
}

void ClusterApi::ForEachWithProviderId(Kind kind, const std::string& provider_id,
                                       const std::function<void(const Object&)>& fn) const {
  if (provider_id.empty() || (kind != Kind::kNode && kind != Kind::kNodeClaim)) return;
  LookUpProviderId(kind, provider_id, fn);
}

void ClusterApi::LookUpProviderId(Kind kind, const std::string& provider_id,
                                  const std::function<void(const Object&)>& fn) const {
  ForEachObject(kind, [&](const Object& o) {
    if (ProviderIdOf(o) == provider_id) fn(o);
  });
}

void ClusterApi::ForEachPodOn(const std::string& node,
                              const std::function<void(const api::Pod&)>& fn) const {
  ForEachObject(Kind::kPod, [&](const Object& o) {
    const auto& pod = std::get<api::Pod>(o);
    if (pod.spec.node_name == node) fn(pod);
  });
}

const char* WatchEventTypeName(WatchEventType type) {
  switch (type) {
    case WatchEventType::kAdded:
      return "Added";
    case WatchEventType::kModified:
      return "Modified";
    case WatchEventType::kDeleted:
      return "Deleted";
  }
  return "Unknown";
}

bool IsConflict(const core::Status& status) {
  return status.code() == core::StatusCode::kConflict;
}

}  // namespace nodesmith::cluster
