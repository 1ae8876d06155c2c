// MemoryCluster: an in-memory Kubernetes API server for tests and the simulator.
//
// Objects are kept per kind, keyed by (namespace, name) — ReplicatedWorkloads by
// (namespace, "<Kind>/<name>") — so List order is deterministic. The store follows the API
// server's bookkeeping closely enough for controllers to behave as they would upstream:
//  - Create fills namespace "default" for namespaced kinds (and clears it for cluster-scoped
//    ones), a name from generateName (generateName + 5 lowercase alphanumerics, derived from a
//    counter), uid (from a counter) and creationTimestamp (from the Clock) when they are empty,
//    generation 1, and a new resourceVersion (one global counter, as a decimal string). A given
//    uid or creationTimestamp is kept, so a cluster loaded from files keeps its owner
//    references and ages. A pod without a phase becomes Pending.
//  - Update replaces the object; a non-empty stale resourceVersion fails with
//    kConflict "conflict: ...". uid, creationTimestamp and deletionTimestamp cannot be
//    changed by Update; no finalizer may be added to an object being deleted. An Update that
//    changes nothing is a no-op (no new resourceVersion, no event), as upstream; generation is
//    bumped when anything outside metadata and status changes.
//  - Delete removes the object, or, while it has finalizers, sets deletionTimestamp; the
//    object disappears when an Update removes its last finalizer. Pods are removed at once
//    (grace periods are not modelled).
//  - Bind sets spec.nodeName and the PodScheduled condition (the node need not exist, as
//    upstream); a pod already bound or being deleted is a kConflict (409 upstream). Evict
//    applies PDBs as the Eviction API does (cluster/disruption_budget.h) and then deletes.
// Watch callbacks run synchronously after each stored change. Events are delivered strictly
// in change order: a change made by a callback is queued and delivered to every watcher once
// the current event has been delivered to all of them (before the outermost call returns).
// Not thread-safe.
#pragma once

#include <array>
#include <cstdint>
#include <deque>
#include <functional>
#include <map>
#include <memory>
#include <string>
#include <utility>
#include <vector>

#include "cluster/cluster_api.h"
#include "core/clock.h"

namespace nodesmith::cluster {

class MemoryCluster : public ClusterApi {
 public:
  // REQUIRES: `clock` outlives the cluster.
  explicit MemoryCluster(const core::Clock& clock);
  MemoryCluster(const MemoryCluster&) = delete;
  MemoryCluster& operator=(const MemoryCluster&) = delete;

  core::Result<Object> GetObject(Kind kind, const std::string& ns,
                                 const std::string& name) const override;
  std::vector<Object> ListObjects(Kind kind) const override;
  void ForEachObject(Kind kind, const std::function<void(const Object&)>& fn) const override;
  core::Result<Object> CreateObject(Object object) override;
  core::Result<Object> UpdateObject(Object object) override;
  core::Status DeleteObject(Kind kind, const std::string& ns, const std::string& name) override;
  core::Status Bind(const std::string& ns, const std::string& pod,
                    const std::string& node) override;
  core::Status Evict(const std::string& ns, const std::string& pod) override;
  void Watch(Kind kind, std::function<void(const WatchEvent&)> callback) override;

  // Number of objects of a kind.
  size_t Count(Kind kind) const { return stores_[static_cast<int>(kind)].size(); }
  // The last resourceVersion handed out (0 before the first change).
  int64_t resource_version() const { return resource_version_; }

 private:
  using Key = std::pair<std::string, std::string>;  // (namespace, store name)
  using Store = std::map<Key, std::shared_ptr<const Object>>;

  Store& StoreFor(Kind kind) { return stores_[static_cast<int>(kind)]; }
  const Store& StoreFor(Kind kind) const { return stores_[static_cast<int>(kind)]; }
  // Namespace as stored: "default" for namespaced kinds when empty, "" for cluster-scoped.
  static std::string NormalizeNamespace(Kind kind, const std::string& ns);
  std::string NextResourceVersion() { return std::to_string(++resource_version_); }
  std::string NextUid();
  std::string NextNameSuffix();
  // Removes the object and announces it.
  void Remove(Kind kind, const Key& key, std::shared_ptr<const Object> last);
  void Notify(WatchEventType type, Kind kind, const Key& key, std::shared_ptr<const Object> obj);

  const core::Clock& clock_;
  std::array<Store, kKindCount> stores_;
  int64_t resource_version_ = 0;
  uint64_t uid_counter_ = 0;
  uint64_t name_counter_ = 0;
  // A deque keeps each callback in place while another callback registers a new watch.
  std::array<std::deque<std::function<void(const WatchEvent&)>>, kKindCount> watchers_;
  std::deque<WatchEvent> pending_events_;
  bool dispatching_ = false;
};

}  // namespace nodesmith::cluster
