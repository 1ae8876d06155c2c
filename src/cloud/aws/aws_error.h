// AwsError: what an AWS service answered when a call failed, kept whole for logs and decisions.
//
// A failed call is a core::Status whose message has one fixed shape,
//   "<Code>: <message> (<service> <Operation>, request id <id>)"
// so the error code survives being passed up as a plain Status: ErrorCodeOf() reads it back
// (the provider needs it to tell InsufficientInstanceCapacity from a bad launch template).
// The Status code classifies the failure: throttling, 5xx and capacity are kUnavailable,
// *.NotFound / *NotFound kNotFound, UnauthorizedOperation / AccessDenied kPermissionDenied,
// expired or unknown credentials kUnauthenticated, anything else of the caller's kInvalidArgument.
#pragma once

#include <string>

#include "core/status.h"

namespace nodesmith::aws {

struct AwsError {
  std::string service;    // "ec2"
  std::string operation;  // "CreateFleet"
  std::string code;       // "InsufficientInstanceCapacity"
  std::string message;
  std::string request_id;
  long http_status = 0;

  core::Status ToStatus() const;
};

// The AWS error code of a Status made by AwsError::ToStatus; empty for any other Status.
std::string ErrorCodeOf(const core::Status& status);

// Error codes by class, as the AWS SDKs' standard retry mode and Karpenter sort them.
bool IsThrottlingCode(const std::string& code);
bool IsTransientCode(const std::string& code);
bool IsClockSkewCode(const std::string& code);
bool IsExpiredCredentialsCode(const std::string& code);
// EC2 launch errors that mean "no capacity for this offering now" (aws.md): the offering is
// marked unavailable for 3 minutes and the launch moves on.
bool IsInsufficientCapacityCode(const std::string& code);

}  // namespace nodesmith::aws
