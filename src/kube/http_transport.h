// HttpTransport: HTTPS requests to one API server, over libcurl with OpenSSL.
//
// It owns the TLS set-up of a RestConfig (the CA bundle, client certificates, verification off
// only when the config says so) and authenticates every request with what the
// CredentialProvider gives at that moment (a rotated token file or a refreshed exec credential
// is picked up without a restart). Connections are kept alive and reused: finished curl handles
// go back to a pool. A failure to get an HTTP answer at all (refused, TLS, timeout) is a Status
// whose message names the server and says what to check; any HTTP answer, 4xx and 5xx included,
// is a successful HttpResponse for the caller to interpret (kube/api_error.h).
// Thread-safe: any number of threads may call Do and Stream at once.
#pragma once

#include <atomic>
#include <functional>
#include <map>
#include <memory>
#include <mutex>
#include <string>
#include <string_view>
#include <vector>

#include "core/status.h"
#include "kube/credentials.h"
#include "kube/rest_config.h"

namespace nodesmith::kube {

struct HttpRequest {
  std::string method = "GET";       // GET, POST, PUT, PATCH, DELETE
  std::string path;                 // path and query, e.g. "/api/v1/pods?limit=500"
  std::string body;
  std::string content_type;         // of the body; "application/json" when a body is given
  std::string accept = "application/json";
  double timeout_seconds = -1;      // < 0: the config's timeout; 0: none (watches)
};

struct HttpResponse {
  long status = 0;
  std::string body;
  std::map<std::string, std::string> headers;  // names lower-cased
};

class HttpTransport {
 public:
  // REQUIRES: `credentials` outlives the transport.
  HttpTransport(const RestConfig& config, CredentialProvider* credentials);
  ~HttpTransport();
  HttpTransport(const HttpTransport&) = delete;
  HttpTransport& operator=(const HttpTransport&) = delete;

  // One request and its whole answer. After a 401 the credentials are invalidated and the
  // request is sent once more with fresh ones (a rotated token, a new exec credential).
  core::Result<HttpResponse> Do(const HttpRequest& request);

  // A long-lived request whose body arrives in chunks (a watch): `on_data` is called for each
  // chunk as it arrives and returns false to stop. `cancel`, when set by another thread, ends the
  // stream within about a second. The returned response has the status and headers, and the
  // body only when the status is not 2xx (an error answer is read whole).
  core::Result<HttpResponse> Stream(const HttpRequest& request,
                                    const std::function<bool(std::string_view)>& on_data,
                                    const std::atomic<bool>* cancel);

  const RestConfig& config() const { return config_; }
  // Requests sent (every try), for benchmarks and tests.
  uint64_t requests_sent() const { return requests_sent_.load(); }

 private:
  struct Handle;
  std::unique_ptr<Handle> Acquire();
  void Release(std::unique_ptr<Handle> handle);
  core::Result<HttpResponse> Perform(Handle& h, const HttpRequest& request,
                                     const std::function<bool(std::string_view)>* on_data,
                                     const std::atomic<bool>* cancel);

  RestConfig config_;
  CredentialProvider* credentials_;
  std::string user_agent_;
  std::mutex pool_mu_;
  std::vector<std::unique_ptr<Handle>> pool_;
  std::atomic<uint64_t> requests_sent_{0};
};

}  // namespace nodesmith::kube
