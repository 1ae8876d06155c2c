#include "controllers/nodepool/hash.h"

#include "controllers/common/karpenter.h"
#include "controllers/nodeclaim/drift_detection.h"
#include "controllers/nodepool/conditions.h"
#include "scheduling/well_known_labels.h"

namespace nodesmith::controllers {
namespace {

// Sets annotation `key` to `value`; true when it changed.
bool Annotate(api::ObjectMeta& meta, const std::string& key, const std::string& value) {
  auto [it, added] = meta.annotations.try_emplace(key, value);
  if (added) return true;
  if (it->second == value) return false;
  it->second = value;
  return true;
}

bool HasCurrentHashVersion(const api::ObjectMeta& meta) {
  auto it = meta.annotations.find(kNodePoolHashVersionAnnotation);
  return it != meta.annotations.end() && it->second == kNodePoolHashVersion;
}

}  // namespace

NodePoolHashController::NodePoolHashController(cluster::ClusterApi& cluster) : cluster_(cluster) {}

core::Status NodePoolHashController::RestampNodeClaims(const api::NodePool& pool,
                                                       const std::string& hash) {
  core::Status first_error;
  for (api::NodeClaim claim : cluster_.List<api::NodeClaim>()) {
    auto label = claim.metadata.labels.find(scheduling::kLabelNodePool);
    if (label == claim.metadata.labels.end() || label->second != pool.metadata.name) continue;
    if (HasCurrentHashVersion(claim.metadata)) continue;
    Annotate(claim.metadata, kNodePoolHashVersionAnnotation, kNodePoolHashVersion);
    if (claim.FindCondition(kConditionDrifted) == nullptr) {
      Annotate(claim.metadata, kNodePoolHashAnnotation, hash);
    }
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
  if (!HasCurrentHashVersion(pool->metadata)) NS_RETURN_IF_ERROR(RestampNodeClaims(*pool, hash));
  bool changed = Annotate(pool->metadata, kNodePoolHashAnnotation, hash);
  changed =
      Annotate(pool->metadata, kNodePoolHashVersionAnnotation, kNodePoolHashVersion) || changed;
  if (changed) NS_RETURN_IF_ERROR(WriteNodePool(cluster_, *pool, "setting the hash"));
  return runtime::ReconcileResult::Done();
}

}  // namespace nodesmith::controllers
