#include "kube/kube_cluster.h"

#include <algorithm>
#include <chrono>
#include <thread>

#include "core/system_clock.h"
#include "kube/json_merge.h"
#include "kube/object_codec.h"

namespace nodesmith::kube {

namespace {

using cluster::Kind;
using cluster::Object;

// The informers' field indexes, each named by the field it keys by. Pods bound to no node are
// indexed under "": ForEachPodOn("") finds the pending ones.
constexpr const char* kPodsByNodeIndex = "spec.nodeName";

// The provider-ID index of the Node or NodeClaim informer, keyed by cluster::ProviderIdOf.
const char* ProviderIdIndex(Kind kind) {
  return kind == Kind::kNode ? "spec.providerID" : "status.providerID";
}

bool HasStatusSubresource(const ResourceType& r) { return &r != &resources::kStorageClasses; }

Json Without(const Json& doc, const char* key) {
  Json copy = doc;
  if (copy.is_object()) copy.erase(key);
  return copy;
}

// The metadata fields the server owns, dropped from what nodesmith sends on create.
void ClearServerFields(Json* doc) {
  if (!doc->contains("metadata")) return;
  Json& meta = (*doc)["metadata"];
  for (const char* f : {"resourceVersion", "uid", "creationTimestamp", "deletionTimestamp",
                        "generation"})
    meta.erase(f);
}

bool GoneAfterWrite(const Json& answer) {
  // An update that removed the last finalizer of an object being deleted deletes it.
  if (!answer.is_object() || !answer.contains("metadata")) return false;
  const Json& meta = answer["metadata"];
  if (!meta.contains("deletionTimestamp")) return false;
  auto f = meta.find("finalizers");
  return f == meta.end() || !f->is_array() || f->empty();
}

}  // namespace

KubeCluster::KubeCluster(RestClient& client, KubeClusterOptions options)
    : client_(client), options_(std::move(options)) {
  std::vector<Kind> kinds = options_.kinds;
  if (kinds.empty())
    for (int k = 0; k < cluster::kKindCount; ++k) kinds.push_back(static_cast<Kind>(k));
  for (Kind kind : kinds) {
    served_[static_cast<int>(kind)] = true;
    for (const ResourceType* r : ResourcesOf(kind)) {
      InformerOptions io;
      io.log = options_.log;
      auto informer = std::make_unique<Informer>(client_, *r, io);
      if (kind == Kind::kPod) {
        informer->AddIndex(kPodsByNodeIndex, [](const Object& o) {
          return std::vector<std::string>{std::get<api::Pod>(o).spec.node_name};
        });
      } else if (kind == Kind::kNode || kind == Kind::kNodeClaim) {
        informer->AddIndex(ProviderIdIndex(kind), [](const Object& o) {
          const std::string& id = cluster::ProviderIdOf(o);
          return id.empty() ? std::vector<std::string>{} : std::vector<std::string>{id};
        });
      }
      informer->AddHandler([this, kind](CacheEventType type, const CachedObjectPtr& old_object,
                                        const CachedObjectPtr& new_object) {
        OnCacheEvent(kind, type, old_object, new_object);
      });
      informers_.emplace(r, std::move(informer));
    }
  }
}

KubeCluster::~KubeCluster() { Stop(); }

core::Status KubeCluster::Start(double sync_timeout_seconds) {
  if (!started_) {
    started_ = true;
    for (auto& [r, informer] : informers_) informer->Start();
  }
  auto deadline = std::chrono::steady_clock::now() +
                  std::chrono::duration_cast<std::chrono::steady_clock::duration>(
                      std::chrono::duration<double>(sync_timeout_seconds));
  for (auto& [r, informer] : informers_) {
    double left = std::chrono::duration<double>(deadline - std::chrono::steady_clock::now()).count();
    if (!informer->WaitForSync(std::max(left, 0.0))) {
      core::Status why = informer->last_error();
      std::string what = "the cache of " + r->QualifiedResource() + " did not sync within " +
                         std::to_string(static_cast<int>(sync_timeout_seconds)) + " s";
      if (why.ok()) return core::Status::Unavailable(what);
      return core::Status(why.code(), why.message() + " (" + what + ")");
    }
  }
  // What the first lists found is the starting state, not news.
  std::lock_guard<std::mutex> lock(queue_mu_);
  queue_.clear();
  return core::Status::Ok();
}

void KubeCluster::Stop() {
  for (auto& [r, informer] : informers_) informer->RequestStop();
  for (auto& [r, informer] : informers_) informer->Stop();
}

bool KubeCluster::HasSynced() const {
  for (const auto& [r, informer] : informers_)
    if (!informer->HasSynced()) return false;
  return true;
}

Informer* KubeCluster::InformerOf(const ResourceType& resource) const {
  auto it = informers_.find(&resource);
  return it == informers_.end() ? nullptr : it->second.get();
}

bool KubeCluster::Serves(Kind kind) const { return served_[static_cast<int>(kind)]; }

core::Status KubeCluster::NotServed(Kind kind) const {
  return core::Status::Internal(std::string("this cluster client was not started with ") +
                                cluster::KindName(kind) + " in its kinds");
}

std::string KubeCluster::NormalizeNamespace(Kind kind, const std::string& ns) {
  if (!cluster::IsNamespaced(kind)) return "";
  return ns.empty() ? "default" : ns;
}

core::Result<std::pair<const ResourceType*, std::string>> KubeCluster::Address(
    Kind kind, const std::string& name) const {
  if (kind == Kind::kReplicatedWorkload) {
    size_t slash = name.find('/');
    const ResourceType* r =
        slash == std::string::npos ? nullptr : WorkloadResource(name.substr(0, slash));
    if (r == nullptr)
      return core::Status::Invalid("workload name \"" + name +
                                   "\" is not <Deployment|ReplicaSet|StatefulSet>/<name>");
    return std::make_pair(r, name.substr(slash + 1));
  }
  return std::make_pair(ResourcesOf(kind).front(), name);
}

void KubeCluster::OnCacheEvent(Kind kind, CacheEventType type, const CachedObjectPtr& old_object,
                               const CachedObjectPtr& new_object) {
  const CachedObjectPtr& which = new_object != nullptr ? new_object : old_object;
  if (which == nullptr) return;
  cluster::WatchEvent event;
  event.type = type == CacheEventType::kAdded      ? cluster::WatchEventType::kAdded
               : type == CacheEventType::kModified ? cluster::WatchEventType::kModified
                                                   : cluster::WatchEventType::kDeleted;
  event.kind = kind;
  event.namespace_ = which->namespace_;
  event.name = cluster::StoreName(*which->object);
  event.object = which->object;
  event.observed_at = core::SystemNow();
  {
    std::lock_guard<std::mutex> lock(queue_mu_);
    queue_.push_back(std::move(event));
  }
  if (options_.on_queued) options_.on_queued();
}

size_t KubeCluster::DispatchEvents() {
  if (dispatching_) return 0;  // a callback's own write: announced by the outer loop
  dispatching_ = true;
  size_t n = 0;
  while (true) {
    cluster::WatchEvent event;
    {
      std::lock_guard<std::mutex> lock(queue_mu_);
      if (queue_.empty()) break;
      event = std::move(queue_.front());
      queue_.pop_front();
    }
    ++n;
    auto& callbacks = watchers_[static_cast<int>(event.kind)];
    for (size_t i = 0; i < callbacks.size(); ++i) callbacks[i](event);
  }
  dispatching_ = false;
  return n;
}

bool KubeCluster::WaitForVersion(Kind kind, const std::string& resource_version,
                                 double timeout_seconds) {
  bool ok = true;
  for (const ResourceType* r : ResourcesOf(kind)) {
    Informer* informer = InformerOf(*r);
    if (informer != nullptr && r == ResourcesOf(kind).front())
      ok = informer->WaitForResourceVersion(resource_version, timeout_seconds) && ok;
  }
  DispatchEvents();
  return ok;
}

void KubeCluster::WriteThrough(const ResourceType& r, CacheEventType type, const Json& answer) {
  Informer* informer = InformerOf(r);
  if (informer != nullptr && answer.is_object()) informer->Apply(type, answer);
  DispatchEvents();
}

core::Result<Object> KubeCluster::GetObject(Kind kind, const std::string& ns,
                                            const std::string& name) const {
  if (!Serves(kind)) return NotServed(kind);
  auto address = Address(kind, name);
  if (!address.ok()) return address.status();
  std::string n = NormalizeNamespace(kind, ns);
  CachedObjectPtr entry = InformerOf(*address->first)->Get(n, address->second);
  if (entry == nullptr)
    return core::Status::NotFound(std::string(cluster::KindName(kind)) + " " +
                                  (n.empty() ? "" : n + "/") + name + " not found");
  return *entry->object;
}

std::vector<Object> KubeCluster::ListObjects(Kind kind) const {
  std::vector<Object> out;
  ForEachObject(kind, [&](const Object& o) { out.push_back(o); });
  return out;
}

void KubeCluster::ForEachObject(Kind kind, const std::function<void(const Object&)>& fn) const {
  if (!Serves(kind)) return;
  std::vector<const ResourceType*> rs = ResourcesOf(kind);
  if (rs.size() == 1) {
    InformerOf(*rs.front())->ForEach([&](const CachedObject& e) { fn(*e.object); });
    return;
  }
  // Workloads: the three resources merged in (namespace, "<Kind>/<name>") order.
  std::vector<std::pair<std::pair<std::string, std::string>, CachedObjectPtr>> all;
  for (const ResourceType* r : rs) {
    for (CachedObjectPtr& e : InformerOf(*r)->List())
      all.push_back({{e->namespace_, cluster::StoreName(*e->object)}, std::move(e)});
  }
  std::sort(all.begin(), all.end(), [](const auto& a, const auto& b) { return a.first < b.first; });
  for (const auto& [key, e] : all) fn(*e->object);
}

void KubeCluster::LookUpProviderId(Kind kind, const std::string& provider_id,
                                   const std::function<void(const Object&)>& fn) const {
  if (!Serves(kind)) return;
  for (const ResourceType* r : ResourcesOf(kind))
    for (const CachedObjectPtr& e : InformerOf(*r)->ByIndex(ProviderIdIndex(kind), provider_id))
      fn(*e->object);
}

void KubeCluster::ForEachPodOn(const std::string& node,
                               const std::function<void(const api::Pod&)>& fn) const {
  if (!Serves(Kind::kPod)) return;
  for (const CachedObjectPtr& e : InformerOf(resources::kPods)->ByIndex(kPodsByNodeIndex, node))
    fn(std::get<api::Pod>(*e->object));
}

core::Result<Object> KubeCluster::CreateObject(Object object) {
  Kind kind = cluster::KindOfObject(object);
  if (!Serves(kind)) return NotServed(kind);
  const ResourceType& r = ResourceOfObject(object);
  api::ObjectMeta& meta = cluster::MetaOf(object);
  meta.namespace_ = NormalizeNamespace(kind, meta.namespace_);
  Json doc = EncodeObject(object);
  ClearServerFields(&doc);
  if (!meta.namespace_.empty()) doc["metadata"]["namespace"] = meta.namespace_;
  auto created = client_.Create(r, meta.namespace_, doc);
  if (!created.ok()) return created.status();
  Json answer = std::move(created).value();
  // The server ignores the status of a create for kinds with a status subresource; MemoryCluster
  // stores the object whole, so the status follows in a second write when there is one to keep.
  if (HasStatusSubresource(r) && doc.contains("status") && answer.is_object()) {
    auto typed = DecodeObject(r, answer);
    if (typed.ok()) {
      Json as_stored = EncodeObject(typed.value());
      if (as_stored.value("status", Json::object()) != doc["status"]) {
        Json with_status = answer;
        with_status["status"] = ThreeWayMerge(answer.value("status", Json::object()),
                                              as_stored.value("status", Json::object()),
                                              doc["status"]);
        auto put = client_.Replace(r, meta.namespace_, answer["metadata"].value("name", ""),
                                   with_status, "status");
        if (!put.ok()) return put.status().WithPrefix("created, but setting its status failed");
        answer = std::move(put).value();
      }
    }
  }
  auto typed = DecodeObject(r, answer);
  if (!typed.ok()) return typed.status();
  WriteThrough(r, CacheEventType::kAdded, answer);
  return typed;
}

core::Result<Object> KubeCluster::UpdateObject(Object object) {
  Kind kind = cluster::KindOfObject(object);
  if (!Serves(kind)) return NotServed(kind);
  const ResourceType& r = ResourceOfObject(object);
  api::ObjectMeta& meta = cluster::MetaOf(object);
  meta.namespace_ = NormalizeNamespace(kind, meta.namespace_);
  auto live_read = client_.Get(r, meta.namespace_, meta.name);
  if (!live_read.ok()) return live_read.status();
  Json live = std::move(live_read).value();
  std::string live_rv = live["metadata"].value("resourceVersion", "");
  if (!meta.resource_version.empty() && meta.resource_version != live_rv) {
    return core::Status(core::StatusCode::kConflict,
                        "conflict: " + std::string(r.kind) + " " + meta.Key() +
                            " was changed since it was read (resourceVersion " +
                            meta.resource_version + ", now " + live_rv + ")");
  }
  auto understood = DecodeObject(r, live);
  if (!understood.ok()) return understood.status();
  Json base = EncodeObject(understood.value());
  Json desired = EncodeObject(object);
  // What the server owns is never nodesmith's change.
  for (const char* f : {"resourceVersion", "uid", "creationTimestamp", "generation",
                        "deletionTimestamp"}) {
    if (base["metadata"].contains(f)) desired["metadata"][f] = base["metadata"][f];
    else desired["metadata"].erase(f);
  }
  Json merged = ThreeWayMerge(live, base, desired);
  merged["metadata"]["resourceVersion"] = live_rv;
  bool status_sub = HasStatusSubresource(r);
  bool main_changed = status_sub ? Without(merged, "status") != Without(live, "status")
                                 : merged != live;
  bool status_changed = status_sub && merged.value("status", Json::object()) !=
                                          live.value("status", Json::object());
  if (!main_changed && !status_changed) return understood;  // nothing to write, as upstream
  Json answer = live;
  if (main_changed) {
    auto put = client_.Replace(r, meta.namespace_, meta.name, merged);
    if (!put.ok()) return put.status();
    answer = std::move(put).value();
  }
  if (status_changed && !GoneAfterWrite(answer)) {
    Json with_status = answer;
    with_status["status"] = merged["status"];
    auto put = client_.Replace(r, meta.namespace_, meta.name, with_status, "status");
    if (!put.ok()) {
      if (main_changed) WriteThrough(r, CacheEventType::kModified, answer);
      return put.status();
    }
    answer = std::move(put).value();
  }
  auto typed = DecodeObject(r, answer);
  if (!typed.ok()) return typed.status();
  WriteThrough(r, GoneAfterWrite(answer) ? CacheEventType::kDeleted : CacheEventType::kModified,
               answer);
  return typed;
}

core::Status KubeCluster::DeleteObject(Kind kind, const std::string& ns, const std::string& name) {
  if (!Serves(kind)) return NotServed(kind);
  auto address = Address(kind, name);
  if (!address.ok()) return address.status();
  const ResourceType& r = *address->first;
  std::string n = NormalizeNamespace(kind, ns);
  DeleteOptions options;
  options.propagation_policy = "Background";
  CachedObjectPtr cached = InformerOf(r)->Get(n, address->second);
  if (cached != nullptr) options.uid = cached->uid;
  bool pending = false;
  auto deleted = client_.Delete(r, n, address->second, options, &pending);
  if (!deleted.ok()) {
    if (deleted.status().code() == core::StatusCode::kNotFound && cached != nullptr)
      WriteThrough(r, CacheEventType::kDeleted, EncodeObject(*cached->object));
    return deleted.status();
  }
  Json answer = std::move(deleted).value();
  if (answer.is_null() && cached != nullptr) answer = EncodeObject(*cached->object);
  // Still there while finalizers or a grace period hold it (the server says 202, or shows them).
  bool remains = pending;
  if (answer.is_object() && answer.contains("metadata")) {
    const Json& meta = answer["metadata"];
    auto f = meta.find("finalizers");
    if (f != meta.end() && f->is_array() && !f->empty()) remains = true;
    auto g = meta.find("deletionGracePeriodSeconds");
    if (g != meta.end() && g->is_number() && g->get<int64_t>() > 0) remains = true;
  }
  WriteThrough(r, remains ? CacheEventType::kModified : CacheEventType::kDeleted, answer);
  return core::Status::Ok();
}

core::Status KubeCluster::Bind(const std::string& ns, const std::string& pod,
                               const std::string& node) {
  std::string n = NormalizeNamespace(Kind::kPod, ns);
  NS_RETURN_IF_ERROR(client_.Bind(n, pod, node));
  auto now = client_.Get(resources::kPods, n, pod);
  if (now.ok()) WriteThrough(resources::kPods, CacheEventType::kModified, now.value());
  return core::Status::Ok();
}

core::Status KubeCluster::Evict(const std::string& ns, const std::string& pod) {
  std::string n = NormalizeNamespace(Kind::kPod, ns);
  NS_RETURN_IF_ERROR(client_.Evict(n, pod));
  auto now = client_.Get(resources::kPods, n, pod);
  if (now.ok()) {
    WriteThrough(resources::kPods, CacheEventType::kModified, now.value());
  } else if (now.status().code() == core::StatusCode::kNotFound) {
    Informer* informer = InformerOf(resources::kPods);
    CachedObjectPtr cached = informer != nullptr ? informer->Get(n, pod) : nullptr;
    if (cached != nullptr)
      WriteThrough(resources::kPods, CacheEventType::kDeleted, EncodeObject(*cached->object));
  }
  return core::Status::Ok();
}

void KubeCluster::Watch(Kind kind, std::function<void(const cluster::WatchEvent&)> callback) {
  watchers_[static_cast<int>(kind)].push_back(std::move(callback));
}

}  // namespace nodesmith::kube
