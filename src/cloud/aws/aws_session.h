// AwsSession: one account and region's clients, wired as the operator and the tests use them.
//
// It owns the HTTP client, the credential chain, the shared retry strategy and one
// ServiceClient per service, each with its endpoint resolved (endpoints.h) and its protocol:
// EC2 query (ec2), AWS query (sts, iam), JSON 1.0 (sqs), JSON 1.1 (ssm, pricing), REST-JSON
// (eks). The region is the one given, else resolved as the SDKs do (credentials.h ResolveRegion); no region is an
// error that says how to set one. Thread-safe once created. REQUIRES: `clock` outlives it.
#pragma once

#include <functional>
#include <memory>
#include <optional>
#include <string>

#include "cloud/aws/credentials.h"
#include "cloud/aws/ec2_client.h"
#include "cloud/aws/json_protocol.h"
#include "cloud/aws/query_protocol.h"
#include "cloud/aws/retry_strategy.h"
#include "cloud/aws/service_client.h"

namespace nodesmith::aws {

struct AwsSessionOptions {
  std::string region;               // empty: resolve
  CredentialsEnvironment environment = CredentialsEnvironment::Process();
  const core::Clock* clock = nullptr;
  // Injected for tests: fixed credentials instead of the chain, an HTTP client, a sleeper, the
  // retry jitter. Null / empty: the real ones.
  std::unique_ptr<CredentialsProvider> credentials;
  std::unique_ptr<HttpClient> http;
  std::function<void(core::Duration)> sleep;
  std::function<double()> random01;
  double timeout_seconds = 30;
};

class AwsSession {
 public:
  static core::Result<std::unique_ptr<AwsSession>> Create(AwsSessionOptions options);

  const std::string& region() const { return region_; }
  Ec2Client& ec2() { return *ec2_; }
  QueryClient& ec2_query() { return *ec2_query_; }
  QueryClient& sts() { return *sts_; }
  QueryClient& iam() { return *iam_; }
  JsonClient& sqs() { return *sqs_; }
  JsonClient& ssm() { return *ssm_; }
  JsonClient& pricing() { return *pricing_; }
  ServiceClient& eks() { return *eks_; }  // REST-JSON (eks_client.h)
  CredentialsProvider& credentials() { return *credentials_; }
  RetryStrategy& retry() { return *retry_; }
  // Requests sent to every service, retries included.
  uint64_t attempts_sent() const;

 private:
  AwsSession() = default;
  ServiceClient* AddService(const std::string& name);

  std::string region_;
  AwsSessionOptions options_;
  std::unique_ptr<HttpClient> http_;
  std::unique_ptr<CredentialsProvider> credentials_;
  std::unique_ptr<RetryStrategy> retry_;
  std::vector<std::unique_ptr<ServiceClient>> services_;
  std::unique_ptr<QueryClient> ec2_query_, sts_, iam_;
  std::unique_ptr<JsonClient> sqs_, ssm_, pricing_;
  ServiceClient* eks_ = nullptr;  // owned by services_
  std::unique_ptr<Ec2Client> ec2_;
};

}  // namespace nodesmith::aws
