// LaunchTemplateGcController: deletes the launch templates nodesmith made that nothing uses any
// more, as Karpenter's launch-template cache does when an entry expires. Every minute it asks the
// provider to delete the templates no launch or validation used for its TTL (one minute), so a
// changed AMI, kubelet setting or user data does not leave a template behind per change, and
// templates of an earlier life of the controller go once they are not reused.
//
// Not registered in shadow mode (it deletes in EC2). Not thread-safe. REQUIRES: the provider
// outlives the controller.
#pragma once

#include <string>
#include <vector>

#include "cloud/aws/aws_cloud_provider.h"
#include "runtime/controller.h"
#include "runtime/event_recorder.h"

namespace nodesmith::aws {

inline constexpr const char* kLaunchTemplateGcControllerName = "launchtemplate.garbagecollection";

class LaunchTemplateGcController : public runtime::Controller {
 public:
  explicit LaunchTemplateGcController(AwsCloudProvider& provider,
                                      core::Duration interval = std::chrono::minutes(1))
      : provider_(provider), interval_(interval) {}

  std::string Name() const override { return kLaunchTemplateGcControllerName; }
  std::vector<cluster::Kind> Watches() const override { return {}; }
  bool Singleton() const override { return true; }
  core::Result<runtime::ReconcileResult> Reconcile(const runtime::Request& request) override;
  // Where each deletion is reported (a log line naming the templates).
  void set_recorder(runtime::EventRecorder* recorder) { recorder_ = recorder; }

 private:
  AwsCloudProvider& provider_;
  core::Duration interval_;
  runtime::EventRecorder* recorder_ = nullptr;
};

}  // namespace nodesmith::aws
