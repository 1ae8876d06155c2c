#include "controllers/nodepool/hash.h"

#include "controllers/common/karpenter.h"
#include "controllers/nodepool/conditions.h"
#include "scheduling/well_known_labels.h"

namespace nodesmith::controllers {

NodePoolHashController::NodePoolHashController(cluster::ClusterApi& cluster) : cluster_(cluster) {}

core::Status NodePoolHashController::RestampNodeClaims(const api::NodePool& pool,
                                                       const std::string& hash) {
  core::Status first_error;
  for (api::NodeClaim claim : cluster_.List<api::NodeClaim>()) {
    auto label = claim.metadata.labels.find(scheduling::kLabelNodePool);
    if (label == claim.metadata.labels.end() || label->second != pool.metadata.name) continue;
    if (!api::RestampNodeClaim(claim, kNodePoolHashStamp, hash)) continue;
    auto updated = cluster_.Update(claim);
    if (!updated.ok() && updated.status().code() != core::StatusCode::kNotFound &&
        first_error.ok()) {
      first_error = updated.status().WithPrefix("updating the hash of nodeclaim " +
                                                claim.metadata.name);
    }
  }
  return first_error;
}

core::Result<runtime::ReconcileResult> NodePoolHashController::Reconcile(
    const runtime::Request& request) {
  auto pool = cluster_.Get<api::NodePool>("", request.name);
  if (!pool.ok()) {
    if (pool.status().code() != core::StatusCode::kNotFound) return pool.status();
    return runtime::ReconcileResult::Done();
  }
  const std::string hash = NodePoolHash(*pool);
  if (!api::HasCurrentHashVersion(pool->metadata, kNodePoolHashStamp)) {
    NS_RETURN_IF_ERROR(RestampNodeClaims(*pool, hash));
  }
  if (api::SetHashStamp(pool->metadata, kNodePoolHashStamp, hash)) {
    NS_RETURN_IF_ERROR(WriteNodePool(cluster_, *pool, "setting the hash"));
  }
  return runtime::ReconcileResult::Done();
}

}  // namespace nodesmith::controllers
