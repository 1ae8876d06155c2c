#include "kube/object_codec.h"

#include "api/codec.h"

namespace nodesmith::kube {

namespace {

template <typename T>
core::Result<cluster::Object> Decode(core::Status (*decode)(const api::JsonView&, T*),
                                     const api::JsonView& doc) {
  T value;
  core::Status st = decode(doc, &value);
  if (!st.ok()) return st;
  return cluster::Object(std::move(value));
}

}  // namespace

core::Result<cluster::Object> DecodeObject(const ResourceType& r, const api::JsonView& doc) {
  using namespace resources;
  if (&r == &kPods) return Decode(api::DecodePod, doc);
  if (&r == &kNodes) return Decode(api::DecodeNode, doc);
  if (&r == &kNodeClaims) return Decode(api::DecodeNodeClaim, doc);
  if (&r == &kNodePools) return Decode(api::DecodeNodePool, doc);
  if (&r == &kEC2NodeClasses) return Decode(api::DecodeEC2NodeClass, doc);
  if (&r == &kDeployments || &r == &kReplicaSets || &r == &kStatefulSets) {
    api::ReplicatedWorkload workload;
    core::Status st = api::DecodeReplicatedWorkload(doc, &workload);
    if (!st.ok()) return st;
    if (workload.kind.empty()) workload.kind = r.kind;  // a list's item names no kind
    return cluster::Object(std::move(workload));
  }
  if (&r == &kDaemonSets) return Decode(api::DecodeDaemonSet, doc);
  if (&r == &kJobs) return Decode(api::DecodeJob, doc);
  if (&r == &kPodDisruptionBudgets) return Decode(api::DecodePodDisruptionBudget, doc);
  if (&r == &kPersistentVolumeClaims) return Decode(api::DecodePersistentVolumeClaim, doc);
  if (&r == &kPersistentVolumes) return Decode(api::DecodePersistentVolume, doc);
  if (&r == &kStorageClasses) return Decode(api::DecodeStorageClass, doc);
  return core::Status::Internal("no typed form for " + r.QualifiedResource());
}

Json EncodeObject(const cluster::Object& object) {
  return std::visit(
      [](const auto& o) -> Json {
        using T = std::decay_t<decltype(o)>;
        if constexpr (std::is_same_v<T, api::Pod>) return api::EncodePod(o);
        else if constexpr (std::is_same_v<T, api::Node>) return api::EncodeNode(o);
        else if constexpr (std::is_same_v<T, api::NodeClaim>) return api::EncodeNodeClaim(o);
        else if constexpr (std::is_same_v<T, api::NodePool>) return api::EncodeNodePool(o);
        else if constexpr (std::is_same_v<T, api::EC2NodeClass>) return api::EncodeEC2NodeClass(o);
        else if constexpr (std::is_same_v<T, api::ReplicatedWorkload>)
          return api::EncodeReplicatedWorkload(o);
        else if constexpr (std::is_same_v<T, api::DaemonSet>) return api::EncodeDaemonSet(o);
        else if constexpr (std::is_same_v<T, api::Job>) return api::EncodeJob(o);
        else if constexpr (std::is_same_v<T, api::PodDisruptionBudget>)
          return api::EncodePodDisruptionBudget(o);
        else if constexpr (std::is_same_v<T, api::PersistentVolumeClaim>)
          return api::EncodePersistentVolumeClaim(o);
        else if constexpr (std::is_same_v<T, api::PersistentVolume>)
          return api::EncodePersistentVolume(o);
        else return api::EncodeStorageClass(o);
      },
      object);
}

}  // namespace nodesmith::kube
