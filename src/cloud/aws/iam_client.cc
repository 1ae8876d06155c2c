#include "cloud/aws/iam_client.h"

#include <algorithm>
#include <cctype>
#include <utility>

#include "cloud/aws/aws_error.h"

namespace nodesmith::aws {

namespace {

// An <InstanceProfile> element, or a <member> of <InstanceProfiles>.
InstanceProfile DecodeProfile(pugi::xml_node node) {
  InstanceProfile p;
  p.name = ChildText(node, "InstanceProfileName");
  p.id = ChildText(node, "InstanceProfileId");
  p.arn = ChildText(node, "Arn");
  p.path = ChildText(node, "Path");
  for (pugi::xml_node role : node.child("Roles").children("member"))
    p.roles.push_back(ChildText(role, "RoleName"));
  for (pugi::xml_node tag : node.child("Tags").children("member"))
    p.tags[ChildText(tag, "Key")] = ChildText(tag, "Value");
  return p;
}

core::Status Unit(const core::Result<XmlAnswer>& answer) {
  return answer.ok() ? core::Status::Ok() : answer.status();
}

std::string Lower(std::string s) {
  std::transform(s.begin(), s.end(), s.begin(),
                 [](unsigned char c) { return static_cast<char>(std::tolower(c)); });
  return s;
}

}  // namespace

std::string RoleNameOf(const std::string& role) {
  size_t slash = role.rfind('/');
  return slash == std::string::npos ? role : role.substr(slash + 1);
}

bool IsRoleNotFound(const core::Status& status) {
  if (status.code() != core::StatusCode::kNotFound || ErrorCodeOf(status) != "NoSuchEntity")
    return false;
  // Only IAM's own message counts: the trailer names the operation, and
  // "AddRoleToInstanceProfile" says "role" whatever was missing.
  const std::string& m = status.message();
  const std::string head = "NoSuchEntity: ";
  size_t start = m.find(head);
  size_t end = m.rfind(" (");
  if (start == std::string::npos || end == std::string::npos || end < start + head.size()) return false;
  std::string message = Lower(m.substr(start + head.size(), end - start - head.size()));
  // IAM names the profile "Instance Profile <name>" and the role "The role with name <name>";
  // moto says "Instance profile <name>" and "Role <name>". Names cannot hold spaces, so
  // "instance profile" is never part of a role's name, while "role" may be part of a profile's.
  return message.find("instance profile") == std::string::npos &&
         message.find("role") != std::string::npos;
}

core::Result<InstanceProfile> IamClient::GetInstanceProfile(const std::string& name) {
  auto answer = iam_->Call("GetInstanceProfile", QueryParams().Add("InstanceProfileName", name));
  if (!answer.ok()) return answer.status();
  pugi::xml_node node = answer->root.child("InstanceProfile");
  if (!node)
    return core::Status::Internal("iam GetInstanceProfile " + name + ": the answer has no InstanceProfile");
  return DecodeProfile(node);
}

core::Result<InstanceProfile> IamClient::CreateInstanceProfile(
    const std::string& name, const std::string& path, const std::map<std::string, std::string>& tags) {
  QueryParams params;
  params.Add("InstanceProfileName", name);
  if (!path.empty()) params.Add("Path", path);
  params.AddTags("Tags.member", {tags.begin(), tags.end()});
  auto answer = iam_->Call("CreateInstanceProfile", params);
  if (!answer.ok()) return answer.status();
  pugi::xml_node node = answer->root.child("InstanceProfile");
  if (!node)
    return core::Status::Internal("iam CreateInstanceProfile " + name + ": the answer has no InstanceProfile");
  InstanceProfile p = DecodeProfile(node);
  // The call applies all the tags or fails, so when an answer leaves them out they are the ones sent.
  if (p.tags.empty()) p.tags = tags;
  return p;
}

core::Status IamClient::AddRoleToInstanceProfile(const std::string& profile, const std::string& role) {
  return Unit(iam_->Call("AddRoleToInstanceProfile", QueryParams()
                                                         .Add("InstanceProfileName", profile)
                                                         .Add("RoleName", RoleNameOf(role))));
}

core::Status IamClient::RemoveRoleFromInstanceProfile(const std::string& profile, const std::string& role) {
  return Unit(iam_->Call("RemoveRoleFromInstanceProfile", QueryParams()
                                                              .Add("InstanceProfileName", profile)
                                                              .Add("RoleName", RoleNameOf(role))));
}

core::Status IamClient::DeleteInstanceProfile(const std::string& name) {
  return Unit(iam_->Call("DeleteInstanceProfile", QueryParams().Add("InstanceProfileName", name)));
}

core::Result<std::vector<InstanceProfile>> IamClient::ListInstanceProfiles(const std::string& path_prefix) {
  std::vector<InstanceProfile> out;
  std::string marker;
  for (int page = 0;; ++page) {
    QueryParams params;
    if (!path_prefix.empty()) params.Add("PathPrefix", path_prefix);
    if (!marker.empty()) params.Add("Marker", marker);
    auto answer = iam_->Call("ListInstanceProfiles", params);
    if (!answer.ok()) return answer.status();
    for (pugi::xml_node member : answer->root.child("InstanceProfiles").children("member")) {
      InstanceProfile p = DecodeProfile(member);
      // IAM filters by PathPrefix itself; an endpoint that ignores it (moto does) must not
      // widen the answer.
      if (p.path.compare(0, path_prefix.size(), path_prefix) != 0) continue;
      out.push_back(std::move(p));
    }
    std::string next = ChildText(answer->root, "Marker");
    if (ChildText(answer->root, "IsTruncated") != "true" || next.empty() || next == marker) return out;
    marker = std::move(next);
    if (page > 10000)
      return core::Status::Internal("iam ListInstanceProfiles: more than 10,000 pages; stopped");
  }
}

}  // namespace nodesmith::aws
