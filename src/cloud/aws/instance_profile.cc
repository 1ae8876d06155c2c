#include "cloud/aws/instance_profile.h"

#include "api/conditions.h"
#include "cloud/aws/fleet_request.h"
#include "core/field_hasher.h"
#include "scheduling/well_known_labels.h"

namespace nodesmith::aws {

InstanceProfileReconciler::InstanceProfileReconciler(IamClient* iam, InstanceProfileOptions options)
    : iam_(iam), options_(std::move(options)) {}

std::string InstanceProfileReconciler::PathOf(const api::EC2NodeClass& node_class) const {
  return ClusterPath() + node_class.metadata.uid + "/";
}

std::string InstanceProfileReconciler::NameFor(const api::EC2NodeClass& node_class) const {
  core::FieldHasher h;
  h.Add(options_.region).Add(node_class.metadata.name).Add(node_class.metadata.uid);
  h.Add(RoleNameOf(node_class.role));
  // IAM allows 128 characters; the hash is at most 20 digits.
  return options_.cluster_name.substr(0, 100) + "_" + std::to_string(h.value());
}

core::Status InstanceProfileReconciler::EnsureProfile(const api::EC2NodeClass& node_class,
                                                      const std::string& name, core::Time now) {
  const std::string role = RoleNameOf(node_class.role);
  if (auto it = role_not_found_until_.find(role); it != role_not_found_until_.end()) {
    if (now < it->second) {
      return core::Status::NotFound("role " + role + " was not found by IAM; trying again after " +
                                    core::FormatRfc3339(it->second));
    }
    role_not_found_until_.erase(it);
  }
  auto profile = iam_->GetInstanceProfile(name);
  if (!profile.ok()) {
    if (profile.status().code() != core::StatusCode::kNotFound) return profile.status();
    std::map<std::string, std::string> tags = node_class.tags;
    tags["kubernetes.io/cluster/" + options_.cluster_name] = "owned";
    tags[kTagEksClusterName] = options_.cluster_name;
    tags[kTagNodeClass] = node_class.metadata.name;
    tags[scheduling::kLabelTopologyRegion] = options_.region;
    profile = iam_->CreateInstanceProfile(name, PathOf(node_class), tags);
    if (!profile.ok()) return profile.status();
  }
  for (const std::string& other : profile->roles) {
    if (other == role) return core::Status::Ok();
    NS_RETURN_IF_ERROR(iam_->RemoveRoleFromInstanceProfile(name, other));
  }
  core::Status added = iam_->AddRoleToInstanceProfile(name, role);
  if (!added.ok() && IsRoleNotFound(added)) role_not_found_until_[role] = now + options_.role_not_found_ttl;
  if (!added.ok()) {
    // A profile without its role would launch instances that cannot join; it goes, and the
    // next attempt makes it again.
    (void)iam_->DeleteInstanceProfile(name);
  }
  return added;
}

core::Status InstanceProfileReconciler::Reconcile(api::EC2NodeClass& node_class, core::Time now) {
  const int64_t generation = node_class.metadata.generation;
  if (node_class.role.empty()) {
    node_class.status_instance_profile = node_class.instance_profile;
    api::SetCondition(node_class.conditions, kConditionInstanceProfileReady, "True",
                      kConditionInstanceProfileReady, now, "", generation);
    return core::Status::Ok();
  }
  const std::string name = NameFor(node_class);
  core::Status ensured = EnsureProfile(node_class, name, now);
  if (!ensured.ok()) {
    api::SetCondition(node_class.conditions, kConditionInstanceProfileReady, "False",
                      "InstanceProfileCreationFailed",
                      now, "creating the instance profile for role " + node_class.role + ": " + ensured.message(),
                      generation);
    return ensured.WithPrefix("EC2NodeClass " + node_class.metadata.name + ": instance profile");
  }
  if (!node_class.status_instance_profile.empty() && node_class.status_instance_profile != name)
    protected_until_[node_class.status_instance_profile] = now + options_.protect_replaced_for;
  node_class.status_instance_profile = name;
  api::SetCondition(node_class.conditions, kConditionInstanceProfileReady, "True",
                    kConditionInstanceProfileReady, now, "", generation);
  return core::Status::Ok();
}

std::string InstanceProfileReconciler::ClusterPath() const {
  return "/karpenter/" + options_.region + "/" + options_.cluster_name + "/";
}

bool InstanceProfileReconciler::IsProtected(const std::string& profile, core::Time now) const {
  auto it = protected_until_.find(profile);
  return it != protected_until_.end() && now < it->second;
}

core::Status InstanceProfileReconciler::DeleteProfile(const InstanceProfile& profile) {
  for (const std::string& role : profile.roles) {
    core::Status removed = iam_->RemoveRoleFromInstanceProfile(profile.name, role);
    if (!removed.ok() && removed.code() != core::StatusCode::kNotFound) return removed;
  }
  core::Status deleted = iam_->DeleteInstanceProfile(profile.name);
  if (!deleted.ok() && deleted.code() != core::StatusCode::kNotFound) return deleted;
  protected_until_.erase(profile.name);
  return core::Status::Ok();
}

core::Status InstanceProfileReconciler::DeleteProfiles(const api::EC2NodeClass& node_class) {
  if (node_class.metadata.uid.empty()) return core::Status::Ok();  // never had a path
  auto profiles = iam_->ListInstanceProfiles(PathOf(node_class));
  if (!profiles.ok()) return profiles.status();
  for (const InstanceProfile& p : *profiles) NS_RETURN_IF_ERROR(DeleteProfile(p));
  return core::Status::Ok();
}

}  // namespace nodesmith::aws
