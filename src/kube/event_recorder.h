// EventRecorder: core/v1 Events about Kubernetes objects, written as client-go's event recorder
// writes them, with Karpenter's source (component `karpenter`), so `kubectl describe` and
// `kubectl get events` show nodesmith's Events exactly where and how they show Karpenter's.
//
// Publish() stamps the event with the time and queues it; a thread of the recorder's own writes
// the queue in order. Before a write each event passes client-go's EventCorrelator rules:
//   - spam filter: a token bucket per source + involved object (burst 25, one more every
//     5 minutes); an event over budget is dropped and counted. It runs first, so a dropped
//     event leaves no trace in the caches below (client-go filters last, after counting it);
//   - aggregation: once events that differ only in message (same source, object, type,
//     reason) have come with 10 distinct messages, less than 10 minutes apart each, they become
//     one Event whose message is "(combined from similar events): <latest message>";
//   - deduplication: an event identical to one already written (same source, object, type,
//     reason, message) — while it is remembered, in an LRU of 4096 — is a merge PATCH of that
//     Event's count, lastTimestamp and message instead of a new Event. A 404 (the server's
//     event TTL removed it) writes it anew under the same name.
// New Events are named "<involvedObject.name>.<unix nanos in hex>" and live in the involved
// object's namespace, or in `default` for cluster-scoped objects (Nodes, NodeClaims, NodePools).
//
// Failures never reach the caller: a write the server refuses is logged and dropped; one that
// could not reach it (kUnavailable, kDeadlineExceeded) is retried, up to 12 tries 10 s apart as
// client-go does, while later events wait. The queue is bounded: when full, the oldest queued
// event is dropped and counted, so Publish() never blocks.
//
// Thread-safe: Publish(), Flush(), Stop() and stats() may be called from any thread.
#pragma once

#include <chrono>
#include <condition_variable>
#include <cstdint>
#include <deque>
#include <functional>
#include <memory>
#include <mutex>
#include <string>
#include <thread>

#include "core/status.h"
#include "core/time.h"
#include "kube/rest_client.h"

namespace nodesmith::kube {

// The object an Event is about (core/v1 ObjectReference).
struct ObjectReference {
  std::string api_version;  // "v1", "karpenter.sh/v1"
  std::string kind;         // "Pod", "Node", "NodeClaim"
  std::string name;
  std::string namespace_;  // "" for cluster-scoped objects
  std::string uid;
  std::string resource_version;  // optional
  std::string field_path;        // optional
};

// The reference to `object` as read from a server (apiVersion, kind, metadata name, namespace,
// uid, resourceVersion).
ObjectReference ReferenceTo(const Json& object);

enum class EventType { kNormal, kWarning };

struct Event {
  ObjectReference involved_object;
  EventType type = EventType::kNormal;
  std::string reason;  // UpperCamelCase: "Nominated", "DisruptionBlocked" (pkg/events/reason.go)
  std::string message;
};

// Where Events are written. The production sink is a RestClient's events resource; tests
// substitute fakes. Called from the recorder's thread only.
class EventSink {
 public:
  virtual ~EventSink() = default;
  virtual core::Result<Json> Create(const std::string& ns, const Json& event) = 0;
  // A JSON merge patch of the named Event.
  virtual core::Result<Json> Patch(const std::string& ns, const std::string& name,
                                   const Json& patch) = 0;
};

// Writes through `client` (not owned; must outlive the sink).
std::unique_ptr<EventSink> NewRestEventSink(RestClient& client);

struct EventRecorderOptions {
  std::string component = "karpenter";  // source.component and reportingComponent
  std::string host;                     // source.host and reportingInstance; Karpenter sets none

  size_t queue_capacity = 1000;  // events waiting to be written (client-go's broadcaster queue)
  size_t cache_size = 4096;      // entries in each of the dedup, aggregation and spam caches

  int aggregate_max_events = 10;  // distinct messages before similar events are combined
  core::Duration aggregate_interval = std::chrono::minutes(10);

  bool spam_filter = true;
  int spam_burst = 25;
  core::Duration spam_refill = std::chrono::minutes(5);  // one token per this long

  int max_tries = 12;  // for writes that could not reach the server
  core::Duration retry_interval = std::chrono::seconds(10);

  // The time Events are stamped with (and aggregation and the spam filter measure by); the
  // system clock when empty.
  std::function<core::Time()> now;
  // Where failed writes are reported; nowhere when empty.
  std::function<void(const std::string&)> log;
};

class EventRecorder {
 public:
  // Writes through `client` (not owned; must outlive the recorder).
  explicit EventRecorder(RestClient& client, EventRecorderOptions options = {});
  explicit EventRecorder(std::unique_ptr<EventSink> sink, EventRecorderOptions options = {});
  // Stop().
  ~EventRecorder();
  EventRecorder(const EventRecorder&) = delete;
  EventRecorder& operator=(const EventRecorder&) = delete;

  // Queues `event`, stamped now, and returns at once. After Stop(), drops it.
  void Publish(Event event);
  void Publish(const ObjectReference& object, EventType type, std::string reason,
               std::string message);

  // Waits until everything published before the call has been written (or given up), at most
  // `timeout`; false on timeout.
  bool Flush(std::chrono::milliseconds timeout = std::chrono::seconds(30));

  // Writes what is queued (one try each, no retries) and ends the thread. Idempotent.
  void Stop();

  struct Stats {
    uint64_t published = 0;
    uint64_t created = 0;   // new Event objects
    uint64_t patched = 0;   // count increments of an existing Event
    uint64_t dropped = 0;   // the queue was full
    uint64_t filtered = 0;  // over the spam filter's budget
    uint64_t failed = 0;    // refused by the server, or not written after every try
  };
  Stats stats() const;

 private:
  struct Pending {
    Event event;
    core::Time time;
    uint64_t seq;
  };
  struct Correlator;

  void Loop();
  void Process(const Pending& pending);
  // Writes `event` (create, or patch then create on a 404); false to retry later.
  bool Write(const Json& event, const Json* patch, const std::string& cache_key, bool last_try);
  void Log(const std::string& message) const;

  std::unique_ptr<EventSink> sink_;
  EventRecorderOptions options_;
  std::unique_ptr<Correlator> correlator_;  // writer thread only

  mutable std::mutex mu_;
  std::condition_variable cv_;       // new work, or stopping
  std::condition_variable idle_cv_;  // progress, for Flush()
  std::deque<Pending> queue_;        // guarded by mu_
  uint64_t next_seq_ = 0;            // guarded by mu_
  uint64_t done_seq_ = 0;            // guarded by mu_: every event with seq < this is handled
  bool stopping_ = false;            // guarded by mu_
  int64_t last_name_nanos_ = 0;      // writer thread only: names stay unique
  Stats stats_;                      // guarded by mu_
  std::thread thread_;
};

}  // namespace nodesmith::kube
