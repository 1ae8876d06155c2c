// KubeCluster: cluster::ClusterApi over a real API server, so every controller that runs on
// MemoryCluster in tests and the simulator runs unchanged in a cluster.
//
// Reads come from informers (kube/informer.h), one per resource of the kinds asked for, started
// and synced by Start(); Get and List never call the server. Writes go to the server and their
// answers are written through to the cache before the call returns, so a controller reads its own
// writes. Update never sends the typed object as it is: it reads the live object, carries
// nodesmith's change onto it (kube/json_merge.h: fields nodesmith does not model survive), and
// PUTs it with the caller's resourceVersion as the precondition — a stale version is the same
// kConflict "conflict: ..." MemoryCluster gives; the status goes through the status
// subresource. Delete carries the cached uid as a precondition and propagates in the background.
//
// Watch callbacks run on the caller's thread: changes made through this KubeCluster are announced
// before the write returns (as MemoryCluster does); changes made by others are queued by the
// informers and announced by the next write or DispatchEvents() call, in arrival order.
// Not thread-safe, like ClusterApi: one runtime thread calls it; the informers run on their own.
#pragma once

#include <deque>
#include <map>
#include <memory>
#include <mutex>
#include <vector>

#include "cluster/cluster_api.h"
#include "kube/informer.h"
#include "kube/rest_client.h"

namespace nodesmith::kube {

struct KubeClusterOptions {
  // The kinds to cache and serve; empty: every kind of cluster::Kind.
  std::vector<cluster::Kind> kinds;
  std::function<void(const std::string&)> log;
  // Called (on an informer's thread) each time a change from the server is queued, so the
  // thread that calls DispatchEvents() can wake up. Must be cheap and must not call back.
  std::function<void()> on_queued;
};

class KubeCluster : public cluster::ClusterApi {
 public:
  // REQUIRES: `client` outlives the cluster.
  KubeCluster(RestClient& client, KubeClusterOptions options = {});
  ~KubeCluster() override;

  // Starts the informers (the first call only) and waits until each has listed its resource. On
  // timeout, fails with what keeps the slowest one from syncing (a missing CRD, RBAC, an
  // unreachable server); the informers keep trying, and Start may be called again to wait more.
  core::Status Start(double sync_timeout_seconds = 60);
  void Stop();
  bool HasSynced() const;

  // Announces the changes the informers have queued. Returns how many were announced.
  size_t DispatchEvents();
  // Waits until the informer of `kind` has seen `resource_version`, then dispatches.
  bool WaitForVersion(cluster::Kind kind, const std::string& resource_version,
                      double timeout_seconds);

  core::Result<cluster::Object> GetObject(cluster::Kind kind, const std::string& ns,
                                          const std::string& name) const override;
  std::vector<cluster::Object> ListObjects(cluster::Kind kind) const override;
  void ForEachObject(cluster::Kind kind,
                     const std::function<void(const cluster::Object&)>& fn) const override;
  core::Result<cluster::Object> CreateObject(cluster::Object object) override;
  core::Result<cluster::Object> UpdateObject(cluster::Object object) override;
  core::Status DeleteObject(cluster::Kind kind, const std::string& ns,
                            const std::string& name) override;
  core::Status Bind(const std::string& ns, const std::string& pod,
                    const std::string& node) override;
  core::Status Evict(const std::string& ns, const std::string& pod) override;
  void Watch(cluster::Kind kind, std::function<void(const cluster::WatchEvent&)> callback) override;
  // From the pod informer's spec.nodeName index, which the informer updates with its store.
  void ForEachPodOn(const std::string& node,
                    const std::function<void(const api::Pod&)>& fn) const override;
  bool IndexesPodsByNode() const override { return true; }
  Informer* InformerOf(const ResourceType& resource) const;
  RestClient& client() { return client_; }

 protected:
  // From the Node informer's spec.providerID and the NodeClaim informer's status.providerID
  // indexes.
  void LookUpProviderId(cluster::Kind kind, const std::string& provider_id,
                        const std::function<void(const cluster::Object&)>& fn) const override;

 private:
  // The resource and object name a (kind, store name) addresses.
  core::Result<std::pair<const ResourceType*, std::string>> Address(cluster::Kind kind,
                                                                    const std::string& name) const;
  static std::string NormalizeNamespace(cluster::Kind kind, const std::string& ns);
  bool Serves(cluster::Kind kind) const;
  core::Status NotServed(cluster::Kind kind) const;
  void OnCacheEvent(cluster::Kind kind, CacheEventType type, const CachedObjectPtr& old_object,
                    const CachedObjectPtr& new_object);
  // Applies a write's answer to the cache, and announces everything queued.
  void WriteThrough(const ResourceType& r, CacheEventType type, const Json& answer);

  RestClient& client_;
  KubeClusterOptions options_;
  std::map<const ResourceType*, std::unique_ptr<Informer>> informers_;
  std::array<bool, cluster::kKindCount> served_{};
  std::array<std::vector<std::function<void(const cluster::WatchEvent&)>>, cluster::kKindCount>
      watchers_;
  std::mutex queue_mu_;
  std::deque<cluster::WatchEvent> queue_;
  bool dispatching_ = false;
  bool started_ = false;
};

}  // namespace nodesmith::kube
