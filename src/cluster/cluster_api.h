// ClusterApi: the Kubernetes API as controllers see it — get, list, create, update, delete,
// bind, evict — over typed objects, with watch notifications.
//
// Controllers hold a ClusterApi& and never know which world they run in: the simulator wires
// MemoryCluster (cluster/memory_cluster.h), a real cluster wires the Kubernetes client. Every
// object carries metadata.resourceVersion; Update fails with kConflict
// when the caller's version is stale. Delete of an object with finalizers sets
// deletionTimestamp and keeps it until the last finalizer is removed by an Update.
// Deployments, ReplicaSets and StatefulSets share Kind::kReplicatedWorkload; their `name` in
// this interface is "<Kind>/<name>" (e.g. "Deployment/inflate") so the three never collide.
// Not thread-safe: the runtime calls controllers one at a time.
#pragma once

#include <functional>
#include <memory>
#include <string>
#include <variant>
#include <vector>

#include "api/ec2nodeclass.h"
#include "api/node.h"
#include "api/nodeclaim.h"
#include "api/nodepool.h"
#include "api/pod.h"
#include "api/policy.h"
#include "api/storage.h"
#include "api/workloads.h"
#include "core/status.h"
#include "core/time.h"

namespace nodesmith::cluster {

// Every kind the store holds. The order is the order of the Kind enum below.
using Object = std::variant<api::Pod, api::Node, api::NodeClaim, api::NodePool, api::EC2NodeClass,
                            api::ReplicatedWorkload, api::DaemonSet, api::Job,
                            api::PodDisruptionBudget, api::PersistentVolumeClaim,
                            api::PersistentVolume, api::StorageClass>;

enum class Kind {
  kPod, kNode, kNodeClaim, kNodePool, kEC2NodeClass, kReplicatedWorkload, kDaemonSet, kJob,
  kPodDisruptionBudget, kPersistentVolumeClaim, kPersistentVolume, kStorageClass,
};

template <typename T> constexpr Kind KindOf();
template <> constexpr Kind KindOf<api::Pod>() { return Kind::kPod; }
template <> constexpr Kind KindOf<api::Node>() { return Kind::kNode; }
template <> constexpr Kind KindOf<api::NodeClaim>() { return Kind::kNodeClaim; }
template <> constexpr Kind KindOf<api::NodePool>() { return Kind::kNodePool; }
template <> constexpr Kind KindOf<api::EC2NodeClass>() { return Kind::kEC2NodeClass; }
template <> constexpr Kind KindOf<api::ReplicatedWorkload>() { return Kind::kReplicatedWorkload; }
template <> constexpr Kind KindOf<api::DaemonSet>() { return Kind::kDaemonSet; }
template <> constexpr Kind KindOf<api::Job>() { return Kind::kJob; }
template <> constexpr Kind KindOf<api::PodDisruptionBudget>() { return Kind::kPodDisruptionBudget; }
template <> constexpr Kind KindOf<api::PersistentVolumeClaim>() { return Kind::kPersistentVolumeClaim; }
template <> constexpr Kind KindOf<api::PersistentVolume>() { return Kind::kPersistentVolume; }
template <> constexpr Kind KindOf<api::StorageClass>() { return Kind::kStorageClass; }

inline constexpr int kKindCount = static_cast<int>(Kind::kStorageClass) + 1;
static_assert(std::variant_size_v<Object> == kKindCount, "Kind and Object must list the same kinds");

const char* KindName(Kind kind);  // "Pod", "Node", ...
// Pods, workloads, PDBs and PVCs live in a namespace; the rest are cluster-scoped.
bool IsNamespaced(Kind kind);

// The kind of the object held (the variant index, as Kind lists them in Object's order).
inline Kind KindOfObject(const Object& object) { return static_cast<Kind>(object.index()); }
// Every kind has `metadata`.
const api::ObjectMeta& MetaOf(const Object& object);
api::ObjectMeta& MetaOf(Object& object);
// The name this interface uses for the object: metadata.name, or "<Kind>/<name>" for a
// ReplicatedWorkload (see above).
std::string StoreName(const Object& object);
// A Node's spec.providerID or a NodeClaim's status.providerID; "" for other kinds.
const std::string& ProviderIdOf(const Object& object);

// Whether `status` is the error Update gives when the caller's resourceVersion is stale (the
// object changed since it was read): the cure is to read again, which the watch brings.
bool IsConflict(const core::Status& status);

enum class WatchEventType { kAdded, kModified, kDeleted };
const char* WatchEventTypeName(WatchEventType type);  // "Added", "Modified", "Deleted"

struct WatchEvent {
  WatchEventType type;
  Kind kind;
  std::string namespace_;
  std::string name;
  // The object as stored after the change (for kDeleted: its last state), so a watcher can
  // still read a deleted object. May be null when an implementation cannot provide it.
  std::shared_ptr<const Object> object;
  // When the store took the change in: its clock's time in memory, the wall time the informer
  // applied it in a real cluster. The epoch when unknown. Announcing it may come later (the
  // runtime's thread announces changes between reconciles).
  core::Time observed_at{};
};

class ClusterApi {
 public:
  virtual ~ClusterApi() = default;

