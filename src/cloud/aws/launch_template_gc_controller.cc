#include "cloud/aws/launch_template_gc_controller.h"

namespace nodesmith::aws {

core::Result<runtime::ReconcileResult> LaunchTemplateGcController::Reconcile(const runtime::Request&) {
  auto deleted = provider_.DeleteUnusedLaunchTemplates();
  if (!deleted.ok()) return deleted.status();
  if (!deleted->empty() && recorder_ != nullptr) {
    std::string names;
    for (const std::string& n : *deleted) names += (names.empty() ? "" : ",") + n;
    recorder_->Record(runtime::RecordedEvent{runtime::LogLevel::kInfo,
                                             std::string("controller.") + kLaunchTemplateGcControllerName,
                                             "deleted launch templates", "",
                                             {{"launchTemplates", names}}});
  }
  return runtime::ReconcileResult::RequeueAfter(interval_);
}

}  // namespace nodesmith::aws
