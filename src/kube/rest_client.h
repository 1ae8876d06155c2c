// RestClient: the Kubernetes REST API over one HttpTransport, as JSON documents.
//
// Every request is rate-limited client-side by a TokenBucket (KUBE_CLIENT_QPS / _BURST; watches
// count once, when they are opened). Reads (get, list, watch set-up) are retried on 429, 5xx and
// transport failures with exponential backoff and full jitter (5 tries); writes are retried only
// when the server certainly did not apply them (429 and 503 answers, refused connections).
// Errors come back as core::Status made by kube/api_error.h. Documents are
// nlohmann::ordered_json so fields keep the server's order and nothing is dropped.
// Thread-safe.
#pragma once

#include <atomic>
#include <functional>
#include <memory>
#include <optional>
#include <string>
#include <vector>

#include <nlohmann/json.hpp>

#include "api/json_view.h"
#include "core/status.h"
#include "kube/api_error.h"
#include "kube/credentials.h"
#include "kube/http_transport.h"
#include "kube/resources.h"
#include "kube/rest_config.h"
#include "kube/token_bucket.h"

namespace nodesmith::kube {

using Json = nlohmann::ordered_json;

struct ListOptions {
  std::string label_selector;
  std::string field_selector;
  int limit = 500;                  // page size; 0: one page with everything
  std::string resource_version;     // "" : a consistent read; "0": any (the watch cache)
};

struct ListResult {
  std::vector<Json> items;          // every page's items, in the server's order
  std::string resource_version;     // of the list: where a watch continues
};

// One page of a list read into a JsonParser (RestClient::ListPageIn): views into the parser's
// document, valid until its next Parse. As a list's items do, they carry no apiVersion or kind.
struct ListPageView {
  std::vector<api::JsonView> items;
  std::string resource_version;     // of the list
  std::string next;                 // the next page's continue token; "" at the end
};

enum class WatchEventKind { kAdded, kModified, kDeleted, kBookmark, kError };

struct WatchOptions {
  std::string resource_version;     // start after this version
  bool allow_bookmarks = true;
  int timeout_seconds = 300;        // the server ends the watch after this long
  std::string label_selector;
  std::string field_selector;
};

enum class PatchType { kMerge, kJson, kStrategicMerge };

struct DeleteOptions {
  std::string uid;                  // precondition: delete only this incarnation
  std::string resource_version;     // precondition
  std::string propagation_policy;   // Foreground | Background | Orphan; "" server default
  std::optional<int64_t> grace_period_seconds;
};

class RestClient {
 public:
  // Builds the credential provider and the transport for `config`.
  explicit RestClient(const RestConfig& config);
  ~RestClient();

  core::Result<Json> Get(const ResourceType& r, const std::string& ns, const std::string& name,
                         const std::string& subresource = "");
  // GET of a path that is not a resource ("/version").
  core::Result<Json> GetPath(const std::string& path);
  // One page; `continue_token` "" for the first. `next` gets the next page's token ("" at the end).
  core::Result<ListResult> ListPage(const ResourceType& r, const std::string& ns,
                                    const ListOptions& options, const std::string& continue_token,
                                    std::string* next);
  // One page parsed into `parser`, without building a document per value: the informers' path,
  // where the pages of a large cluster's list are most of what the client reads.
  core::Result<ListPageView> ListPageIn(api::JsonParser& parser, const ResourceType& r,
                                        const std::string& ns, const ListOptions& options,
                                        const std::string& continue_token);
  // Every page. A continue token that expires midway (410) restarts the list from scratch.
  core::Result<ListResult> List(const ResourceType& r, const std::string& ns,
                                const ListOptions& options = {});
  core::Result<Json> Create(const ResourceType& r, const std::string& ns, const Json& object);
  // PUT: the object's metadata.resourceVersion is the optimistic-concurrency precondition.
  core::Result<Json> Replace(const ResourceType& r, const std::string& ns, const std::string& name,
                             const Json& object, const std::string& subresource = "");
  core::Result<Json> Patch(const ResourceType& r, const std::string& ns, const std::string& name,
                           PatchType type, const Json& patch, const std::string& subresource = "");
  // The object as the server returned it (with deletionTimestamp while finalizers or a grace
  // period remain), or null when the answer was a bare Status. `pending`, when given, is set when
  // the server accepted the deletion without deleting yet (202 Accepted).
  core::Result<Json> Delete(const ResourceType& r, const std::string& ns, const std::string& name,
                            const DeleteOptions& options = {}, bool* pending = nullptr);
  // policy/v1 Eviction. A PodDisruptionBudget's refusal (429) is kUnavailable with its message.
  core::Status Evict(const std::string& ns, const std::string& pod,
                     const DeleteOptions& options = {});
  // The Binding subresource: assigns `pod` to `node`.
  core::Status Bind(const std::string& ns, const std::string& pod, const std::string& node);

  // Opens a watch and calls `on_event` for each event (the object, or for kError the Status; a
  // view valid during the call) until the server ends it, `on_event` returns false, or `cancel`
  // is set. Returns OK for those
  // ends; an expired resourceVersion (410, as an HTTP answer or an ERROR event) is a status for
  // which IsExpired() holds.
  core::Status Watch(const ResourceType& r, const std::string& ns, const WatchOptions& options,
                     const std::function<bool(WatchEventKind, const api::JsonView&)>& on_event,
                     const std::atomic<bool>* cancel);

  const RestConfig& config() const { return config_; }
  HttpTransport& transport() { return *transport_; }
  // Requests sent and the time spent waiting on the client-side limiter.
  uint64_t requests_sent() const { return transport_->requests_sent(); }
  double throttled_seconds() const { return throttled_ns_.load() / 1e9; }

 private:
  core::Result<Json> Send(HttpRequest request, const RequestContext& context, bool idempotent,
                          long* http_status = nullptr);
  // Send's retries and errors; the body of a 2xx answer as it came.
  core::Result<std::string> SendForBody(HttpRequest request, const RequestContext& context,
                                        bool idempotent, long* http_status = nullptr);
  void Throttle();

  RestConfig config_;
  std::unique_ptr<CredentialProvider> credentials_;
  std::unique_ptr<HttpTransport> transport_;
  TokenBucket limiter_;
  std::atomic<int64_t> throttled_ns_{0};
};

}  // namespace nodesmith::kube
