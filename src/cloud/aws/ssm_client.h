// SsmClient: the one SSM call nodesmith makes, GetParameter, through which the EKS-optimised
// AMI aliases resolve (/aws/service/eks/optimized-ami/..., /aws/service/bottlerocket/...).
// Thread-safe. REQUIRES: `json` (the session's JSON 1.1 client for ssm) outlives it.
#pragma once

#include <string>

#include "cloud/aws/json_protocol.h"

namespace nodesmith::aws {

class SsmClient {
 public:
  explicit SsmClient(JsonClient* json) : json_(json) {}
  // The parameter's value; kNotFound (ParameterNotFound) when there is none by that name.
  core::Result<std::string> GetParameter(const std::string& name);

 private:
  JsonClient* json_;
};

}  // namespace nodesmith::aws
