// Informer: a local, always-current copy of one resource, kept by list + watch, as client-go's
// reflector and indexer.
//
// Start() begins, on a thread of its own: a paginated LIST (a consistent read), then a WATCH from
// the list's resourceVersion with bookmarks, resumed from the last version seen whenever the
// server ends it; on 410 Gone (the version was compacted away) a fresh LIST replaces the cache,
// announcing what was added, changed and deleted meanwhile; on any other error it waits with
// exponential backoff and jitter (0.8 s doubling to 30 s) and tries again. HasSynced() holds once
// the first LIST is in the cache.
//
// The cache holds the typed objects (kube/object_codec.h), keyed by (namespace, name), each with
// its uid and resourceVersion, plus field indexes (Pod spec.nodeName, ...). An object that does
// not decode is left out, logged once and counted (decode_errors()), never silently. Apply()
// writes a server's answer to one of our own writes through to the cache, so a reader sees its
// write at once; the watch event for it is then recognised by its resourceVersion and not
// announced twice. Handlers run on the informer's thread (or the writer's, for Apply), after the
// cache changed, outside its lock. Thread-safe.
#pragma once

#include <atomic>
#include <condition_variable>
#include <functional>
#include <map>
#include <memory>
#include <mutex>
#include <set>
#include <string>
#include <thread>
#include <unordered_map>
#include <vector>

#include "cluster/cluster_api.h"
#include "kube/resources.h"
#include "kube/rest_client.h"

namespace nodesmith::kube {

struct CachedObject {
  std::string namespace_;
  std::string name;
  std::string uid;
  std::string resource_version;
  std::shared_ptr<const cluster::Object> object;
};
using CachedObjectPtr = std::shared_ptr<const CachedObject>;

enum class CacheEventType { kAdded, kModified, kDeleted };

// A field index: the values an object is found under (e.g. its spec.nodeName).
using IndexFunc = std::function<std::vector<std::string>(const cluster::Object&)>;

struct InformerOptions {
  std::string namespace_;           // "" : all namespaces
  int page_size = 500;
  std::string label_selector;
  std::string field_selector;
  // Where the informer says what went wrong (a relist, a decode failure, a backoff).
  std::function<void(const std::string&)> log;
};

class Informer {
 public:
  using Handler = std::function<void(CacheEventType, const CachedObjectPtr& old_object,
                                     const CachedObjectPtr& new_object)>;

  // REQUIRES: `client` outlives the informer; `resource` has a typed form (object_codec.h).
  Informer(RestClient& client, const ResourceType& resource, InformerOptions options = {});
  ~Informer();  // stops the thread
  Informer(const Informer&) = delete;
  Informer& operator=(const Informer&) = delete;

  // REQUIRES: before Start.
  void AddIndex(const std::string& name, IndexFunc index);
  void AddHandler(Handler handler);

  void Start();
  // Stops the thread and waits for it (about a second while a watch is open).
  void Stop();
  // Tells the thread to stop without waiting; Stop() then joins. Lets many informers stop at once.
  void RequestStop();
  bool HasSynced() const { return synced_.load(); }
  // Waits until synced or the timeout passes; returns HasSynced(). While not synced,
  // last_error() says what stands in the way.
  bool WaitForSync(double timeout_seconds);

  CachedObjectPtr Get(const std::string& ns, const std::string& name) const;
  // In (namespace, name) order.
  std::vector<CachedObjectPtr> List() const;
  void ForEach(const std::function<void(const CachedObject&)>& fn) const;
  std::vector<CachedObjectPtr> ByIndex(const std::string& index, const std::string& value) const;
  size_t size() const;

  // Applies the server's answer to our own write (kDeleted: the object is gone). Returns false
  // when the cache already holds this version or a newer one, or when the watch has already
  // delivered this version (the cache then shows what became of the object since, even its
  // deletion).
  bool Apply(CacheEventType type, const api::JsonView& object);

  // The newest resourceVersion the informer has seen (items, bookmarks, lists).
  std::string last_resource_version() const;
  // Waits until the informer has seen `resource_version` or later (numeric versions).
  bool WaitForResourceVersion(const std::string& resource_version, double timeout_seconds);
  core::Status last_error() const;
  uint64_t decode_errors() const { return decode_errors_.load(); }
  uint64_t relists() const { return relists_.load(); }
  uint64_t events_applied() const { return events_applied_.load(); }
  const ResourceType& resource() const { return resource_; }

 private:
  using Key = std::pair<std::string, std::string>;
  struct Pending {  // a change to announce once the lock is released
    CacheEventType type;
    CachedObjectPtr old_object, new_object;
  };

  void Run();
  // One LIST into the cache. Returns the list's resourceVersion.
  core::Result<std::string> Relist();
  // Decodes `doc` into a cache entry (null and logged when it does not decode).
  CachedObjectPtr Decode(const api::JsonView& doc);
  // REQUIRES: mu_ held.
  void UpsertLocked(CachedObjectPtr entry, std::vector<Pending>* out);
  void RemoveLocked(const Key& key, const std::string& rv, std::vector<Pending>* out);
  void IndexLocked(const CachedObjectPtr& entry, bool add);
  void NoteVersionLocked(const std::string& rv);
  void Announce(const std::vector<Pending>& pending);
  void Log(const std::string& message) const;
  void SetError(core::Status status);

  RestClient& client_;
  const ResourceType& resource_;
  InformerOptions options_;
  std::vector<std::pair<std::string, IndexFunc>> index_funcs_;
  std::vector<Handler> handlers_;

  mutable std::mutex mu_;
  std::condition_variable cv_;
  std::map<Key, CachedObjectPtr> items_;
  std::unordered_map<std::string, std::unordered_map<std::string, std::set<Key>>> indexes_;
  // uids of objects deleted by our own writes, so late watch events do not bring them back.
  std::set<std::string> deleted_uids_;
  std::string last_rv_;
  uint64_t last_rv_number_ = 0;
  core::Status last_error_;

  std::atomic<bool> synced_{false};
  std::atomic<bool> stop_{false};
  std::atomic<uint64_t> decode_errors_{0};
  std::atomic<uint64_t> relists_{0};
  std::atomic<uint64_t> events_applied_{0};
  std::thread thread_;
};

// Numeric value of a resourceVersion (etcd's revision); 0 when it is not a number.
uint64_t ResourceVersionNumber(const std::string& rv);

}  // namespace nodesmith::kube
