#include "cluster/memory_cluster.h"

#include <algorithm>
#include <cstdio>
#include <nlohmann/json.hpp>
#include <utility>

#include "api/codec.h"
#include "cluster/disruption_budget.h"

namespace nodesmith::cluster {
namespace {

template <class... Ts>
struct Overloaded : Ts... {
  using Ts::operator()...;
};
template <class... Ts>
Overloaded(Ts...) -> Overloaded<Ts...>;

nlohmann::ordered_json Encode(const Object& object) {
  return std::visit(
      Overloaded{
          [](const api::Pod& o) { return api::EncodePod(o); },
          [](const api::Node& o) { return api::EncodeNode(o); },
          [](const api::NodeClaim& o) { return api::EncodeNodeClaim(o); },
          [](const api::NodePool& o) { return api::EncodeNodePool(o); },
          [](const api::EC2NodeClass& o) { return api::EncodeEC2NodeClass(o); },
          [](const api::ReplicatedWorkload& o) { return api::EncodeReplicatedWorkload(o); },
          [](const api::DaemonSet& o) { return api::EncodeDaemonSet(o); },
          [](const api::Job& o) { return api::EncodeJob(o); },
          [](const api::PodDisruptionBudget& o) { return api::EncodePodDisruptionBudget(o); },
          [](const api::PersistentVolumeClaim& o) { return api::EncodePersistentVolumeClaim(o); },
          [](const api::PersistentVolume& o) { return api::EncodePersistentVolume(o); },
          [](const api::StorageClass& o) { return api::EncodeStorageClass(o); },
      },
      object);
}

// Everything but metadata and status: what a generation counts.
nlohmann::ordered_json SpecPart(nlohmann::ordered_json encoded) {
  encoded.erase("metadata");
  encoded.erase("status");
  return encoded;
}

std::string Describe(Kind kind, const std::string& ns, const std::string& name) {
  std::string out = KindName(kind);
  out += " \"";
  if (!ns.empty()) out += ns + "/";
  return out + name + "\"";
}

core::Status NotFound(Kind kind, const std::string& ns, const std::string& name) {
  return core::Status::NotFound(Describe(kind, ns, name) + " not found");
}

// The alphabet of the API server's name generator (no vowels, no look-alike digits).
constexpr char kNameAlphabet[] = "bcdfghjklmnpqrstvwxz2456789";

// splitmix64: spreads consecutive counters over the whole range, so consecutive generated
// names differ in every position, as random ones would.
uint64_t Mix(uint64_t x) {
  x += 0x9e3779b97f4a7c15ULL;
  x = (x ^ (x >> 30)) * 0xbf58476d1ce4e5b9ULL;
  x = (x ^ (x >> 27)) * 0x94d049bb133111ebULL;
  return x ^ (x >> 31);
}

}  // namespace

MemoryCluster::MemoryCluster(const core::Clock& clock) : clock_(clock) {}

std::string MemoryCluster::NormalizeNamespace(Kind kind, const std::string& ns) {
  if (!IsNamespaced(kind)) return "";
  return ns.empty() ? "default" : ns;
}

std::string MemoryCluster::NextUid() {
  char buf[48];
  std::snprintf(buf, sizeof(buf), "00000000-0000-0000-0000-%012llx",
                static_cast<unsigned long long>(++uid_counter_));
  return buf;
}

std::string MemoryCluster::NextNameSuffix() {
  constexpr uint64_t kAlphabetSize = sizeof(kNameAlphabet) - 1;
  uint64_t bits = Mix(name_counter_++);
  std::string suffix;
  for (int i = 0; i < 5; ++i) {
    suffix += kNameAlphabet[bits % kAlphabetSize];
    bits /= kAlphabetSize;
  }
  return suffix;
}

core::Result<Object> MemoryCluster::GetObject(Kind kind, const std::string& ns,
                                              const std::string& name) const {
  const Store& store = StoreFor(kind);
  auto it = store.find(Key{NormalizeNamespace(kind, ns), name});
  if (it == store.end()) return NotFound(kind, NormalizeNamespace(kind, ns), name);
  return *it->second;
}

std::vector<Object> MemoryCluster::ListObjects(Kind kind) const {
  std::vector<Object> out;
  out.reserve(Count(kind));
  for (const auto& [key, object] : StoreFor(kind)) out.push_back(*object);
  return out;
}

void MemoryCluster::ForEachObject(Kind kind, const std::function<void(const Object&)>& fn) const {
  for (const auto& [key, object] : StoreFor(kind)) fn(*object);
}

core::Result<Object> MemoryCluster::CreateObject(Object object) {
  const Kind kind = KindOfObject(object);
  api::ObjectMeta& meta = MetaOf(object);
  if (const auto* w = std::get_if<api::ReplicatedWorkload>(&object)) {
    if (w->kind != "Deployment" && w->kind != "ReplicaSet" && w->kind != "StatefulSet") {
      return core::Status::Invalid("ReplicatedWorkload " + meta.name +
                                   ": kind must be Deployment, ReplicaSet or StatefulSet, not \"" +
                                   w->kind + "\"");
    }
  }
  meta.namespace_ = NormalizeNamespace(kind, meta.namespace_);
  Store& store = StoreFor(kind);
  if (meta.name.empty()) {
    if (meta.generate_name.empty()) {
      return core::Status::Invalid(std::string(KindName(kind)) +
                                   ": metadata.name or metadata.generateName is required");
    }
    // Like the API server since RetryGenerateName: try again on a collision.
    do {
      meta.name = meta.generate_name + NextNameSuffix();
    } while (store.contains(Key{meta.namespace_, StoreName(object)}));
  }
  Key key{meta.namespace_, StoreName(object)};
  if (store.contains(key)) {
    return core::Status(core::StatusCode::kAlreadyExists,
                        Describe(kind, key.first, key.second) + " already exists");
  }
  if (meta.uid.empty()) meta.uid = NextUid();
  if (!meta.creation_timestamp) meta.creation_timestamp = clock_.Now();
  meta.generation = 1;
  meta.resource_version = NextResourceVersion();
  if (auto* pod = std::get_if<api::Pod>(&object); pod && pod->status.phase.empty()) {
    pod->status.phase = "Pending";
  }
  auto stored = std::make_shared<const Object>(std::move(object));
  store[key] = stored;
  Notify(WatchEventType::kAdded, kind, key, stored);
  return *stored;
}

core::Result<Object> MemoryCluster::UpdateObject(Object object) {
  const Kind kind = KindOfObject(object);
  api::ObjectMeta& meta = MetaOf(object);
  meta.namespace_ = NormalizeNamespace(kind, meta.namespace_);
  Store& store = StoreFor(kind);
  Key key{meta.namespace_, StoreName(object)};
  auto it = store.find(key);
  if (it == store.end()) return NotFound(kind, key.first, key.second);
  std::shared_ptr<const Object> old = it->second;
  const api::ObjectMeta& old_meta = MetaOf(*old);
  if (!meta.resource_version.empty() && meta.resource_version != old_meta.resource_version) {
    return core::Status(core::StatusCode::kConflict,
                        "conflict: Operation cannot be fulfilled on " +
                            Describe(kind, key.first, key.second) +
                            ": the object has been modified; please apply your changes to the "
                            "latest version and try again");
  }
  const bool deleting = old_meta.deletion_timestamp.has_value();
  if (deleting) {
    for (const auto& f : meta.finalizers) {
      if (std::find(old_meta.finalizers.begin(), old_meta.finalizers.end(), f) ==
          old_meta.finalizers.end()) {
        return core::Status::Invalid(Describe(kind, key.first, key.second) +
                                     ": metadata.finalizers: Forbidden: no new finalizers can be "
                                     "added if the object is being deleted, found new finalizers "
                                     "[\"" +
                                     f + "\"]");
      }
    }
  }
  // Fields the API server owns.
  meta.uid = old_meta.uid;
  meta.creation_timestamp = old_meta.creation_timestamp;
  meta.deletion_timestamp = old_meta.deletion_timestamp;
  meta.generation = old_meta.generation;
  meta.resource_version = old_meta.resource_version;

  if (deleting && meta.finalizers.empty()) {
    meta.resource_version = NextResourceVersion();
    auto last = std::make_shared<const Object>(std::move(object));
    Remove(kind, key, last);
    return *last;
  }

  nlohmann::ordered_json before = Encode(*old);
  nlohmann::ordered_json after = Encode(object);
  if (before == after) {
    // Nothing changed: no new version and no event, so a controller that writes back what it
    // read does not wake itself up.
    return *old;
  }
  if (SpecPart(std::move(before)) != SpecPart(std::move(after))) ++meta.generation;
  meta.resource_version = NextResourceVersion();
  auto stored = std::make_shared<const Object>(std::move(object));
  it->second = stored;
  Notify(WatchEventType::kModified, kind, key, stored);
  return *stored;
}

core::Status MemoryCluster::DeleteObject(Kind kind, const std::string& ns,
                                         const std::string& name) {
  Store& store = StoreFor(kind);
  Key key{NormalizeNamespace(kind, ns), name};
  auto it = store.find(key);
  if (it == store.end()) return NotFound(kind, key.first, key.second);
  Object object = *it->second;
  api::ObjectMeta& meta = MetaOf(object);
  if (!meta.finalizers.empty()) {
    if (meta.deletion_timestamp) return core::Status::Ok();  // already being deleted
    meta.deletion_timestamp = clock_.Now();
    meta.resource_version = NextResourceVersion();
    auto stored = std::make_shared<const Object>(std::move(object));
    it->second = stored;
    Notify(WatchEventType::kModified, kind, key, stored);
    return core::Status::Ok();
  }
  meta.resource_version = NextResourceVersion();
  Remove(kind, key, std::make_shared<const Object>(std::move(object)));
  return core::Status::Ok();
}

void MemoryCluster::Remove(Kind kind, const Key& key, std::shared_ptr<const Object> last) {
  StoreFor(kind).erase(key);
  Notify(WatchEventType::kDeleted, kind, key, std::move(last));
}

core::Status MemoryCluster::Bind(const std::string& ns, const std::string& pod_name,
                                 const std::string& node) {
  Store& pods = StoreFor(Kind::kPod);
  Key key{NormalizeNamespace(Kind::kPod, ns), pod_name};
  auto it = pods.find(key);
  if (it == pods.end()) return NotFound(Kind::kPod, key.first, key.second);
  api::Pod pod = std::get<api::Pod>(*it->second);
  const std::string describe = Describe(Kind::kPod, key.first, key.second);
  if (pod.metadata.deletion_timestamp) {
    return core::Status(core::StatusCode::kConflict,
                        describe + " is being deleted, cannot be assigned to a host");
  }
  if (!pod.spec.node_name.empty()) {
    return core::Status(core::StatusCode::kConflict,
                        describe + " is already assigned to node \"" + pod.spec.node_name + "\"");
  }
  pod.spec.node_name = node;
  auto cond = std::find_if(pod.status.conditions.begin(), pod.status.conditions.end(),
                           [](const api::Condition& c) { return c.type == "PodScheduled"; });
  if (cond == pod.status.conditions.end()) {
    pod.status.conditions.push_back(api::Condition{.type = "PodScheduled"});
    cond = pod.status.conditions.end() - 1;
  }
  if (cond->status != "True") cond->last_transition_time = clock_.Now();
  cond->status = "True";
  cond->reason.clear();
  cond->message.clear();
  pod.metadata.resource_version = NextResourceVersion();
  auto stored = std::make_shared<const Object>(std::move(pod));
  it->second = stored;
  Notify(WatchEventType::kModified, Kind::kPod, key, stored);
  return core::Status::Ok();
}

core::Status MemoryCluster::Evict(const std::string& ns, const std::string& pod_name) {
  Key key{NormalizeNamespace(Kind::kPod, ns), pod_name};
  auto it = StoreFor(Kind::kPod).find(key);
  if (it == StoreFor(Kind::kPod).end()) return NotFound(Kind::kPod, key.first, key.second);
  NS_RETURN_IF_ERROR(CheckEviction(*this, std::get<api::Pod>(*it->second)));
  return DeleteObject(Kind::kPod, key.first, key.second);
}

void MemoryCluster::Watch(Kind kind, std::function<void(const WatchEvent&)> callback) {
  watchers_[static_cast<int>(kind)].push_back(std::move(callback));
}

void MemoryCluster::Notify(WatchEventType type, Kind kind, const Key& key,
                           std::shared_ptr<const Object> obj) {
  pending_events_.push_back(
      WatchEvent{type, kind, key.first, key.second, std::move(obj), clock_.Now()});
  if (dispatching_) return;  // the outer Notify delivers it after the current event
  dispatching_ = true;
  while (!pending_events_.empty()) {
    WatchEvent event = std::move(pending_events_.front());
    pending_events_.pop_front();
    auto& watchers = watchers_[static_cast<int>(event.kind)];
    // Watchers added by a callback see only later events.
    const size_t n = watchers.size();
    for (size_t i = 0; i < n; ++i) watchers[i](event);
  }
  dispatching_ = false;
}

}  // namespace nodesmith::cluster
