#include "cloud/aws/http_client.h"

#include <curl/curl.h>


#include "core/http_header.h"
#include "core/version.h"

namespace nodesmith::aws {

namespace {

void GlobalInit() {
  static std::once_flag once;
  std::call_once(once, [] { curl_global_init(CURL_GLOBAL_DEFAULT); });
}

size_t OnHeader(char* data, size_t size, size_t n, void* user) {
  auto* response = static_cast<HttpResponse*>(user);
  std::string_view line(data, size * n);
  if (core::IsHttpStatusLine(line)) response->headers.clear();  // a new answer (after 100 Continue)
  core::HttpHeaderField field;
  if (core::ParseHttpHeaderLine(line, &field)) response->headers[field.name] = std::move(field.value);
  return size * n;
}

size_t OnBody(char* data, size_t size, size_t n, void* user) {
  static_cast<HttpResponse*>(user)->body.append(data, size * n);
  return size * n;
}

}  // namespace

CurlHttpClient::CurlHttpClient() { GlobalInit(); }

CurlHttpClient::~CurlHttpClient() {
  for (void* h : pool_) curl_easy_cleanup(static_cast<CURL*>(h));
}

void* CurlHttpClient::Acquire() {
  {
    std::lock_guard<std::mutex> lock(mu_);
    if (!pool_.empty()) {
      void* h = pool_.back();
      pool_.pop_back();
      return h;
    }
  }
  return curl_easy_init();
}

void CurlHttpClient::Release(void* handle) {
  std::lock_guard<std::mutex> lock(mu_);
  if (pool_.size() < 16) {
    pool_.push_back(handle);
  } else {
    curl_easy_cleanup(static_cast<CURL*>(handle));
  }
}

core::Result<HttpResponse> CurlHttpClient::Send(const HttpRequest& request) {
  CURL* curl = static_cast<CURL*>(Acquire());
  curl_easy_reset(curl);
  HttpResponse response;
  char error[CURL_ERROR_SIZE] = {0};
  static const std::string user_agent = std::string("nodesmith/") + core::kVersion;
  curl_easy_setopt(curl, CURLOPT_URL, request.url.c_str());
  curl_easy_setopt(curl, CURLOPT_USERAGENT, user_agent.c_str());
  curl_easy_setopt(curl, CURLOPT_NOSIGNAL, 1L);
  curl_easy_setopt(curl, CURLOPT_TCP_KEEPALIVE, 1L);
  curl_easy_setopt(curl, CURLOPT_CONNECTTIMEOUT_MS, 5000L);
  curl_easy_setopt(curl, CURLOPT_ERRORBUFFER, error);
  if (request.timeout_seconds > 0)
    curl_easy_setopt(curl, CURLOPT_TIMEOUT_MS, static_cast<long>(request.timeout_seconds * 1000));
  // The instance metadata service must be reached directly, never through a proxy.
  curl_easy_setopt(curl, CURLOPT_NOPROXY, "169.254.169.254,169.254.170.2,127.0.0.1,localhost");
  curl_slist* headers = nullptr;
  for (const auto& [name, value] : request.headers)
    headers = curl_slist_append(headers, (name + ": " + value).c_str());
  headers = curl_slist_append(headers, "Expect:");  // no 100-continue round trip
  curl_easy_setopt(curl, CURLOPT_HTTPHEADER, headers);
  if (request.method == "GET") {
    curl_easy_setopt(curl, CURLOPT_HTTPGET, 1L);
  } else {
    curl_easy_setopt(curl, CURLOPT_CUSTOMREQUEST, request.method.c_str());
    if (request.method != "DELETE" || !request.body.empty()) {
      curl_easy_setopt(curl, CURLOPT_POSTFIELDS, request.body.data());
      curl_easy_setopt(curl, CURLOPT_POSTFIELDSIZE_LARGE, static_cast<curl_off_t>(request.body.size()));
    }
  }
  curl_easy_setopt(curl, CURLOPT_HEADERFUNCTION, OnHeader);
  curl_easy_setopt(curl, CURLOPT_HEADERDATA, &response);
  curl_easy_setopt(curl, CURLOPT_WRITEFUNCTION, OnBody);
  curl_easy_setopt(curl, CURLOPT_WRITEDATA, &response);
  CURLcode code = curl_easy_perform(curl);
  curl_slist_free_all(headers);
  if (code != CURLE_OK) {
    std::string what = error[0] != '\0' ? error : curl_easy_strerror(code);
    curl_easy_cleanup(curl);  // a failed connection is not reused
    std::string host = request.url.substr(0, request.url.find('/', request.url.find("://") + 3));
    if (code == CURLE_OPERATION_TIMEDOUT)
      return core::Status(core::StatusCode::kDeadlineExceeded,
                          std::string(kConnectionErrorPrefix) + host + " did not answer within " +
                              std::to_string(static_cast<int>(request.timeout_seconds)) + " s (" +
                              what + ")");
    return core::Status::Unavailable(std::string(kConnectionErrorPrefix) + "cannot reach " + host +
                                     " (" + what + ")");
  }
  curl_easy_getinfo(curl, CURLINFO_RESPONSE_CODE, &response.status);
  Release(curl);
  return response;
}

}  // namespace nodesmith::aws
