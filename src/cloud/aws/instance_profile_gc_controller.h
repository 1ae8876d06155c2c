// InstanceProfileGcController: deletes the instance profiles nodesmith made for this cluster that
// nothing uses any more, as Karpenter's nodeclass garbage collection does. A class's role change
// makes a new profile (instance_profile.h) and leaves the old one to this controller, which every
// 30 minutes lists the profiles under /karpenter/<region>/<cluster>/ and deletes each that
//   - no EC2NodeClass names in status.instanceProfile,
//   - no NodeClaim names in its karpenter.k8s.aws/instance-profile-name annotation (an
//     instance launched with it still runs), and
//   - was not replaced within the last 15 minutes (a NodeClaim launched with it may not be
//     listed yet).
// Profiles a user names in spec.instanceProfile live elsewhere and are never touched.
//
// Not registered in shadow mode (it deletes in IAM). Not thread-safe. REQUIRES: everything given
// outlives the controller.
#pragma once

#include <string>
#include <vector>

#include "cloud/aws/iam_client.h"
#include "cloud/aws/instance_profile.h"
#include "cluster/cluster_api.h"
#include "core/clock.h"
#include "runtime/controller.h"
#include "runtime/event_recorder.h"

namespace nodesmith::aws {

inline constexpr const char* kInstanceProfileGcControllerName = "instanceprofile.garbagecollection";

class InstanceProfileGcController : public runtime::Controller {
 public:
  InstanceProfileGcController(const core::Clock& clock, cluster::ClusterApi& cluster, IamClient& iam,
                              InstanceProfileReconciler& profiles,
                              core::Duration interval = std::chrono::minutes(30))
      : clock_(clock), cluster_(cluster), iam_(iam), profiles_(profiles), interval_(interval) {}

  std::string Name() const override { return kInstanceProfileGcControllerName; }
  std::vector<cluster::Kind> Watches() const override { return {}; }
  bool Singleton() const override { return true; }
  core::Result<runtime::ReconcileResult> Reconcile(const runtime::Request& request) override;
  // Where each deletion is reported (a log line naming the profile).
  void set_recorder(runtime::EventRecorder* recorder) { recorder_ = recorder; }

 private:
  const core::Clock& clock_;
  cluster::ClusterApi& cluster_;
  IamClient& iam_;
  InstanceProfileReconciler& profiles_;
  core::Duration interval_;
  runtime::EventRecorder* recorder_ = nullptr;
};

}  // namespace nodesmith::aws
