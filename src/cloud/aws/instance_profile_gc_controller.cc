#include "cloud/aws/instance_profile_gc_controller.h"

#include <set>

#include "api/ec2nodeclass.h"
#include "api/nodeclaim.h"

namespace nodesmith::aws {

core::Result<runtime::ReconcileResult> InstanceProfileGcController::Reconcile(const runtime::Request&) {
  // What is in use, read before the listing: a profile named after it is still kept.
  std::set<std::string> in_use;
  cluster_.ForEachObject(cluster::Kind::kNodeClaim, [&](const cluster::Object& o) {
    const auto& claim = std::get<api::NodeClaim>(o);
    auto it = claim.metadata.annotations.find(kAnnotationInstanceProfile);
    if (it != claim.metadata.annotations.end()) in_use.insert(it->second);
  });
  cluster_.ForEachObject(cluster::Kind::kEC2NodeClass, [&](const cluster::Object& o) {
    const auto& node_class = std::get<api::EC2NodeClass>(o);
    if (!node_class.status_instance_profile.empty()) in_use.insert(node_class.status_instance_profile);
  });

  auto profiles = iam_.ListInstanceProfiles(profiles_.ClusterPath());
  if (!profiles.ok()) return profiles.status().WithPrefix("listing the cluster's instance profiles");
  const core::Time now = clock_.Now();
  for (const InstanceProfile& p : *profiles) {
    if (in_use.count(p.name) != 0 || profiles_.IsProtected(p.name, now)) continue;
    NS_RETURN_IF_ERROR(profiles_.DeleteProfile(p).WithPrefix("deleting instance profile " + p.name));
    if (recorder_ != nullptr) {
      recorder_->Record(runtime::RecordedEvent{runtime::LogLevel::kInfo,
                                               std::string("controller.") + kInstanceProfileGcControllerName,
                                               "deleted instance profile", "",
                                               {{"instance-profile", p.name}}});
    }
  }
  return runtime::ReconcileResult::RequeueAfter(interval_);
}

}  // namespace nodesmith::aws
