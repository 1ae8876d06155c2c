#include "kube/event_recorder.h"

#include <algorithm>
#include <cstdio>
#include <initializer_list>
#include <list>
#include <random>
#include <set>
#include <string_view>
#include <unordered_map>
#include <utility>

#include "kube/resources.h"

namespace nodesmith::kube {
namespace {

class RestEventSink : public EventSink {
 public:
  explicit RestEventSink(RestClient& client) : client_(client) {}
  core::Result<Json> Create(const std::string& ns, const Json& event) override {
    return client_.Create(resources::kEvents, ns, event);
  }
  core::Result<Json> Patch(const std::string& ns, const std::string& name,
                           const Json& patch) override {
    return client_.Patch(resources::kEvents, ns, name, PatchType::kMerge, patch);
  }

 private:
  RestClient& client_;
};

// A map that forgets its least recently used entry beyond `capacity` (groupcache/lru).
template <typename V>
class Lru {
 public:
  explicit Lru(size_t capacity) : capacity_(std::max<size_t>(capacity, 1)) {}
  V* Get(const std::string& key) {
    auto it = index_.find(key);
    if (it == index_.end()) return nullptr;
    order_.splice(order_.begin(), order_, it->second);
    return &it->second->second;
  }
  void Put(const std::string& key, V value) {
    if (V* v = Get(key)) {
      *v = std::move(value);
      return;
    }
    order_.emplace_front(key, std::move(value));
    index_[key] = order_.begin();
    if (order_.size() > capacity_) {
      index_.erase(order_.back().first);
      order_.pop_back();
    }
  }

