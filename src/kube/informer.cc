#include "kube/informer.h"

#include <charconv>
#include <iostream>
#include <random>

#include "kube/object_codec.h"

namespace nodesmith::kube {

namespace {

constexpr auto kInitialBackoff = std::chrono::milliseconds(800);
constexpr auto kMaxBackoff = std::chrono::seconds(30);

std::string MetaString(const api::JsonView& doc, const char* field) {
  const api::JsonView value = doc.Find("metadata").Find(field);
  return value.is_string() ? std::string(value.GetString()) : "";
}

std::chrono::milliseconds Jittered(std::chrono::milliseconds d) {
  static thread_local std::mt19937_64 rng(std::random_device{}());
  return std::chrono::milliseconds(
      std::uniform_int_distribution<int64_t>(d.count() / 2, d.count())(rng) + d.count() / 2);
}

}  // namespace

uint64_t ResourceVersionNumber(const std::string& rv) {
  uint64_t n = 0;
  auto [ptr, ec] = std::from_chars(rv.data(), rv.data() + rv.size(), n);
  if (ec != std::errc() || ptr != rv.data() + rv.size()) return 0;
  return n;
}

Informer::Informer(RestClient& client, const ResourceType& resource, InformerOptions options)
    : client_(client), resource_(resource), options_(std::move(options)) {}

Informer::~Informer() { Stop(); }

void Informer::AddIndex(const std::string& name, IndexFunc index) {
  index_funcs_.emplace_back(name, std::move(index));
}

void Informer::AddHandler(Handler handler) { handlers_.push_back(std::move(handler)); }

void Informer::Start() {
  if (thread_.joinable()) return;
  stop_ = false;
  thread_ = std::thread([this] { Run(); });
}

void Informer::RequestStop() {
  stop_ = true;
  cv_.notify_all();
}

void Informer::Stop() {
  RequestStop();
  if (thread_.joinable()) thread_.join();
}

bool Informer::WaitForSync(double timeout_seconds) {
  std::unique_lock<std::mutex> lock(mu_);
  cv_.wait_for(lock, std::chrono::duration<double>(timeout_seconds),
               [&] { return synced_.load() || stop_.load(); });
  return synced_.load();
}

void Informer::Log(const std::string& message) const {
  std::string line = "informer " + resource_.QualifiedResource() + ": " + message;
  if (options_.log) options_.log(line);
  else std::cerr << line << "\n";
}

void Informer::SetError(core::Status status) {
  std::lock_guard<std::mutex> lock(mu_);
  last_error_ = std::move(status);
}

core::Status Informer::last_error() const {
  std::lock_guard<std::mutex> lock(mu_);
  return last_error_;
}

std::string Informer::last_resource_version() const {
  std::lock_guard<std::mutex> lock(mu_);
  return last_rv_;
}

bool Informer::WaitForResourceVersion(const std::string& rv, double timeout_seconds) {
  uint64_t want = ResourceVersionNumber(rv);
  std::unique_lock<std::mutex> lock(mu_);
  return cv_.wait_for(lock, std::chrono::duration<double>(timeout_seconds),
                      [&] { return last_rv_number_ >= want || stop_.load(); }) &&
         last_rv_number_ >= want;
}

void Informer::NoteVersionLocked(const std::string& rv) {
  if (rv.empty()) return;
  uint64_t n = ResourceVersionNumber(rv);
  if (n == 0 || n >= last_rv_number_) {
    last_rv_ = rv;
    if (n != 0) last_rv_number_ = n;
  }
}

CachedObjectPtr Informer::Decode(const api::JsonView& doc) {
  auto decoded = DecodeObject(resource_, doc);
  if (!decoded.ok()) {
    decode_errors_.fetch_add(1);
    std::string ns = MetaString(doc, "namespace");
    std::string name = MetaString(doc, "name");
    Log("cannot read " + std::string(resource_.kind) + " " + (ns.empty() ? "" : ns + "/") + name +
        " (left out of the cache): " + decoded.status().message());
    return nullptr;
  }
  auto entry = std::make_shared<CachedObject>();
  const api::ObjectMeta& meta = cluster::MetaOf(decoded.value());
  entry->namespace_ = meta.namespace_;
  entry->name = meta.name;
  entry->uid = meta.uid;
  entry->resource_version = meta.resource_version;
  entry->object = std::make_shared<const cluster::Object>(std::move(decoded).value());
  return entry;
}

void Informer::IndexLocked(const CachedObjectPtr& entry, bool add) {
  Key key{entry->namespace_, entry->name};
  for (const auto& [name, fn] : index_funcs_) {
    for (const std::string& value : fn(*entry->object)) {
      auto& bucket = indexes_[name][value];
      if (add) {
        bucket.insert(key);
      } else {
        bucket.erase(key);
        if (bucket.empty()) indexes_[name].erase(value);
      }
    }
  }
}

void Informer::UpsertLocked(CachedObjectPtr entry, std::vector<Pending>* out) {
  if (!entry->uid.empty() && deleted_uids_.count(entry->uid) > 0) return;
  Key key{entry->namespace_, entry->name};
  auto it = items_.find(key);
  if (it != items_.end()) {
    const CachedObjectPtr& old = it->second;
    uint64_t have = ResourceVersionNumber(old->resource_version);
    uint64_t got = ResourceVersionNumber(entry->resource_version);
    if (old->uid == entry->uid &&
        (old->resource_version == entry->resource_version || (have != 0 && got != 0 && got < have)))
      return;
    CachedObjectPtr previous = old;
    IndexLocked(previous, false);
    it->second = entry;
    IndexLocked(entry, true);
    out->push_back({CacheEventType::kModified, std::move(previous), std::move(entry)});
    return;
  }
  items_.emplace(key, entry);
  IndexLocked(entry, true);
  out->push_back({CacheEventType::kAdded, nullptr, std::move(entry)});
}

void Informer::RemoveLocked(const Key& key, const std::string& /*rv*/, std::vector<Pending>* out) {
  auto it = items_.find(key);
  if (it == items_.end()) return;
  CachedObjectPtr old = it->second;
  IndexLocked(old, false);
  items_.erase(it);
  out->push_back({CacheEventType::kDeleted, std::move(old), nullptr});
}

void Informer::Announce(const std::vector<Pending>& pending) {
  for (const Pending& p : pending) {
    for (const Handler& h : handlers_) h(p.type, p.old_object, p.new_object);
  }
}

bool Informer::Apply(CacheEventType type, const api::JsonView& object) {
  std::vector<Pending> pending;
  {
    CachedObjectPtr entry = Decode(object);
    if (entry == nullptr) return false;
    std::lock_guard<std::mutex> lock(mu_);
    if (type == CacheEventType::kDeleted) {
      Key key{entry->namespace_, entry->name};
      auto it = items_.find(key);
      if (!entry->uid.empty()) deleted_uids_.insert(entry->uid);
      if (it != items_.end() && (entry->uid.empty() || it->second->uid == entry->uid))
        RemoveLocked(key, entry->resource_version, &pending);
    } else {
      // The watch has delivered this version, and everything before it, already: the cache
      // holds it or what became of it since (a pod the answer still shows may be gone by now).
      const uint64_t got = ResourceVersionNumber(entry->resource_version);
      if (got == 0 || got > last_rv_number_) UpsertLocked(std::move(entry), &pending);
    }
  }
  cv_.notify_all();
  Announce(pending);
  return !pending.empty();
}

core::Result<std::string> Informer::Relist() {
  ListOptions options;
  options.limit = options_.page_size;
  options.label_selector = options_.label_selector;
  options.field_selector = options_.field_selector;
  // Page by page: each page is decoded into typed objects before the next is fetched, so the
  // parsed JSON of the whole list (several times the cache's size) is never held at once.
  std::map<Key, CachedObjectPtr> fresh;
  std::string list_rv;
  api::JsonParser parser;  // one page's document at a time
  for (int restart = 0;; ++restart) {
    std::string token;
    bool expired = false;
    fresh.clear();
    do {
      auto page = client_.ListPageIn(parser, resource_, options_.namespace_, options, token);
      if (!page.ok()) {
        if (IsExpired(page.status()) && restart < 3) {  // the continue token expired: start over
          expired = true;
          break;
        }
        return page.status();
      }
      for (const api::JsonView& item : page->items) {
        CachedObjectPtr entry = Decode(item);
        if (entry != nullptr) fresh.emplace(Key{entry->namespace_, entry->name}, std::move(entry));
      }
      list_rv = page->resource_version;
      token = page->next;
    } while (!token.empty() && !stop_.load());
    if (!expired) break;
  }
  if (stop_.load()) return core::Status::Unavailable("stopped");
  std::vector<Pending> pending;
  {
    std::lock_guard<std::mutex> lock(mu_);
    for (auto it = items_.begin(); it != items_.end();) {
      if (fresh.count(it->first) == 0) {
        auto key = (it++)->first;
        RemoveLocked(key, "", &pending);
      } else {
        ++it;
      }
    }
    deleted_uids_.clear();
    for (auto& [key, entry] : fresh) UpsertLocked(entry, &pending);
    // A version the list is newer than wins even if a write-through announced a later one.
    last_rv_.clear();
    last_rv_number_ = 0;
    NoteVersionLocked(list_rv);
  }
  cv_.notify_all();
  Announce(pending);
  return list_rv;
}

void Informer::Run() {
  auto backoff = kInitialBackoff;
  auto wait = [&](std::chrono::milliseconds d) {
    std::unique_lock<std::mutex> lock(mu_);
    cv_.wait_for(lock, Jittered(d), [&] { return stop_.load(); });
    backoff = std::min<std::chrono::milliseconds>(backoff * 2, kMaxBackoff);
  };
  static thread_local std::mt19937_64 rng(std::random_device{}());
  // Started again after Stop: resume watching from the last version seen (a 410 relists).
  bool need_list = !synced_.load() || last_resource_version().empty();
  while (!stop_) {
    if (need_list) {
      auto listed = Relist();
      if (!listed.ok()) {
        SetError(listed.status());
        Log("list failed, retrying: " + listed.status().message());
        wait(backoff);
        continue;
      }
      if (synced_) relists_.fetch_add(1);
      {
        std::lock_guard<std::mutex> lock(mu_);  // a waiter checks synced_ under mu_
        synced_ = true;
      }
      cv_.notify_all();
      SetError(core::Status::Ok());
      need_list = false;
    }
    WatchOptions w;
    w.resource_version = last_resource_version();
    w.allow_bookmarks = true;
    w.timeout_seconds = 300 + static_cast<int>(rng() % 300);  // 5-10 min, as client-go
    w.label_selector = options_.label_selector;
    w.field_selector = options_.field_selector;
    uint64_t events_before = events_applied_.load();
    core::Status st = client_.Watch(
        resource_, options_.namespace_, w,
        [&](WatchEventKind kind, const api::JsonView& object) {
          std::vector<Pending> pending;
          if (kind == WatchEventKind::kError) return false;
          std::string rv = MetaString(object, "resourceVersion");
          if (kind == WatchEventKind::kBookmark) {
            std::lock_guard<std::mutex> lock(mu_);
            NoteVersionLocked(rv);
          } else if (kind == WatchEventKind::kDeleted) {
            std::lock_guard<std::mutex> lock(mu_);
            Key key{MetaString(object, "namespace"), MetaString(object, "name")};
            auto it = items_.find(key);
            // A late DELETED of an earlier incarnation must not remove one recreated since.
            std::string uid = MetaString(object, "uid");
            if (it != items_.end() && (uid.empty() || it->second->uid == uid))
              RemoveLocked(key, rv, &pending);
            NoteVersionLocked(rv);
          } else {
            CachedObjectPtr entry = Decode(object);
            std::lock_guard<std::mutex> lock(mu_);
            if (entry != nullptr) UpsertLocked(std::move(entry), &pending);
            NoteVersionLocked(rv);
          }
          events_applied_.fetch_add(1);
          cv_.notify_all();
          Announce(pending);
          return !stop_.load();
        },
        &stop_);
    if (stop_) break;
    if (st.ok()) {
      if (events_applied_.load() != events_before) backoff = kInitialBackoff;
      continue;  // the server ended the watch: resume from the last version
    }
    if (IsExpired(st)) {
      Log("watch from resourceVersion " + w.resource_version +
          " expired (410 Gone): listing again");
      need_list = true;
      continue;
    }
    SetError(st);
    Log("watch failed, retrying: " + st.message());
    wait(backoff);
  }
}

CachedObjectPtr Informer::Get(const std::string& ns, const std::string& name) const {
  std::lock_guard<std::mutex> lock(mu_);
  auto it = items_.find({ns, name});
  return it == items_.end() ? nullptr : it->second;
}

std::vector<CachedObjectPtr> Informer::List() const {
  std::lock_guard<std::mutex> lock(mu_);
  std::vector<CachedObjectPtr> out;
  out.reserve(items_.size());
  for (const auto& [key, entry] : items_) out.push_back(entry);
  return out;
}

void Informer::ForEach(const std::function<void(const CachedObject&)>& fn) const {
  for (const CachedObjectPtr& entry : List()) fn(*entry);
}

std::vector<CachedObjectPtr> Informer::ByIndex(const std::string& index,
                                               const std::string& value) const {
  std::lock_guard<std::mutex> lock(mu_);
  std::vector<CachedObjectPtr> out;
  auto idx = indexes_.find(index);
  if (idx == indexes_.end()) return out;
  auto bucket = idx->second.find(value);
  if (bucket == idx->second.end()) return out;
  for (const Key& key : bucket->second) {
    auto it = items_.find(key);
    if (it != items_.end()) out.push_back(it->second);
  }
  return out;
}

size_t Informer::size() const {
  std::lock_guard<std::mutex> lock(mu_);
  return items_.size();
}

}  // namespace nodesmith::kube
