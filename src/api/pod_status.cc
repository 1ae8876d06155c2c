#include "api/pod_status.h"

#include "api/conditions.h"

namespace nodesmith::api {
namespace {

bool HasOwnerOfKind(const ObjectMeta& meta, const char* kind) {
  for (const OwnerReference& ref : meta.owner_references) {
    if (ref.kind == kind) return true;
  }
  return false;
}

}  // namespace

bool IsTerminal(const Pod& pod) {
  return pod.status.phase == "Succeeded" || pod.status.phase == "Failed";
}

bool IsTerminating(const Pod& pod) { return pod.metadata.deletion_timestamp.has_value(); }

bool IsActive(const Pod& pod) { return !IsTerminal(pod) && !IsTerminating(pod); }

bool IsOwnedByDaemonSet(const Pod& pod) { return HasOwnerOfKind(pod.metadata, "DaemonSet"); }

bool IsOwnedByStatefulSet(const Pod& pod) { return HasOwnerOfKind(pod.metadata, "StatefulSet"); }

bool IsOwnedByNode(const Pod& pod) { return HasOwnerOfKind(pod.metadata, "Node"); }

const OwnerReference* ControllerOf(const ObjectMeta& meta) {
  for (const OwnerReference& ref : meta.owner_references) {
    if (ref.controller) return &ref;
  }
  return nullptr;
}

bool IsPodReady(const Pod& pod) { return IsConditionTrue(pod.status.conditions, "Ready"); }

std::string PodKey(const Pod& pod) { return pod.metadata.namespace_ + "/" + pod.metadata.name; }

}  // namespace nodesmith::api
