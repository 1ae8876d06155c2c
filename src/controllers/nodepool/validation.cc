#include "controllers/nodepool/validation.h"

#include "api/validation.h"
#include "controllers/nodepool/conditions.h"

namespace nodesmith::controllers {

NodePoolValidation::NodePoolValidation(const core::Clock& clock, cluster::ClusterApi& cluster)
    : clock_(clock), cluster_(cluster) {}

core::Result<runtime::ReconcileResult> NodePoolValidation::Reconcile(
    const runtime::Request& request) {
  auto pool = cluster_.Get<api::NodePool>("", request.name);
  if (!pool.ok()) {
    if (pool.status().code() != core::StatusCode::kNotFound) return pool.status();
    return runtime::ReconcileResult::Done();
  }
  const core::Status valid = api::ValidateNodePool(*pool);
  const bool changed =
      valid.ok() ? SetNodePoolCondition(*pool, kConditionValidationSucceeded, "True",
                                        kConditionValidationSucceeded, "", clock_.Now())
                 : SetNodePoolCondition(*pool, kConditionValidationSucceeded, "False",
                                        kReasonNodePoolValidationFailed, valid.message(),
                                        clock_.Now());
  if (changed) NS_RETURN_IF_ERROR(WriteNodePool(cluster_, *pool, "setting validation status"));
  return runtime::ReconcileResult::Done();
}

}  // namespace nodesmith::controllers
