#include "kube/rest_client.h"

#include <chrono>
#include <random>
#include <thread>

#include "kube/watch_decoder.h"

namespace nodesmith::kube {

namespace {

constexpr int kMaxTries = 5;

std::string PatchContentType(PatchType type) {
  switch (type) {
    case PatchType::kMerge: return "application/merge-patch+json";
    case PatchType::kJson: return "application/json-patch+json";
    case PatchType::kStrategicMerge: return "application/strategic-merge-patch+json";
  }
  return "application/merge-patch+json";
}

core::Status NotJson(const RequestContext& context, const std::string& path) {
  return core::Status::Internal("the API server's answer to " + context.verb + " " + path +
                                " is not JSON");
}

// Full jitter: a uniform wait in [0, min(cap, base * 2^attempt)).
std::chrono::milliseconds Backoff(int attempt) {
  static thread_local std::mt19937_64 rng(std::random_device{}());
  int64_t ceiling = std::min<int64_t>(8000, 200LL << std::min(attempt, 10));
  return std::chrono::milliseconds(std::uniform_int_distribution<int64_t>(ceiling / 4, ceiling)(rng));
}

// How long a 429/503 answer asks us to wait (Retry-After in seconds), capped.
std::chrono::milliseconds RetryAfter(const HttpResponse& response, int attempt) {
  auto it = response.headers.find("retry-after");
  if (it != response.headers.end()) {
    try {
      int s = std::stoi(it->second);
      if (s >= 0 && s <= 30) return std::chrono::seconds(s);
    } catch (...) {
    }
  }
  return Backoff(attempt);
}

std::string AddQuery(std::string path, const std::string& key, const std::string& value) {
  path += path.find('?') == std::string::npos ? '?' : '&';
  return path + key + "=" + QueryEscape(value);
}

}  // namespace

RestClient::RestClient(const RestConfig& config)
    : config_(config),
      credentials_(std::make_unique<CredentialProvider>(config)),
      transport_(std::make_unique<HttpTransport>(config_, credentials_.get())),
      limiter_(config.qps, config.burst) {}

RestClient::~RestClient() = default;

void RestClient::Throttle() {
  auto waited = limiter_.Acquire();
  if (waited.count() > 0)
    throttled_ns_.fetch_add(std::chrono::duration_cast<std::chrono::nanoseconds>(waited).count());
}

core::Result<Json> RestClient::Send(HttpRequest request, const RequestContext& context,
                                    bool idempotent, long* http_status) {
  const std::string path = request.path;
  auto body = SendForBody(std::move(request), context, idempotent, http_status);
  if (!body.ok()) return body.status();
  if (body->empty()) return Json();
  Json doc = Json::parse(*body, nullptr, false);
  if (doc.is_discarded()) return NotJson(context, path);
  return doc;
}

core::Result<std::string> RestClient::SendForBody(HttpRequest request,
                                                  const RequestContext& context, bool idempotent,
                                                  long* http_status) {
  for (int attempt = 0;; ++attempt) {
    Throttle();
    auto response = transport_->Do(request);
    bool last = attempt + 1 >= kMaxTries;
    if (!response.ok()) {
      // A refused connection never reached the server; anything else might have, for a write.
      bool refused = response.status().message().find("cannot reach") != std::string::npos;
      if (!last && (idempotent || refused) &&
          response.status().code() != core::StatusCode::kFailedPrecondition) {
        std::this_thread::sleep_for(Backoff(attempt));
        continue;
      }
      return response.status();
    }
    if (http_status != nullptr) *http_status = response->status;
    if (response->status >= 200 && response->status < 300) return std::move(response->body);
    bool retry_write = response->status == 429 || response->status == 503;
    if (!last && IsRetryable(*response, context) && (idempotent || retry_write)) {
      std::this_thread::sleep_for(RetryAfter(*response, attempt));
      continue;
    }
    return ApiErrorStatus(*response, context, config_);
  }
}

core::Result<Json> RestClient::Get(const ResourceType& r, const std::string& ns,
                                   const std::string& name, const std::string& subresource) {
  HttpRequest request;
  request.path = r.ObjectPath(ns, name, subresource);
  return Send(std::move(request), {"get", &r, ns, name, subresource}, true);
}

core::Result<Json> RestClient::GetPath(const std::string& path) {
  HttpRequest request;
  request.path = path;
  return Send(std::move(request), {"get", nullptr, "", path, ""}, true);
}

core::Result<ListPageView> RestClient::ListPageIn(api::JsonParser& parser, const ResourceType& r,
                                                  const std::string& ns, const ListOptions& options,
                                                  const std::string& continue_token) {
  std::string path = r.CollectionPath(ns);
  if (options.limit > 0) path = AddQuery(path, "limit", std::to_string(options.limit));
  if (!continue_token.empty()) path = AddQuery(path, "continue", continue_token);
  else if (!options.resource_version.empty())
    path = AddQuery(path, "resourceVersion", options.resource_version);
  if (!options.label_selector.empty()) path = AddQuery(path, "labelSelector", options.label_selector);
  if (!options.field_selector.empty()) path = AddQuery(path, "fieldSelector", options.field_selector);
  HttpRequest request;
  request.path = path;
  const RequestContext context{"list", &r, ns, "", ""};
  auto body = SendForBody(std::move(request), context, true);
  if (!body.ok()) return body.status();
  auto list = parser.Parse(*body);
  if (!list.ok()) return NotJson(context, path);
  if (!list->is_object())
    return core::Status::Internal("list " + r.QualifiedResource() + ": the answer is not an object");
  ListPageView page;
  page.items.reserve(list->Find("items").size());
  list->Find("items").ForEachElement(
      [&](size_t, const api::JsonView& item) { page.items.push_back(item); });
  const api::JsonView meta = list->Find("metadata");
  if (api::JsonView rv = meta.Find("resourceVersion"); rv.is_string())
    page.resource_version = rv.GetString();
  if (api::JsonView next = meta.Find("continue"); next.is_string()) page.next = next.GetString();
  return page;
}

core::Result<ListResult> RestClient::ListPage(const ResourceType& r, const std::string& ns,
                                              const ListOptions& options,
                                              const std::string& continue_token,
                                              std::string* next) {
  api::JsonParser parser;
  auto page = ListPageIn(parser, r, ns, options, continue_token);
  if (!page.ok()) return page.status();
  ListResult result;
  result.items.reserve(page->items.size());
  const std::string kind(r.kind);
  for (const api::JsonView& view : page->items) {
    Json item = view.ToJson();
    // Items of a list carry no kind or apiVersion; put them back so each is a whole document.
    if (!item.contains("apiVersion")) item["apiVersion"] = r.ApiVersion();
    if (!item.contains("kind")) item["kind"] = kind;
    result.items.push_back(std::move(item));
  }
  result.resource_version = std::move(page->resource_version);
  *next = std::move(page->next);
  return result;
}

core::Result<ListResult> RestClient::List(const ResourceType& r, const std::string& ns,
                                          const ListOptions& options) {
  for (int restart = 0;; ++restart) {
    ListResult all;
    std::string token, next;
    bool expired = false;
    do {
      auto page = ListPage(r, ns, options, token, &next);
      if (!page.ok()) {
        if (IsExpired(page.status()) && restart < 3) {
          expired = true;
          break;
        }
        return page.status();
      }
      if (all.items.empty()) {
        all.items = std::move(page->items);
      } else {
        for (auto& item : page->items) all.items.push_back(std::move(item));
      }
      all.resource_version = page->resource_version;
      token = next;
    } while (!token.empty());
    if (!expired) return all;
  }
}

core::Result<Json> RestClient::Create(const ResourceType& r, const std::string& ns,
                                      const Json& object) {
  HttpRequest request;
  request.method = "POST";
  request.path = r.CollectionPath(ns);
  request.body = object.dump();
  std::string name;
  if (object.contains("metadata") && object["metadata"].is_object())
    name = object["metadata"].value("name", "");
  return Send(std::move(request), {"create", &r, ns, name, ""}, false);
}

core::Result<Json> RestClient::Replace(const ResourceType& r, const std::string& ns,
                                       const std::string& name, const Json& object,
                                       const std::string& subresource) {
  HttpRequest request;
  request.method = "PUT";
  request.path = r.ObjectPath(ns, name, subresource);
  request.body = object.dump();
  // A PUT carries its resourceVersion: repeating it after an unknown outcome is safe.
  return Send(std::move(request), {"update", &r, ns, name, subresource}, true);
}

core::Result<Json> RestClient::Patch(const ResourceType& r, const std::string& ns,
                                     const std::string& name, PatchType type, const Json& patch,
                                     const std::string& subresource) {
  HttpRequest request;
  request.method = "PATCH";
  request.path = r.ObjectPath(ns, name, subresource);
  request.body = patch.dump();
  request.content_type = PatchContentType(type);
  return Send(std::move(request), {"patch", &r, ns, name, subresource}, false);
}

namespace {
Json DeleteOptionsBody(const DeleteOptions& options) {
  Json body = {{"apiVersion", "v1"}, {"kind", "DeleteOptions"}};
  if (!options.uid.empty() || !options.resource_version.empty()) {
    Json pre = Json::object();
    if (!options.uid.empty()) pre["uid"] = options.uid;
    if (!options.resource_version.empty()) pre["resourceVersion"] = options.resource_version;
    body["preconditions"] = pre;
  }
  if (!options.propagation_policy.empty()) body["propagationPolicy"] = options.propagation_policy;
  if (options.grace_period_seconds) body["gracePeriodSeconds"] = *options.grace_period_seconds;
  return body;
}
}  // namespace

core::Result<Json> RestClient::Delete(const ResourceType& r, const std::string& ns,
                                      const std::string& name, const DeleteOptions& options,
                                      bool* pending) {
  HttpRequest request;
  request.method = "DELETE";
  request.path = r.ObjectPath(ns, name);
  request.body = DeleteOptionsBody(options).dump();
  // With a uid precondition a repeated delete cannot remove a newer object of the same name.
  long status = 0;
  auto doc = Send(std::move(request), {"delete", &r, ns, name, ""}, !options.uid.empty(), &status);
  if (!doc.ok()) return doc.status();
  if (pending != nullptr) *pending = status == 202;
  if (doc->is_object() && doc->value("kind", "") == "Status") return Json();
  return doc;
}

core::Status RestClient::Evict(const std::string& ns, const std::string& pod,
                               const DeleteOptions& options) {
  Json eviction = {{"apiVersion", "policy/v1"},
                   {"kind", "Eviction"},
                   {"metadata", {{"name", pod}, {"namespace", ns}}}};
  Json delete_options = DeleteOptionsBody(options);
  if (delete_options.size() > 2) eviction["deleteOptions"] = delete_options;
  HttpRequest request;
  request.method = "POST";
  request.path = resources::kPods.ObjectPath(ns, pod, "eviction");
  request.body = eviction.dump();
  auto r = Send(std::move(request), {"create", &resources::kPods, ns, pod, "eviction"}, false);
  return r.ok() ? core::Status::Ok() : r.status();
}

core::Status RestClient::Bind(const std::string& ns, const std::string& pod,
                              const std::string& node) {
  Json binding = {{"apiVersion", "v1"},
                  {"kind", "Binding"},
                  {"metadata", {{"name", pod}, {"namespace", ns}}},
                  {"target", {{"apiVersion", "v1"}, {"kind", "Node"}, {"name", node}}}};
  HttpRequest request;
  request.method = "POST";
  request.path = resources::kPods.ObjectPath(ns, pod, "binding");
  request.body = binding.dump();
  auto r = Send(std::move(request), {"create", &resources::kPods, ns, pod, "binding"}, false);
  return r.ok() ? core::Status::Ok() : r.status();
}

core::Status RestClient::Watch(const ResourceType& r, const std::string& ns,
                               const WatchOptions& options,
                               const std::function<bool(WatchEventKind, const api::JsonView&)>& on_event,
                               const std::atomic<bool>* cancel) {
  std::string path = AddQuery(r.CollectionPath(ns), "watch", "true");
  if (!options.resource_version.empty())
    path = AddQuery(path, "resourceVersion", options.resource_version);
  if (options.allow_bookmarks) path = AddQuery(path, "allowWatchBookmarks", "true");
  if (options.timeout_seconds > 0)
    path = AddQuery(path, "timeoutSeconds", std::to_string(options.timeout_seconds));
  if (!options.label_selector.empty()) path = AddQuery(path, "labelSelector", options.label_selector);
  if (!options.field_selector.empty()) path = AddQuery(path, "fieldSelector", options.field_selector);
  RequestContext context{"watch", &r, ns, "", ""};
  core::Status event_error;
  WatchDecoder decoder([&](std::string_view type, const api::JsonView& object) {
    WatchEventKind kind;
    if (type == "ADDED") kind = WatchEventKind::kAdded;
    else if (type == "MODIFIED") kind = WatchEventKind::kModified;
    else if (type == "DELETED") kind = WatchEventKind::kDeleted;
    else if (type == "BOOKMARK") kind = WatchEventKind::kBookmark;
    else {
      // An ERROR event carries a Status: 410 when the version is too old.
      HttpResponse as_response;
      const api::JsonView code = object.Find("code");
      as_response.status = code.type() == api::JsonView::Type::kInt ? code.GetInt64() : 500;
      as_response.body = object.Dump();
      event_error = ApiErrorStatus(as_response, context, config_);
      on_event(WatchEventKind::kError, object);
      return false;
    }
    return on_event(kind, object);
  });
  HttpRequest request;
  request.path = path;
  request.timeout_seconds = 0;
  Throttle();
  auto response = transport_->Stream(
      request, [&](std::string_view chunk) { return decoder.Feed(chunk); }, cancel);
  if (!response.ok()) return response.status();
  if (response->status < 200 || response->status >= 300)
    return ApiErrorStatus(*response, context, config_);
  if (!event_error.ok()) return event_error;
  if (!decoder.error().ok()) return decoder.error();
  return core::Status::Ok();
}

}  // namespace nodesmith::kube