  // Untyped core, implemented by each world. `ns` is "" for cluster-scoped kinds.
  virtual core::Result<Object> GetObject(Kind kind, const std::string& ns,
                                         const std::string& name) const = 0;
  // Objects of a kind in (namespace, name) order.
  virtual std::vector<Object> ListObjects(Kind kind) const = 0;
  // Calls `fn` for each object of a kind, in ListObjects order, without copying where the
  // implementation can avoid it. REQUIRES: `fn` does not modify the cluster.
  virtual void ForEachObject(Kind kind, const std::function<void(const Object&)>& fn) const {
    for (const Object& o : ListObjects(kind)) fn(o);
  }
  // Calls `fn` for each pod whose spec.nodeName is `node` (with "": each pod bound to no node),
  // in (namespace, name) order. The default scans every pod; a store that indexes pods by node
  // answers from the index and says so with IndexesPodsByNode(), so that a caller about to ask
  // for many nodes knows whether one scan of every pod is the cheaper way. The index is updated
  // with the store: a pod seen here is the pod GetObject returns at that moment.
  // REQUIRES: `fn` does not modify the cluster.
  virtual void ForEachPodOn(const std::string& node,
                            const std::function<void(const api::Pod&)>& fn) const;
  virtual bool IndexesPodsByNode() const { return false; }
  // Calls `fn` for each Node or NodeClaim (`kind`) whose provider ID (ProviderIdOf) is
  // `provider_id`, in list order; never for "" or another kind. How a NodeClaim finds its Node
  // and back without reading every one: the lookup itself is LookUpProviderId.
  // REQUIRES: `fn` does not modify the cluster.
  void ForEachWithProviderId(Kind kind, const std::string& provider_id,
                             const std::function<void(const Object&)>& fn) const;
  // Fails with AlreadyExists when the name is taken; fills uid, resourceVersion and
  // creationTimestamp; returns the stored object.
  virtual core::Result<Object> CreateObject(Object object) = 0;
  // Replaces the stored object. Fails when it does not exist or the resourceVersion is stale.
  virtual core::Result<Object> UpdateObject(Object object) = 0;
  // Deletes, or marks for deletion when finalizers remain. NotFound when absent.
  virtual core::Status DeleteObject(Kind kind, const std::string& ns, const std::string& name) = 0;
  // Sets pod.spec.nodeName (the Binding subresource).
  virtual core::Status Bind(const std::string& ns, const std::string& pod, const std::string& node) = 0;
  // The Eviction API: fails with Unavailable (HTTP 429 upstream) when a PodDisruptionBudget
  // forbids it; otherwise deletes the pod.
  virtual core::Status Evict(const std::string& ns, const std::string& pod) = 0;
  // Registers a callback for every change of a kind; called after the change is stored.
  virtual void Watch(Kind kind, std::function<void(const WatchEvent&)> callback) = 0;

  // Typed conveniences over the untyped core.
  template <typename T>
  core::Result<T> Get(const std::string& ns, const std::string& name) const {
    auto r = GetObject(KindOf<T>(), ns, name);
    if (!r.ok()) return r.status();
    return std::get<T>(std::move(r).value());
  }
  template <typename T>
  std::vector<T> List() const {
    std::vector<T> out;
    for (auto& o : ListObjects(KindOf<T>())) out.push_back(std::get<T>(std::move(o)));
    return out;
  }
  template <typename T>
  core::Result<T> Create(T object) {
    auto r = CreateObject(Object(std::move(object)));
    if (!r.ok()) return r.status();
    return std::get<T>(std::move(r).value());
  }
  template <typename T>
  core::Result<T> Update(T object) {
    auto r = UpdateObject(Object(std::move(object)));
    if (!r.ok()) return r.status();
    return std::get<T>(std::move(r).value());
  }
  template <typename T>
  core::Status Delete(const std::string& ns, const std::string& name) {
    return DeleteObject(KindOf<T>(), ns, name);
  }

 protected:
  // ForEachWithProviderId's lookup, called only with a non-empty `provider_id` and `kind` Node or
  // NodeClaim. The default scans the kind; a store that indexes provider IDs (KubeCluster's
  // informers) answers from the index, updated with the store; a store over another one (a
  // shadow, a test wrapper) asks the other's ForEachWithProviderId.
  virtual void LookUpProviderId(Kind kind, const std::string& provider_id,
                                const std::function<void(const Object&)>& fn) const;
};

}  // namespace nodesmith::cluster
