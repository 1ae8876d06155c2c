// HttpClient: one HTTP exchange with an AWS endpoint, and CurlHttpClient, its libcurl form.
//
// The AWS clients above it sign, retry and decode; this layer only moves bytes. A failure to get
// any HTTP answer is a Status naming the URL: kDeadlineExceeded when the endpoint did not answer
// in time (the request may have been carried out), kUnavailable otherwise (refused, DNS, TLS); every
// HTTP answer, 4xx and 5xx included, is a successful HttpResponse. An interface so tests can
// script answers (throttling, 5xx, a dropped connection) without a server.
// Thread-safe: CurlHttpClient keeps a pool of reusable handles under a mutex.
#pragma once

#include <map>
#include <memory>
#include <mutex>
#include <string>
#include <utility>
#include <vector>

#include "core/status.h"

namespace nodesmith::aws {

struct HttpRequest {
  std::string method = "GET";  // GET, PUT, POST, DELETE
  std::string url;             // scheme://host[:port]/path[?query], already encoded
  std::vector<std::pair<std::string, std::string>> headers;  // sent as given, in order
  std::string body;
  double timeout_seconds = 30;  // the whole exchange; 0: none
};

struct HttpResponse {
  long status = 0;
  std::map<std::string, std::string> headers;  // names lower-cased
  std::string body;
};

// Whether an answer-less failure is worth another try (connection refused, reset, timeout):
// the kUnavailable Status a client returns carries this prefix in its message.
inline constexpr const char* kConnectionErrorPrefix = "connection error: ";

class HttpClient {
 public:
  virtual ~HttpClient() = default;
  virtual core::Result<HttpResponse> Send(const HttpRequest& request) = 0;
};

class CurlHttpClient : public HttpClient {
 public:
  CurlHttpClient();
  ~CurlHttpClient() override;
  core::Result<HttpResponse> Send(const HttpRequest& request) override;

 private:
  void* Acquire();
  void Release(void* handle);
  std::mutex mu_;
  std::vector<void*> pool_;  // CURL* handles, kept for connection reuse
};

}  // namespace nodesmith::aws
