#include "kube/http_transport.h"

#include <curl/curl.h>

#include <mutex>

#include "core/http_header.h"
#include "core/version.h"

namespace nodesmith::kube {

namespace {

void GlobalInit() {
  static std::once_flag once;
  std::call_once(once, [] { curl_global_init(CURL_GLOBAL_DEFAULT); });
}

struct Transfer {
  HttpResponse* response;
  CURL* curl;
  const std::function<bool(std::string_view)>* on_data;
  const std::atomic<bool>* cancel;
  bool stopped_by_reader = false;
};

size_t OnHeader(char* data, size_t size, size_t n, void* user) {
  auto* t = static_cast<Transfer*>(user);
  std::string_view line(data, size * n);
  if (core::IsHttpStatusLine(line)) t->response->headers.clear();  // a new answer
  core::HttpHeaderField field;
  if (core::ParseHttpHeaderLine(line, &field)) t->response->headers[field.name] = std::move(field.value);
  return size * n;
}

size_t OnBody(char* data, size_t size, size_t n, void* user) {
  auto* t = static_cast<Transfer*>(user);
  size_t len = size * n;
  if (t->on_data != nullptr) {
    long status = 0;
    curl_easy_getinfo(t->curl, CURLINFO_RESPONSE_CODE, &status);
    if (status >= 200 && status < 300) {
      if (!(*t->on_data)(std::string_view(data, len))) {
        t->stopped_by_reader = true;
        return 0;  // ends the transfer (CURLE_WRITE_ERROR), which we treat as a clean stop
      }
      return len;
    }
  }
  t->response->body.append(data, len);
  return len;
}

int OnProgress(void* user, curl_off_t, curl_off_t, curl_off_t, curl_off_t) {
  auto* t = static_cast<Transfer*>(user);
  return (t->cancel != nullptr && t->cancel->load()) ? 1 : 0;
}

// What a person should check when no HTTP answer came back.
core::Status TransportError(CURLcode code, const char* detail, const RestConfig& config) {
  std::string what = detail != nullptr && detail[0] != '\0' ? detail : curl_easy_strerror(code);
  const std::string& server = config.server;
  switch (code) {
    case CURLE_COULDNT_CONNECT:
    case CURLE_COULDNT_RESOLVE_HOST:
    case CURLE_COULDNT_RESOLVE_PROXY:
      return core::Status::Unavailable("cannot reach the Kubernetes API server at " + server +
                                       " (" + what +
                                       "): is the cluster running, and is this the right "
                                       "kubeconfig context?");
    case CURLE_PEER_FAILED_VERIFICATION:
    case CURLE_SSL_CACERT_BADFILE:
      return core::Status(core::StatusCode::kFailedPrecondition,
                          "the TLS certificate of the API server at " + server +
                              " is not trusted by the certificate authority " +
                              (config.ca_source.empty() ? std::string("of the system")
                                                        : config.ca_source) +
                              " (" + what + "): check certificate-authority in the kubeconfig");
    case CURLE_SSL_CERTPROBLEM:
    case CURLE_SSL_CIPHER:
      return core::Status(core::StatusCode::kFailedPrecondition,
                          "the client certificate or key for " + server + " (" + config.identity +
                              ") cannot be used: " + what);
    case CURLE_OPERATION_TIMEDOUT:
      return core::Status(core::StatusCode::kDeadlineExceeded,
                          "the Kubernetes API server at " + server + " did not answer in time (" +
                              what + ")");
    default:
      return core::Status::Unavailable("request to the Kubernetes API server at " + server +
                                       " failed: " + what);
  }
}

void SetBlob(CURL* curl, CURLoption option, const std::string& pem) {
  curl_blob blob{const_cast<char*>(pem.data()), pem.size(), CURL_BLOB_COPY};
  curl_easy_setopt(curl, option, &blob);
}

}  // namespace

struct HttpTransport::Handle {
  CURL* curl = nullptr;
  Handle() : curl(curl_easy_init()) {}
  ~Handle() {
    if (curl != nullptr) curl_easy_cleanup(curl);
  }
};

HttpTransport::HttpTransport(const RestConfig& config, CredentialProvider* credentials)
    : config_(config), credentials_(credentials) {
  GlobalInit();
  user_agent_ = config_.user_agent.empty() ? std::string("nodesmith/") + core::kVersion
                                           : config_.user_agent;
}

HttpTransport::~HttpTransport() = default;

std::unique_ptr<HttpTransport::Handle> HttpTransport::Acquire() {
  {
    std::lock_guard<std::mutex> lock(pool_mu_);
    if (!pool_.empty()) {
      auto h = std::move(pool_.back());
      pool_.pop_back();
      return h;
    }
  }
  return std::make_unique<Handle>();
}

void HttpTransport::Release(std::unique_ptr<Handle> handle) {
  std::lock_guard<std::mutex> lock(pool_mu_);
  if (pool_.size() < 32) pool_.push_back(std::move(handle));
}

core::Result<HttpResponse> HttpTransport::Perform(
    Handle& h, const HttpRequest& request, const std::function<bool(std::string_view)>* on_data,
    const std::atomic<bool>* cancel) {
  Credentials creds;
  if (credentials_ != nullptr) {
    auto current = credentials_->Current();
    if (!current.ok()) return current.status();
    creds = std::move(current).value();
  }
  CURL* curl = h.curl;
  curl_easy_reset(curl);
  std::string url = config_.server + request.path;
  curl_easy_setopt(curl, CURLOPT_URL, url.c_str());
  curl_easy_setopt(curl, CURLOPT_USERAGENT, user_agent_.c_str());
  curl_easy_setopt(curl, CURLOPT_NOSIGNAL, 1L);
  curl_easy_setopt(curl, CURLOPT_TCP_KEEPALIVE, 1L);
  curl_easy_setopt(curl, CURLOPT_CONNECTTIMEOUT_MS, 10000L);
  curl_easy_setopt(curl, CURLOPT_ACCEPT_ENCODING, "");  // gzip if the server offers it
  double timeout = request.timeout_seconds < 0 ? config_.timeout_seconds : request.timeout_seconds;
  if (timeout > 0) curl_easy_setopt(curl, CURLOPT_TIMEOUT_MS, static_cast<long>(timeout * 1000));

  // TLS.
  if (config_.insecure_skip_tls_verify) {
    curl_easy_setopt(curl, CURLOPT_SSL_VERIFYPEER, 0L);
    curl_easy_setopt(curl, CURLOPT_SSL_VERIFYHOST, 0L);
  } else if (!config_.ca_pem.empty()) {
    SetBlob(curl, CURLOPT_CAINFO_BLOB, config_.ca_pem);
  }
  const std::string& cert = !creds.client_cert_pem.empty() ? creds.client_cert_pem
                                                           : config_.client_cert_pem;
  const std::string& key = !creds.client_key_pem.empty() ? creds.client_key_pem
                                                         : config_.client_key_pem;
  if (!cert.empty() && !key.empty()) {
    SetBlob(curl, CURLOPT_SSLCERT_BLOB, cert);
    curl_easy_setopt(curl, CURLOPT_SSLCERTTYPE, "PEM");
    SetBlob(curl, CURLOPT_SSLKEY_BLOB, key);
    curl_easy_setopt(curl, CURLOPT_SSLKEYTYPE, "PEM");
  }
  std::string connect_to;
  curl_slist* connect_list = nullptr;
  if (!config_.tls_server_name.empty()) {
    // Checked name and SNI come from the URL's host: send to the real host under the given name.
    std::string host_port = config_.server.substr(config_.server.find("://") + 3);
    size_t colon = host_port.rfind(':');
    std::string host = colon == std::string::npos ? host_port : host_port.substr(0, colon);
    std::string port = colon == std::string::npos ? "443" : host_port.substr(colon + 1);
    url = "https://" + config_.tls_server_name + ":" + port + request.path;
    curl_easy_setopt(curl, CURLOPT_URL, url.c_str());
    connect_to = config_.tls_server_name + ":" + port + ":" + host + ":" + port;
    connect_list = curl_slist_append(nullptr, connect_to.c_str());
    curl_easy_setopt(curl, CURLOPT_CONNECT_TO, connect_list);
  }

  // Method, headers and body.
  curl_slist* headers = nullptr;
  headers = curl_slist_append(headers, ("Accept: " + request.accept).c_str());
  if (!creds.bearer_token.empty())
    headers = curl_slist_append(headers, ("Authorization: Bearer " + creds.bearer_token).c_str());
  if (!request.body.empty() || request.method == "POST" || request.method == "PUT" ||
      request.method == "PATCH") {
    std::string ct = request.content_type.empty() ? "application/json" : request.content_type;
    headers = curl_slist_append(headers, ("Content-Type: " + ct).c_str());
    curl_easy_setopt(curl, CURLOPT_POSTFIELDS, request.body.data());
    curl_easy_setopt(curl, CURLOPT_POSTFIELDSIZE_LARGE, static_cast<curl_off_t>(request.body.size()));
  }
  headers = curl_slist_append(headers, "Expect:");  // no 100-continue round trip
  curl_easy_setopt(curl, CURLOPT_HTTPHEADER, headers);
  if (request.method != "GET" && request.method != "POST")
    curl_easy_setopt(curl, CURLOPT_CUSTOMREQUEST, request.method.c_str());

  HttpResponse response;
  Transfer transfer{&response, curl, on_data, cancel};
  curl_easy_setopt(curl, CURLOPT_HEADERFUNCTION, OnHeader);
  curl_easy_setopt(curl, CURLOPT_HEADERDATA, &transfer);
  curl_easy_setopt(curl, CURLOPT_WRITEFUNCTION, OnBody);
  curl_easy_setopt(curl, CURLOPT_WRITEDATA, &transfer);
  if (cancel != nullptr) {
    curl_easy_setopt(curl, CURLOPT_NOPROGRESS, 0L);
    curl_easy_setopt(curl, CURLOPT_XFERINFOFUNCTION, OnProgress);
    curl_easy_setopt(curl, CURLOPT_XFERINFODATA, &transfer);
  }
  char error[CURL_ERROR_SIZE] = {0};
  curl_easy_setopt(curl, CURLOPT_ERRORBUFFER, error);

  requests_sent_.fetch_add(1);
  CURLcode code = curl_easy_perform(curl);
  curl_easy_getinfo(curl, CURLINFO_RESPONSE_CODE, &response.status);
  curl_slist_free_all(headers);
  if (connect_list != nullptr) curl_slist_free_all(connect_list);
  curl_easy_setopt(curl, CURLOPT_ERRORBUFFER, nullptr);
  if (code == CURLE_OK) return response;
  if (transfer.stopped_by_reader) return response;
  if (code == CURLE_ABORTED_BY_CALLBACK && cancel != nullptr && cancel->load()) return response;
  // A stream the server ended in the middle of a chunk is an ordinary end of a watch.
  if (on_data != nullptr && response.status >= 200 && response.status < 300 &&
      (code == CURLE_PARTIAL_FILE || code == CURLE_RECV_ERROR || code == CURLE_HTTP2_STREAM ||
       code == CURLE_OPERATION_TIMEDOUT)) {
    return response;
  }
  return TransportError(code, error, config_);
}

core::Result<HttpResponse> HttpTransport::Do(const HttpRequest& request) {
  auto h = Acquire();
  auto r = Perform(*h, request, nullptr, nullptr);
  if (r.ok() && r->status == 401 && credentials_ != nullptr) {
    credentials_->Invalidate();
    r = Perform(*h, request, nullptr, nullptr);
  }
  Release(std::move(h));
  return r;
}

core::Result<HttpResponse> HttpTransport::Stream(
    const HttpRequest& request, const std::function<bool(std::string_view)>& on_data,
    const std::atomic<bool>* cancel) {
  auto h = Acquire();
  auto r = Perform(*h, request, &on_data, cancel);
  if (r.ok() && r->status == 401 && credentials_ != nullptr) {
    credentials_->Invalidate();
    r = Perform(*h, request, &on_data, cancel);
  }
  Release(std::move(h));
  return r;
}

}  // namespace nodesmith::kube
