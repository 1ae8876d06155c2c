// ShadowCluster: the ClusterApi of shadow mode (`nodesmith controller --dry-run`). Reads see the
// live cluster (an underlying ClusterApi, the informers' cache) with nodesmith's own would-be
// writes laid over it; writes never reach the server — they change only the overlay, are
// announced to watchers as real writes are, and are reported to `on_write`. So every controller
// runs unchanged and decides as it would, believing its NodeClaims, taints and deletions happened,
// while the cluster stays exactly as it was (the leader Lease aside).
//
// Overlay rules, mirroring the API server closely enough for the controllers:
//   Create   fills uid ("shadow-<n>"), resourceVersion, creationTimestamp, generateName; an
//            object of that name already visible is AlreadyExists;
//   Update   replaces the visible object (no resourceVersion precondition: the overlay has one
//            writer); a deletion-marked object whose last finalizer goes is removed;
//   Delete   marks deletionTimestamp while finalizers remain, else removes (a tombstone hides
//            the live object); NotFound when nothing is visible;
//   Bind     sets spec.nodeName on the overlay copy; Evict deletes the overlay copy of the pod.
// Live changes to an object the overlay holds are hidden: shadow mode keeps its own story of
// what it touched. Not thread-safe, like ClusterApi. REQUIRES: `live` outlives the shadow.
#pragma once

#include <functional>
#include <map>
#include <memory>
#include <optional>
#include <string>
#include <tuple>
#include <vector>

#include "cluster/cluster_api.h"
#include "core/clock.h"

namespace nodesmith::op {

// One write shadow mode absorbed.
struct ShadowWrite {
  std::string verb;  // "create", "update", "delete", "bind", "evict"
  cluster::Kind kind;
  std::string namespace_;
  std::string name;
};

class ShadowCluster : public cluster::ClusterApi {
 public:
  ShadowCluster(cluster::ClusterApi& live, const core::Clock& clock,
                std::function<void(const ShadowWrite&)> on_write = nullptr);

  core::Result<cluster::Object> GetObject(cluster::Kind kind, const std::string& ns,
                                          const std::string& name) const override;
  std::vector<cluster::Object> ListObjects(cluster::Kind kind) const override;
  void ForEachObject(cluster::Kind kind,
                     const std::function<void(const cluster::Object&)>& fn) const override;
  // The live store's pods on `node` (from its index, when it keeps one) with the overlay laid
  // over them: a pod shadow mode bound, evicted or changed is where the overlay has it.
  void ForEachPodOn(const std::string& node,
                    const std::function<void(const api::Pod&)>& fn) const override;
  bool IndexesPodsByNode() const override { return live_.IndexesPodsByNode(); }
  core::Result<cluster::Object> CreateObject(cluster::Object object) override;
  core::Result<cluster::Object> UpdateObject(cluster::Object object) override;
  core::Status DeleteObject(cluster::Kind kind, const std::string& ns,
                            const std::string& name) override;
  core::Status Bind(const std::string& ns, const std::string& pod,
                    const std::string& node) override;
  core::Status Evict(const std::string& ns, const std::string& pod) override;
  void Watch(cluster::Kind kind, std::function<void(const cluster::WatchEvent&)> callback) override;

  // Objects of the overlay (created or changed by nodesmith), tombstones not counted.
  size_t OverlaySize() const;

 protected:
  // The live store's Nodes or NodeClaims with `provider_id` (from its index, when it keeps one)
  // with the overlay laid over them, as for ForEachPodOn.
  void LookUpProviderId(cluster::Kind kind, const std::string& provider_id,
                        const std::function<void(const cluster::Object&)>& fn) const override;

 private:
  using Key = std::tuple<int, std::string, std::string>;  // kind, namespace, store name
  struct Entry {
    std::shared_ptr<const cluster::Object> object;  // null: a tombstone
  };

  static Key KeyOf(cluster::Kind kind, const std::string& ns, const std::string& name);
  const Entry* Find(const Key& key) const;
  // Calls `fn` for each object `live_walk` yields with the overlay's objects of `kind` laid over
  // them: a live object the overlay holds gives way to the overlay's version, and each overlay
  // object `keep` accepts (a tombstone never) is fitted in at its place. T is cluster::Object,
  // or api::Pod for kind Pod. REQUIRES: `live_walk` yields only objects of `kind`, in (namespace,
  // store name) order as ClusterApi lists them; the result is then in that order too. Live
  // objects are passed on as they are, never copied.
  template <typename T>
  void Overlaid(cluster::Kind kind,
                const std::function<void(const std::function<void(const T&)>&)>& live_walk,
                const std::function<bool(const cluster::Object&)>& keep,
                const std::function<void(const T&)>& fn) const;
  void Store(cluster::WatchEventType type, cluster::Object object);
  void Remove(cluster::Kind kind, const std::string& ns, const std::string& name,
              const cluster::Object& last);
  void Notify(cluster::WatchEventType type, cluster::Kind kind, const std::string& ns,
              const std::string& name, std::shared_ptr<const cluster::Object> object);
  void Report(const char* verb, cluster::Kind kind, const std::string& ns,
              const std::string& name);

  cluster::ClusterApi& live_;
  const core::Clock& clock_;
  std::function<void(const ShadowWrite&)> on_write_;
  std::map<Key, Entry> overlay_;
  std::map<int, std::vector<std::function<void(const cluster::WatchEvent&)>>> watchers_;
  uint64_t next_id_ = 0;
};

}  // namespace nodesmith::op
