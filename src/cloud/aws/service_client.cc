#include "cloud/aws/service_client.h"

#include <ctime>
#include <thread>

#include "cloud/aws/sigv4.h"

namespace nodesmith::aws {

namespace {

FailureKind KindOfAnswer(const AwsError& e) {
  if (IsThrottlingCode(e.code) || e.http_status == 429) return FailureKind::kThrottling;
  if (IsTransientCode(e.code) || e.http_status == 500 || e.http_status == 502 ||
      e.http_status == 503 || e.http_status == 504)
    return FailureKind::kTransient;
  return FailureKind::kNotRetryable;
}

}  // namespace

void SleepFor(core::Duration d) {
  if (d > core::Duration(0)) std::this_thread::sleep_for(d);
}

std::optional<core::Time> ParseHttpDate(const std::string& text) {
  std::tm tm{};
  const char* end = strptime(text.c_str(), "%a, %d %b %Y %H:%M:%S", &tm);
  if (end == nullptr) return std::nullopt;
  time_t t = timegm(&tm);
  if (t == static_cast<time_t>(-1)) return std::nullopt;
  return core::Time::FromUnixSeconds(static_cast<double>(t));
}

ServiceClient::ServiceClient(Options options) : options_(std::move(options)) {
  const std::string& url = options_.endpoint.url;
  size_t start = url.find("://");
  start = start == std::string::npos ? 0 : start + 3;
  size_t end = url.find('/', start);
  host_ = url.substr(start, end == std::string::npos ? std::string::npos : end - start);
}

core::Result<HttpResponse> ServiceClient::Send(const ServiceRequest& request,
                                               const ErrorDecoder& decode) {
  const Endpoint& ep = options_.endpoint;
  FailureKind last = FailureKind::kNotRetryable;
  bool refreshed_credentials = false;
  bool corrected_skew = false;
  for (int attempt = 1;; ++attempt) {
    auto credentials = options_.credentials->Get();
    if (!credentials.ok())
      return credentials.status().WithPrefix(ep.signing_name + " " + request.operation);
    SigningRequest signing;
    signing.method = request.method;
    signing.path = request.path;
    signing.query = request.query;
    signing.headers.emplace_back("Host", host_);
    for (const auto& h : request.headers) signing.headers.push_back(h);
    signing.body = request.body;
    SigningScope scope{ep.signing_region, ep.signing_name,
                       options_.clock->Now() + core::Duration(skew_nanos_.load())};
    SignRequest(signing, scope, *credentials);

    HttpRequest http;
    http.method = request.method;
    http.url = ep.url + request.path + (request.query.empty() ? "" : "?" + request.query);
    http.headers = std::move(signing.headers);
    http.body = request.body;
    http.timeout_seconds = options_.timeout_seconds;
    ++attempts_;
    auto answer = options_.http->Send(http);

    FailureKind kind;
    core::Status failure;
    if (!answer.ok()) {
      kind = answer.status().code() == core::StatusCode::kDeadlineExceeded
                 ? FailureKind::kTimeout
                 : FailureKind::kTransient;
      failure = answer.status().WithPrefix(ep.signing_name + " " + request.operation);
    } else if (answer->status >= 200 && answer->status < 300) {
      options_.retry->OnSuccess(attempt > 1, last);
      return answer;
    } else {
      AwsError error = decode(*answer);
      error.service = ep.signing_name;
      error.operation = request.operation;
      error.http_status = answer->status;
      if (error.request_id.empty()) {
        for (const char* h : {"x-amzn-requestid", "x-amz-request-id"}) {
          auto it = answer->headers.find(h);
          if (it != answer->headers.end()) error.request_id = it->second;
        }
      }
      failure = error.ToStatus();
      kind = KindOfAnswer(error);
      if (IsExpiredCredentialsCode(error.code) && !refreshed_credentials) {
        // Temporary credentials ran out between Get and the service: fetch new ones, once.
        refreshed_credentials = true;
        options_.credentials->Invalidate();
        --attempt;
        continue;
      }
      if (IsClockSkewCode(error.code) && !corrected_skew) {
        auto date = answer->headers.find("date");
        if (date != answer->headers.end()) {
          if (auto server = ParseHttpDate(date->second)) {
            core::Duration skew = *server - options_.clock->Now();
            if (std::chrono::abs(skew) > std::chrono::minutes(4)) {
              skew_nanos_ = skew.count();
              corrected_skew = true;
              kind = FailureKind::kClockSkew;
            }
          }
        }
      }
    }
    auto wait = options_.retry->RetryAfter(attempt, kind);
    if (!wait) return failure;
    last = kind;
    if (options_.sleep) options_.sleep(*wait);
  }
}

}  // namespace nodesmith::aws
