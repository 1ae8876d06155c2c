// SsmClient: the one SSM call nodesmith makes, GetParameter, through which the EKS-optimised
// AMI aliases resolve (/aws/service/eks/optimized-ami/..., /aws/service/bottlerocket/...).
// Thread-safe. REQUIRES: `json` (the session's JSON 1.1 client for ssm) outlives it.
#pragma once

#include <string>

#include <nlohmann/json.hpp>

#include "cloud/aws/json_protocol.h"

namespace nodesmith::aws {

// The value of a GetParameter answer ({"Parameter": {"Value": ...}}) for parameter `name`; an
// Internal error naming it when the answer has no string there. Public so that the parse of what
// the endpoint sent can be tested (and fuzzed) without one.
core::Result<std::string> DecodeGetParameterAnswer(const nlohmann::json& answer, const std::string& name);

class SsmClient {
 public:
  explicit SsmClient(JsonClient* json) : json_(json) {}
  // The parameter's value; kNotFound (ParameterNotFound) when there is none by that name.
  core::Result<std::string> GetParameter(const std::string& name);

 private:
  JsonClient* json_;
};

}  // namespace nodesmith::aws