 private:
  size_t capacity_;
  std::list<std::pair<std::string, V>> order_;
  std::unordered_map<std::string, typename std::list<std::pair<std::string, V>>::iterator> index_;
};

core::Time SystemNow() {
  return core::Time{std::chrono::duration_cast<std::chrono::nanoseconds>(
                        std::chrono::system_clock::now().time_since_epoch())
                        .count()};
}

// metav1.Time: RFC 3339 to the second.
std::string FormatTime(core::Time t) {
  int64_t secs = t.unix_nanos / 1000000000;
  if (t.unix_nanos < 0 && t.unix_nanos % 1000000000 != 0) --secs;
  return core::FormatRfc3339(core::Time{secs * 1000000000});
}

const char* TypeName(EventType type) { return type == EventType::kWarning ? "Warning" : "Normal"; }

std::string Str(const Json& doc, const char* key) {
  return doc.is_object() && doc.contains(key) && doc[key].is_string() ? doc[key].get<std::string>()
                                                                      : "";
}

// The separator keeps "ab"+"c" and "a"+"bc" apart (client-go joins with "", which can collide).
std::string Join(std::initializer_list<std::string_view> parts) {
  std::string out;
  for (std::string_view p : parts) {
    out.append(p);
    out.push_back('\x1f');
  }
  return out;
}

bool Retryable(const core::Status& s) {
  return s.code() == core::StatusCode::kUnavailable ||
         s.code() == core::StatusCode::kDeadlineExceeded;
}

}  // namespace

ObjectReference ReferenceTo(const Json& object) {
  ObjectReference ref;
  ref.api_version = Str(object, "apiVersion");
  ref.kind = Str(object, "kind");
  if (object.is_object() && object.contains("metadata")) {
    const Json& m = object["metadata"];
    ref.name = Str(m, "name");
    ref.namespace_ = Str(m, "namespace");
    ref.uid = Str(m, "uid");
    ref.resource_version = Str(m, "resourceVersion");
  }
  return ref;
}

std::unique_ptr<EventSink> NewRestEventSink(RestClient& client) {
  return std::make_unique<RestEventSink>(client);
}

// client-go's EventCorrelator state: the spam filter's buckets, the aggregator's groups of
// similar events, and the log of events written (for deduplication).
struct EventRecorder::Correlator {
  struct SpamRecord {
    double tokens = 0;
    core::Time last;
  };
  struct AggregateRecord {
    std::set<std::string> messages;
    core::Time last;
  };
  struct EventLog {
    int64_t count = 0;
    std::string first_timestamp;
    std::string name;
    std::string resource_version;
  };
  explicit Correlator(size_t size) : spam(size), aggregates(size), logs(size) {}
  Lru<SpamRecord> spam;
  Lru<AggregateRecord> aggregates;
  Lru<EventLog> logs;
};

EventRecorder::EventRecorder(RestClient& client, EventRecorderOptions options)
    : EventRecorder(NewRestEventSink(client), std::move(options)) {}

EventRecorder::EventRecorder(std::unique_ptr<EventSink> sink, EventRecorderOptions options)
    : sink_(std::move(sink)), options_(std::move(options)) {
  if (!options_.now) options_.now = SystemNow;
  options_.queue_capacity = std::max<size_t>(options_.queue_capacity, 1);
  options_.max_tries = std::max(options_.max_tries, 1);
  correlator_ = std::make_unique<Correlator>(options_.cache_size);
  thread_ = std::thread([this] { Loop(); });
}

EventRecorder::~EventRecorder() { Stop(); }

void EventRecorder::Log(const std::string& message) const {
  if (options_.log) options_.log(message);
}

void EventRecorder::Publish(Event event) {
  core::Time now = options_.now();
  {
    std::lock_guard<std::mutex> l(mu_);
    ++stats_.published;
    if (stopping_) {
      ++stats_.dropped;
      return;
    }
    if (queue_.size() >= options_.queue_capacity) {
      queue_.pop_front();
      ++stats_.dropped;
    }
    queue_.push_back(Pending{std::move(event), now, next_seq_++});
  }
  cv_.notify_all();
}

void EventRecorder::Publish(const ObjectReference& object, EventType type, std::string reason,
                            std::string message) {
  Publish(Event{object, type, std::move(reason), std::move(message)});
}

bool EventRecorder::Flush(std::chrono::milliseconds timeout) {
  std::unique_lock<std::mutex> l(mu_);
  const uint64_t target = next_seq_;
  return idle_cv_.wait_for(l, timeout, [&] { return done_seq_ >= target; });
}

void EventRecorder::Stop() {
  {
    std::lock_guard<std::mutex> l(mu_);
    stopping_ = true;
  }
  cv_.notify_all();
  if (thread_.joinable()) thread_.join();
  idle_cv_.notify_all();
}

EventRecorder::Stats EventRecorder::stats() const {
  std::lock_guard<std::mutex> l(mu_);
  return stats_;
}

void EventRecorder::Loop() {
  for (;;) {
    Pending p;
    {
      std::unique_lock<std::mutex> l(mu_);
      cv_.wait(l, [this] { return stopping_ || !queue_.empty(); });
      if (queue_.empty()) return;
      p = std::move(queue_.front());
      queue_.pop_front();
    }
    Process(p);
    {
      std::lock_guard<std::mutex> l(mu_);
      done_seq_ = p.seq + 1;
    }
    idle_cv_.notify_all();
  }
}

void EventRecorder::Process(const Pending& p) {
  const ObjectReference& ref = p.event.involved_object;
  const std::string type = TypeName(p.event.type);
  const std::string& component = options_.component;
  const std::string& host = options_.host;
  Correlator& c = *correlator_;

  // Spam filter: a token bucket per source + object.
  if (options_.spam_filter) {
    std::string key =
        Join({component, host, ref.kind, ref.namespace_, ref.name, ref.uid, ref.api_version});
    Correlator::SpamRecord* r = c.spam.Get(key);
    Correlator::SpamRecord fresh{static_cast<double>(options_.spam_burst), p.time};
    if (r == nullptr) r = &fresh;
    double refill = std::chrono::duration<double>(p.time - r->last).count() /
                    std::chrono::duration<double>(options_.spam_refill).count();
    Correlator::SpamRecord next{
        std::min<double>(options_.spam_burst, r->tokens + std::max(refill, 0.0)),
        std::max(p.time, r->last)};
    bool allowed = next.tokens >= 1.0;
    if (allowed) next.tokens -= 1.0;
    c.spam.Put(key, next);
    if (!allowed) {
      std::lock_guard<std::mutex> l(mu_);
      ++stats_.filtered;
      return;
    }
  }

  // The event as client-go's recorder makes it.
  auto name_for = [this, &ref](core::Time t) {
    int64_t nanos = std::max(t.unix_nanos, last_name_nanos_ + 1);
    last_name_nanos_ = nanos;
    char hex[24];
    std::snprintf(hex, sizeof hex, "%llx", static_cast<unsigned long long>(nanos));
    return ref.name + "." + hex;
  };
  const std::string ns = ref.namespace_.empty() ? "default" : ref.namespace_;
  const std::string timestamp = FormatTime(p.time);
  Json involved = {{"kind", ref.kind}};
  if (!ref.namespace_.empty()) involved["namespace"] = ref.namespace_;
  involved["name"] = ref.name;
  if (!ref.uid.empty()) involved["uid"] = ref.uid;
  involved["apiVersion"] = ref.api_version;
  if (!ref.resource_version.empty()) involved["resourceVersion"] = ref.resource_version;
  if (!ref.field_path.empty()) involved["fieldPath"] = ref.field_path;
  Json source = {{"component", component}};
  if (!host.empty()) source["host"] = host;
  std::string message = p.event.message;

  // Aggregation: many similar events (differing only in message) become one combined Event.
  std::string cache_key = Join({component, host, ref.kind, ref.namespace_, ref.name, ref.field_path,
                                ref.uid, ref.api_version, type, p.event.reason, message});
  {
    std::string aggregate_key = Join({component, host, ref.kind, ref.namespace_, ref.name, ref.uid,
                                      ref.api_version, type, p.event.reason});
    Correlator::AggregateRecord record;
    if (auto* found = c.aggregates.Get(aggregate_key)) record = *found;
    if (p.time - record.last > options_.aggregate_interval) record = {};
    record.messages.insert(message);
    record.last = p.time;
    bool combine = static_cast<int>(record.messages.size()) >= options_.aggregate_max_events;
    if (combine) record.messages.erase(record.messages.begin());  // keep the set bounded
    c.aggregates.Put(aggregate_key, std::move(record));
    if (combine) {
      message = "(combined from similar events): " + message;
      cache_key = aggregate_key;
    }
  }

  Json event = {{"apiVersion", "v1"},
                {"kind", "Event"},
                {"metadata", {{"name", name_for(p.time)}, {"namespace", ns}}},
                {"involvedObject", involved},
                {"reason", p.event.reason},
                {"message", message},
                {"source", source},
                {"firstTimestamp", timestamp},
                {"lastTimestamp", timestamp},
                {"count", 1},
                {"type", type},
                {"reportingComponent", component},
                {"reportingInstance", host}};

  // Deduplication: an Event already written gets its count raised instead.
  Json patch;
  Correlator::EventLog log_entry;
  if (auto* seen = c.logs.Get(cache_key); seen != nullptr && seen->count > 0) {
    event["metadata"]["name"] = seen->name;
    event["firstTimestamp"] = seen->first_timestamp;
    event["count"] = seen->count + 1;
    patch = {{"count", seen->count + 1}, {"lastTimestamp", timestamp}, {"message", message}};
  }
  log_entry.count = event["count"].get<int64_t>();
  log_entry.first_timestamp = event["firstTimestamp"].get<std::string>();
  log_entry.name = event["metadata"]["name"].get<std::string>();
  c.logs.Put(cache_key, log_entry);

  std::mt19937_64 rng(static_cast<uint64_t>(p.time.unix_nanos) ^ p.seq);
  for (int attempt = 1;; ++attempt) {
    bool last_try = attempt >= options_.max_tries;
    {
      std::lock_guard<std::mutex> l(mu_);
      if (stopping_) last_try = true;
    }
    if (Write(event, patch.is_null() ? nullptr : &patch, cache_key, last_try)) return;
    if (last_try) return;
    // client-go sleeps a random part of the interval before the first retry, whole ones after.
    core::Duration wait = options_.retry_interval;
    if (attempt == 1) {
      std::uniform_real_distribution<double> u(0.0, 1.0);
      wait = core::Duration(static_cast<int64_t>(static_cast<double>(wait.count()) * u(rng)));
    }
    std::unique_lock<std::mutex> l(mu_);
    cv_.wait_for(l, wait, [this] { return stopping_; });
  }
}

bool EventRecorder::Write(const Json& event, const Json* patch, const std::string& cache_key,
                          bool last_try) {
  const std::string ns = event["metadata"]["namespace"].get<std::string>();
  const std::string name = event["metadata"]["name"].get<std::string>();
  const std::string what = "event " + ns + "/" + name + " (" + event["reason"].get<std::string>() +
                           " on " + event["involvedObject"]["kind"].get<std::string>() + " " +
                           event["involvedObject"]["name"].get<std::string>() + ")";
  bool patched = false;
  core::Result<Json> written = core::Status::NotFound("");
  if (patch != nullptr) {
    written = sink_->Patch(ns, name, *patch);
    patched = written.ok();
  }
  // A new Event, or the old one is gone (the server's event TTL): write it whole.
  if (patch == nullptr || (!written.ok() && written.status().code() == core::StatusCode::kNotFound))
    written = sink_->Create(ns, event);
  if (written.ok()) {
    const Json& got = *written;
    Correlator::EventLog entry;
    entry.count = got.contains("count") && got["count"].is_number_integer()
                      ? got["count"].get<int64_t>()
                      : event["count"].get<int64_t>();
    entry.first_timestamp = Str(got, "firstTimestamp");
    if (entry.first_timestamp.empty()) entry.first_timestamp = Str(event, "firstTimestamp");
    entry.name = got.contains("metadata") ? Str(got["metadata"], "name") : name;
    if (entry.name.empty()) entry.name = name;
    entry.resource_version =
        got.contains("metadata") ? Str(got["metadata"], "resourceVersion") : "";
    correlator_->logs.Put(cache_key, entry);
    std::lock_guard<std::mutex> l(mu_);
    ++(patched ? stats_.patched : stats_.created);
    return true;
  }
  const core::Status& s = written.status();
  if (Retryable(s) && !last_try) {
    Log("unable to write " + what + ": " + s.message() + " (may retry after sleeping)");
    return false;
  }
  Log((Retryable(s) ? "unable to write " : "server rejected ") + what + ": " + s.message() +
      " (will not retry)");
  std::lock_guard<std::mutex> l(mu_);
  ++stats_.failed;
  return true;
}

}  // namespace nodesmith::kube
