// IamClient: the IAM calls nodesmith makes about instance profiles, typed, over the AWS query
// protocol (version 2010-05-08).
//
// An EC2NodeClass that names a role rather than an instance profile gets a profile made for it:
// created with the class's path and tags, given the role, and deleted when the class goes. Each
// call decodes only the fields nodesmith uses. Errors are AwsError Statuses (aws_error.h) naming
// the call, so a missing profile or role (NoSuchEntity) is kNotFound with IAM's code, message and
// request id kept; IsRoleNotFound tells which of the two was missing.
// Thread-safe (the QueryClient is). REQUIRES: `iam` (the session's IAM client) outlives it.
#pragma once

#include <map>
#include <string>
#include <vector>

#include "cloud/aws/query_protocol.h"

namespace nodesmith::aws {

struct InstanceProfile {
  std::string name;
  std::string id;    // "AIPA..."
  std::string arn;   // arn:aws:iam::<account>:instance-profile<path><name>
  std::string path;  // "/" unless given; always begins and ends with "/"
  std::vector<std::string> roles;  // role names, not ARNs; IAM allows at most one
  std::map<std::string, std::string> tags;
};

class IamClient {
 public:
  static constexpr const char* kApiVersion = "2010-05-08";
  explicit IamClient(QueryClient* iam) : iam_(iam) {}

  // The profile by that name; kNotFound when there is none.
  core::Result<InstanceProfile> GetInstanceProfile(const std::string& name);
  // Creates a profile with no role. An empty `path` is IAM's default, "/". A taken name is
  // EntityAlreadyExists, which aws_error.h classes as kInvalidArgument.
  core::Result<InstanceProfile> CreateInstanceProfile(const std::string& name, const std::string& path,
                                                      const std::map<std::string, std::string>& tags);
  // `role` may be given with its path ("path/to/Role"); only the last segment is sent, because
  // IAM takes role names and an EC2NodeClass's role may be written either way. A profile holds
  // one role: adding a second is LimitExceeded.
  core::Status AddRoleToInstanceProfile(const std::string& profile, const std::string& role);
  // `role` as for AddRoleToInstanceProfile.
  core::Status RemoveRoleFromInstanceProfile(const std::string& profile, const std::string& role);
  // A profile that still holds a role cannot be deleted (DeleteConflict): remove it first.
  core::Status DeleteInstanceProfile(const std::string& name);
  // Every profile whose path begins with `path_prefix` ("" or "/": all), following Marker until
  // IsTruncated is false.
  core::Result<std::vector<InstanceProfile>> ListInstanceProfiles(const std::string& path_prefix);

 private:
  QueryClient* iam_;
};

// The role name IAM expects for `role`: its last "/" segment ("path/to/Role" -> "Role").
std::string RoleNameOf(const std::string& role);

// True when `status` is IAM's NoSuchEntity about a role, as AddRoleToInstanceProfile answers
// when the role is missing; false when the instance profile is the missing one, and for any
// other Status. The message is what tells them apart: IAM's code is NoSuchEntity for both.
bool IsRoleNotFound(const core::Status& status);

}  // namespace nodesmith::aws
