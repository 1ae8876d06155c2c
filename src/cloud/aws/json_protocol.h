// The AWS JSON 1.0 / 1.1 protocols (SQS, SSM, Pricing): POST / with X-Amz-Target
// "<prefix>.<Operation>", a JSON body, a JSON answer. Errors carry "__type" (possibly
// "namespace#Code") and "message"/"Message"; the request id is in x-amzn-RequestId.
#pragma once

#include <string>

#include <nlohmann/json.hpp>

#include "cloud/aws/service_client.h"

namespace nodesmith::aws {

AwsError DecodeJsonError(const HttpResponse& response);

class JsonClient {
 public:
  // `target_prefix`: "AmazonSQS", "AmazonSSM", "AWSPriceListService"; `version`: "1.0" or "1.1".
  // REQUIRES: `service` outlives the client.
  JsonClient(ServiceClient* service, std::string target_prefix, std::string version);

  core::Result<nlohmann::json> Call(const std::string& operation, const nlohmann::json& input);
  ServiceClient& service() { return *service_; }

 private:
  ServiceClient* service_;
  std::string target_prefix_;
  std::string content_type_;
};

}  // namespace nodesmith::aws
