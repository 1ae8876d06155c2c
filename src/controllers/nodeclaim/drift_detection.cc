#include "controllers/nodeclaim/drift_detection.h"

#include <algorithm>
#include <map>
#include <utility>
#include <vector>

#include "controllers/common/karpenter.h"
#include "controllers/nodeclaim/consolidatable.h"
#include "scheduling/requirements.h"
#include "scheduling/well_known_labels.h"

namespace nodesmith::controllers {
namespace {

constexpr const char* kLogger = kDriftDetectionName;

// Static drift: the template the NodeClaim was launched from is not the pool's template now.
// NodeClaims without the annotations, or stamped by another hash version, cannot be compared.
bool NodePoolHashDrifted(const api::NodeClaim& claim, const api::NodePool& pool) {
  const auto& a = claim.metadata.annotations;
  auto hash = a.find(kNodePoolHashAnnotation);
  auto version = a.find(kNodePoolHashVersionAnnotation);
  if (hash == a.end() || version == a.end()) return false;
  if (version->second != kNodePoolHashVersion) return false;
  return hash->second != NodePoolHash(pool);
}

// Every requirement of the pool's template must be met by the NodeClaim's labels. Strict: a
// key the pool requires a value for and the NodeClaim has no label for is a conflict.
bool RequirementsDrifted(const api::NodeClaim& claim, const api::NodePool& pool) {
  auto pool_requirements =
      scheduling::Requirements::FromNodeSelectorRequirements(pool.template_.spec.requirements);
  auto labels = scheduling::Requirements::FromLabels(claim.metadata.labels);
  return !labels.IsCompatible(pool_requirements);
}

}  // namespace

std::string DriftReason(const api::NodeClaim& claim, const api::NodePool& pool,
                        const cloud::CloudProvider& cloud) {
  // The cluster-side checks first: they cost no cloud call.
  if (NodePoolHashDrifted(claim, pool)) return kDriftReasonNodePoolDrifted;
  if (RequirementsDrifted(claim, pool)) return kDriftReasonRequirementsDrifted;
  return cloud.IsDrifted(claim).reason;
}

core::Status MarkDrift(const core::Clock& clock, cluster::ClusterApi& cluster,
                       const cloud::CloudProvider& cloud, runtime::EventRecorder* recorder,
                       UnexplainedDrift unexplained) {
  std::map<std::string, api::NodePool> pools;
  for (auto& p : cluster.List<api::NodePool>()) {
    std::string name = p.metadata.name;
    pools.emplace(std::move(name), std::move(p));
  }
  // NodeClaims are read in place and copied only to be written: this runs every 30 s and after
  // every NodeClaim change, and almost always changes nothing. The writes follow the reads, in
  // list order, as they would interleaved with a listed copy.
  std::vector<std::pair<api::NodeClaim, std::string>> writes;  // with the drift reason
  cluster.ForEachObject(cluster::Kind::kNodeClaim, [&](const cluster::Object& o) {
    const auto& claim = std::get<api::NodeClaim>(o);
    if (claim.metadata.deletion_timestamp) return;
    auto label = claim.metadata.labels.find(scheduling::kLabelNodePool);
    if (label == claim.metadata.labels.end()) return;
    auto pool = pools.find(label->second);
    if (pool == pools.end()) return;
    std::string reason;
    if (claim.IsTrue(kConditionLaunched)) reason = DriftReason(claim, pool->second, cloud);
    if (reason.empty() && unexplained == UnexplainedDrift::kKeep) return;
    std::vector<api::Condition> conditions = claim.status.conditions;
    bool changed = reason.empty()
                       ? api::ClearCondition(conditions, kConditionDrifted)
                       : SetCondition(conditions, kConditionDrifted, "True", reason,
                                      clock.Now(), reason);
    if (!changed) return;
    api::NodeClaim updated = claim;
    updated.status.conditions = std::move(conditions);
    writes.emplace_back(std::move(updated), std::move(reason));
  });
  for (auto& [claim, reason] : writes) {
    auto updated = cluster.Update(claim);
    if (!updated.ok()) {
      // Gone or changed since the list: the watch brings the new version to the next pass.
      if (updated.status().code() == core::StatusCode::kNotFound ||
          cluster::IsConflict(updated.status())) {
        continue;
      }
      return updated.status().WithPrefix("marking drift of nodeclaim " + claim.metadata.name);
    }
    if (recorder != nullptr) {
      Emit(*recorder, runtime::LogLevel::kInfo, kLogger,
           reason.empty() ? "removing drifted status condition, not drifted"
                          : "marking drifted",
           "", {{"NodeClaim", claim.metadata.name}, {"reason", reason}});
    }
  }
  return core::Status::Ok();
}

DriftDetection::DriftDetection(const core::Clock& clock, cluster::ClusterApi& cluster,
                               const cloud::CloudProvider& cloud, runtime::EventRecorder& recorder,
                               DriftDetectionOptions options)
    : clock_(clock), cluster_(cluster), cloud_(cloud), recorder_(recorder), options_(options) {}

core::Result<runtime::ReconcileResult> DriftDetection::Reconcile(const runtime::Request&) {
  NS_RETURN_IF_ERROR(MarkDrift(clock_, cluster_, cloud_, &recorder_));
  auto next_consolidatable = MarkConsolidatable(clock_, cluster_);
  if (!next_consolidatable.ok()) return next_consolidatable.status();
  // Wake when the next NodeClaim turns consolidatable, if that is before the next drift look.
  return runtime::ReconcileResult::RequeueAfter(
      std::min(options_.interval, next_consolidatable->value_or(options_.interval)));
}

}  // namespace nodesmith::controllers
