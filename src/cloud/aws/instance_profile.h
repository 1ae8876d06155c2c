// InstanceProfileReconciler: the instance profile an EC2NodeClass's instances run with, as
// Karpenter's nodeclass controller keeps it. A class naming `spec.instanceProfile` uses that
// profile as it is. A class naming `spec.role` gets a profile made for it:
//   - named <cluster>_<hash of region, class name and uid, role> (IAM's limit is 128 of
//     [\w+=,.@-]), so a role change makes a new profile and instances already running keep
//     theirs;
//   - created under the path /karpenter/<region>/<cluster>/<class uid>/ (what deletion lists)
//     with the class's tags plus kubernetes.io/cluster/<cluster>=owned, eks:eks-cluster-name,
//     karpenter.k8s.aws/ec2nodeclass and topology.kubernetes.io/region;
//   - holding exactly that role (another one is removed first; a role given with its path is
//     added by name).
// It writes status.instanceProfile and the InstanceProfileReady condition; a failure (a missing
// role, IAM refusing) sets InstanceProfileReady False with IAM's message and is returned too,
// so the controller retries with backoff. A role IAM says is missing is not tried again for
// `role_not_found_ttl`, so a typo does not make a profile a minute forever. The profile a role
// change replaces is left for instance_profile_gc_controller.h, protected for a while.
// Not thread-safe. REQUIRES: `iam` outlives the reconciler.
#pragma once

#include <map>
#include <string>

#include "api/ec2nodeclass.h"
#include "cloud/aws/iam_client.h"
#include "core/clock.h"
#include "core/duration.h"
#include "core/status.h"

namespace nodesmith::aws {

inline constexpr const char* kConditionInstanceProfileReady = "InstanceProfileReady";

struct InstanceProfileOptions {
  std::string cluster_name;
  std::string region;
  core::Duration role_not_found_ttl = std::chrono::minutes(1);
  // A profile a class just stopped naming (its role changed) is kept this long whatever the
  // garbage collector finds, since the NodeClaims launched with it may not be listed yet.
  core::Duration protect_replaced_for = std::chrono::minutes(15);
};

// The NodeClaim annotation naming the instance profile its instance was launched with, as
// Karpenter's (the garbage collector keeps a profile while one names it).
inline constexpr const char* kAnnotationInstanceProfile = "karpenter.k8s.aws/instance-profile-name";

class InstanceProfileReconciler {
 public:
  InstanceProfileReconciler(IamClient* iam, InstanceProfileOptions options);

  // Brings status.instanceProfile and InstanceProfileReady up to date (see above).
  core::Status Reconcile(api::EC2NodeClass& node_class, core::Time now);
  // Deletes every profile made for the class (those under its path), removing their role
  // first. Profiles the user named in spec.instanceProfile are never touched.
  core::Status DeleteProfiles(const api::EC2NodeClass& node_class);

  std::string PathOf(const api::EC2NodeClass& node_class) const;
  std::string NameFor(const api::EC2NodeClass& node_class) const;
  // "/karpenter/<region>/<cluster>/": where every profile made for this cluster lives.
  std::string ClusterPath() const;
  // Whether `profile` was replaced by a role change less than `protect_replaced_for` ago.
  bool IsProtected(const std::string& profile, core::Time now) const;
  // Removes the profile's roles, then deletes it; NotFound answers count as done.
  core::Status DeleteProfile(const InstanceProfile& profile);

 private:
  core::Status EnsureProfile(const api::EC2NodeClass& node_class, const std::string& name,
                             core::Time now);

  IamClient* iam_;
  InstanceProfileOptions options_;
  std::map<std::string, core::Time> role_not_found_until_;  // role -> until
  std::map<std::string, core::Time> protected_until_;       // replaced profile -> until
};

}  // namespace nodesmith::aws
