// ServiceClient: signed, retried requests to one AWS service endpoint, whatever the protocol.
//
// Each attempt takes the credentials valid now, signs the request with SigV4 at the clock's time
// (corrected by the skew the service reported, if any), sends it, and sorts the outcome: a 2xx
// answer is returned as is; an error answer is decoded by the protocol's ErrorDecoder into an
// AwsError; a failure without an answer is a connection error. Retries follow the shared
// RetryStrategy. An ExpiredToken answer invalidates the credentials and is tried once more at
// once; a clock-skew answer sets the skew from the answer's Date header and is tried again.
// The query and JSON protocols (query_protocol.h, json_protocol.h) are built on this.
// Thread-safe. REQUIRES: everything the Options point to outlives the client.
#pragma once

#include <atomic>
#include <functional>
#include <string>
#include <utility>
#include <vector>

#include "cloud/aws/aws_error.h"
#include "cloud/aws/credentials.h"
#include "cloud/aws/endpoints.h"
#include "cloud/aws/http_client.h"
#include "cloud/aws/retry_strategy.h"
#include "core/clock.h"

namespace nodesmith::aws {

struct ServiceRequest {
  std::string operation;  // "DescribeSubnets": for errors, logs and metrics
  std::string method = "POST";
  std::string path = "/";  // percent-encoded
  std::string query;       // percent-encoded, without "?"
  std::vector<std::pair<std::string, std::string>> headers;  // besides Host, X-Amz-Date, Authorization
  std::string body;
};

using ErrorDecoder = std::function<AwsError(const HttpResponse&)>;

class ServiceClient {
 public:
  struct Options {
    Endpoint endpoint;
    HttpClient* http = nullptr;
    CredentialsProvider* credentials = nullptr;
    const core::Clock* clock = nullptr;
    RetryStrategy* retry = nullptr;
    std::function<void(core::Duration)> sleep;  // waits before a retry; the real one sleeps
    double timeout_seconds = 30;
  };

  explicit ServiceClient(Options options);

  core::Result<HttpResponse> Send(const ServiceRequest& request, const ErrorDecoder& decode);

  const Endpoint& endpoint() const { return options_.endpoint; }
  uint64_t attempts_sent() const { return attempts_.load(); }
  core::Duration clock_skew() const { return core::Duration(skew_nanos_.load()); }

 private:
  Options options_;
  std::string host_;  // the Host header: the endpoint's host[:port]
  std::atomic<int64_t> skew_nanos_{0};
  std::atomic<uint64_t> attempts_{0};
};

// The wall-clock sleeper the operator wires (tests pass their own).
void SleepFor(core::Duration d);
// An HTTP Date header ("Tue, 01 Dec 2026 17:00:00 GMT") as a Time; nothing when unreadable.
std::optional<core::Time> ParseHttpDate(const std::string& text);

}  // namespace nodesmith::aws
