#include "operator/shadow_cluster.h"

#include <algorithm>
#include <tuple>
#include <type_traits>
#include <variant>

namespace nodesmith::op {

using cluster::Kind;
using cluster::Object;
using cluster::WatchEventType;

namespace {

std::string Namespace(Kind kind, const std::string& ns) {
  if (!cluster::IsNamespaced(kind)) return "";
  return ns.empty() ? "default" : ns;
}

std::string Describe(Kind kind, const std::string& ns, const std::string& name) {
  return std::string(cluster::KindName(kind)) + " " + (ns.empty() ? "" : ns + "/") + name;
}

// What Overlaid reads of the objects it merges: the (namespace, store name) they are listed
// under, and the T an overlay object is handed on as.
const std::string& ListedNamespace(const Object& o) { return cluster::MetaOf(o).namespace_; }
const std::string& ListedNamespace(const api::Pod& pod) { return pod.metadata.namespace_; }
const std::string& ListedName(const Object& o, std::string& scratch) {
  if (std::holds_alternative<api::ReplicatedWorkload>(o)) return scratch = cluster::StoreName(o);
  return cluster::MetaOf(o).name;
}
const std::string& ListedName(const api::Pod& pod, std::string&) { return pod.metadata.name; }
template <typename T>
const T& HandedOnAs(const Object& o) {
  if constexpr (std::is_same_v<T, Object>) {
    return o;
  } else {
    return std::get<T>(o);
  }
}

}  // namespace

ShadowCluster::ShadowCluster(cluster::ClusterApi& live, const core::Clock& clock,
                             std::function<void(const ShadowWrite&)> on_write)
    : live_(live), clock_(clock), on_write_(std::move(on_write)) {}

ShadowCluster::Key ShadowCluster::KeyOf(Kind kind, const std::string& ns,
                                        const std::string& name) {
  return Key{static_cast<int>(kind), Namespace(kind, ns), name};
}

const ShadowCluster::Entry* ShadowCluster::Find(const Key& key) const {
  auto it = overlay_.find(key);
  return it == overlay_.end() ? nullptr : &it->second;
}

core::Result<Object> ShadowCluster::GetObject(Kind kind, const std::string& ns,
                                              const std::string& name) const {
  if (const Entry* e = Find(KeyOf(kind, ns, name))) {
    if (e->object == nullptr) {
      return core::Status::NotFound(Describe(kind, Namespace(kind, ns), name) + " not found");
    }
    return *e->object;
  }
  return live_.GetObject(kind, ns, name);
}


template <typename T>
void ShadowCluster::Overlaid(
    Kind kind, const std::function<void(const std::function<void(const T&)>&)>& live_walk,
    const std::function<bool(const Object&)>& keep, const std::function<void(const T&)>& fn) const {
  const int k = static_cast<int>(kind);
  auto next = overlay_.lower_bound(Key{k, "", ""});
  const auto end = overlay_.lower_bound(Key{k + 1, "", ""});
  if (next == end) {
    live_walk(fn);
    return;
  }
  auto emit = [&](const Entry& e) {
    if (e.object != nullptr && keep(*e.object)) fn(HandedOnAs<T>(*e.object));
  };
  std::string scratch;
  live_walk([&](const T& o) {
    const std::string& ns = ListedNamespace(o);
    const std::string& name = ListedName(o, scratch);
    auto before = [&] {
      return std::tie(std::get<1>(next->first), std::get<2>(next->first)) < std::tie(ns, name);
    };
    for (; next != end && before(); ++next) emit(next->second);
    if (next != end && std::get<1>(next->first) == ns && std::get<2>(next->first) == name) {
      emit(next->second);
      ++next;
      return;
    }
    fn(o);
  });
  for (; next != end; ++next) emit(next->second);
}

void ShadowCluster::ForEachObject(Kind kind, const std::function<void(const Object&)>& fn) const {
  Overlaid<Object>(
      kind, [&](const std::function<void(const Object&)>& each) { live_.ForEachObject(kind, each); },
      [](const Object&) { return true; }, fn);
}

std::vector<Object> ShadowCluster::ListObjects(Kind kind) const {
  std::vector<Object> out;
  ForEachObject(kind, [&](const Object& o) { out.push_back(o); });
  return out;
}

void ShadowCluster::ForEachPodOn(const std::string& node,
                                 const std::function<void(const api::Pod&)>& fn) const {
  Overlaid<api::Pod>(
      Kind::kPod,
      [&](const std::function<void(const api::Pod&)>& each) { live_.ForEachPodOn(node, each); },
      [&](const Object& o) { return std::get<api::Pod>(o).spec.node_name == node; }, fn);
}

void ShadowCluster::LookUpProviderId(Kind kind, const std::string& provider_id,
                                     const std::function<void(const Object&)>& fn) const {
  Overlaid<Object>(
      kind,
      [&](const std::function<void(const Object&)>& each) {
        live_.ForEachWithProviderId(kind, provider_id, each);
      },
      [&](const Object& o) { return cluster::ProviderIdOf(o) == provider_id; }, fn);
}

void ShadowCluster::Notify(WatchEventType type, Kind kind, const std::string& ns,
                           const std::string& name, std::shared_ptr<const Object> object) {
  auto it = watchers_.find(static_cast<int>(kind));
  if (it == watchers_.end()) return;
  cluster::WatchEvent event{type, kind, ns, name, std::move(object), clock_.Now()};
  // Callbacks may register more watchers; index, do not iterate.
  for (size_t i = 0; i < it->second.size(); ++i) it->second[i](event);
}

void ShadowCluster::Report(const char* verb, Kind kind, const std::string& ns,
                           const std::string& name) {
  if (on_write_) on_write_(ShadowWrite{verb, kind, ns, name});
}

void ShadowCluster::Store(WatchEventType type, Object object) {
  const Kind kind = cluster::KindOfObject(object);
  const std::string ns = cluster::MetaOf(object).namespace_;
  const std::string name = cluster::StoreName(object);
  auto stored = std::make_shared<const Object>(std::move(object));
  overlay_[KeyOf(kind, ns, name)] = Entry{stored};
  Notify(type, kind, ns, name, stored);
}

void ShadowCluster::Remove(Kind kind, const std::string& ns, const std::string& name,
                           const Object& last) {
  overlay_[KeyOf(kind, ns, name)] = Entry{nullptr};
  Notify(WatchEventType::kDeleted, kind, ns, name, std::make_shared<const Object>(last));
}

core::Result<Object> ShadowCluster::CreateObject(Object object) {
  const Kind kind = cluster::KindOfObject(object);
  api::ObjectMeta& meta = cluster::MetaOf(object);
  meta.namespace_ = Namespace(kind, meta.namespace_);
  if (meta.name.empty()) {
    if (meta.generate_name.empty()) {
      return core::Status::Invalid(std::string(cluster::KindName(kind)) +
                                   ": metadata.name or metadata.generateName is required");
    }
    do {
      meta.name = meta.generate_name + "shadow" + std::to_string(++next_id_);
    } while (GetObject(kind, meta.namespace_, cluster::StoreName(object)).ok());
  }
  const std::string name = cluster::StoreName(object);
  if (GetObject(kind, meta.namespace_, name).ok()) {
    return core::Status(core::StatusCode::kAlreadyExists,
                        Describe(kind, meta.namespace_, name) + " already exists");
  }
  meta.uid = "shadow-" + std::to_string(++next_id_);
  meta.resource_version = "shadow-" + std::to_string(++next_id_);
  if (!meta.creation_timestamp) meta.creation_timestamp = clock_.Now();
  meta.generation = 1;
  Report("create", kind, meta.namespace_, name);
  Object copy = object;
  Store(WatchEventType::kAdded, std::move(object));
  return copy;
}

core::Result<Object> ShadowCluster::UpdateObject(Object object) {
  const Kind kind = cluster::KindOfObject(object);
  api::ObjectMeta& meta = cluster::MetaOf(object);
  meta.namespace_ = Namespace(kind, meta.namespace_);
  const std::string name = cluster::StoreName(object);
  auto current = GetObject(kind, meta.namespace_, name);
  if (!current.ok()) return current.status();
  const api::ObjectMeta& before = cluster::MetaOf(*current);
  meta.uid = before.uid;
  meta.creation_timestamp = before.creation_timestamp;
  meta.deletion_timestamp = before.deletion_timestamp;
  meta.resource_version = "shadow-" + std::to_string(++next_id_);
  Report("update", kind, meta.namespace_, name);
  if (meta.deletion_timestamp && meta.finalizers.empty()) {
    Remove(kind, meta.namespace_, name, object);
    return object;
  }
  Object copy = object;
  Store(WatchEventType::kModified, std::move(object));
  return copy;
}

core::Status ShadowCluster::DeleteObject(Kind kind, const std::string& ns,
                                         const std::string& name) {
  auto current = GetObject(kind, ns, name);
  if (!current.ok()) return current.status();
  Object object = *current;
  api::ObjectMeta& meta = cluster::MetaOf(object);
  Report("delete", kind, meta.namespace_, name);
  if (meta.finalizers.empty()) {
    Remove(kind, meta.namespace_, name, object);
    return core::Status::Ok();
  }
  if (!meta.deletion_timestamp) {
    meta.deletion_timestamp = clock_.Now();
    meta.resource_version = "shadow-" + std::to_string(++next_id_);
    Store(WatchEventType::kModified, std::move(object));
  }
  return core::Status::Ok();
}

core::Status ShadowCluster::Bind(const std::string& ns, const std::string& pod,
                                 const std::string& node) {
  auto current = GetObject(Kind::kPod, ns, pod);
  if (!current.ok()) return current.status();
  Object object = *current;
  std::get<api::Pod>(object).spec.node_name = node;
  Report("bind", Kind::kPod, Namespace(Kind::kPod, ns), pod);
  Store(WatchEventType::kModified, std::move(object));
  return core::Status::Ok();
}

core::Status ShadowCluster::Evict(const std::string& ns, const std::string& pod) {
  auto current = GetObject(Kind::kPod, ns, pod);
  if (!current.ok()) return current.status();
  Report("evict", Kind::kPod, Namespace(Kind::kPod, ns), pod);
  Remove(Kind::kPod, Namespace(Kind::kPod, ns), pod, *current);
  return core::Status::Ok();
}

void ShadowCluster::Watch(Kind kind, std::function<void(const cluster::WatchEvent&)> callback) {
  auto& list = watchers_[static_cast<int>(kind)];
  list.push_back(callback);
  // Live changes reach the watchers unless the overlay holds that object.
  live_.Watch(kind, [this, kind, cb = std::move(callback)](const cluster::WatchEvent& e) {
    if (Find(KeyOf(kind, e.namespace_, e.name)) != nullptr) return;
    cb(e);
  });
}

size_t ShadowCluster::OverlaySize() const {
  size_t n = 0;
  for (const auto& [key, e] : overlay_) n += e.object != nullptr;
  return n;
}

}  // namespace nodesmith::op
