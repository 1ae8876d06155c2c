// Drift detection: keeps each NodeClaim's Drifted condition true to whether it still matches
// what its NodePool and the cloud would launch now, as Karpenter's NodeClaim disruption
// controller. The drift disruption method (controllers/disruption/drift.h) acts on the
// condition; this only observes.
//
// A Launched NodeClaim is drifted, with the first reason that applies:
//   NodePoolDrifted      its karpenter.sh/nodepool-hash annotation differs from the NodePool's
//                        current NodePoolHash (only when both carry the same hash version:
//                        a NodeClaim from another hash version is not judged by this one);
//   RequirementsDrifted  its labels no longer satisfy the NodePool's template requirements
//                        (every requirement must be compatible with the labels, strictly: a
//                        required key the NodeClaim has no label for is drift too);
//   the cloud's reason   CloudProvider::IsDrifted (InstanceTypeNotFound, AMIDrift, ...).
// A NodeClaim that is not Launched carries no Drifted condition. One being deleted, or without
// its NodePool (label or object), is left as it is, as Karpenter leaves it: there is nothing to
// judge it against, and a deleting NodeClaim's condition says why it is going.
#pragma once

#include <string>
#include <vector>

#include "api/nodeclaim.h"
#include "api/nodepool.h"
#include "cloud/cloud_provider.h"
#include "cluster/cluster_api.h"
#include "controllers/controllers.h"
#include "core/clock.h"
#include "core/duration.h"
#include "core/status.h"
#include "runtime/controller.h"
#include "runtime/event_recorder.h"

namespace nodesmith::controllers {

inline constexpr const char* kConditionDrifted = "Drifted";
inline constexpr const char* kDriftReasonNodePoolDrifted = "NodePoolDrifted";
inline constexpr const char* kDriftReasonRequirementsDrifted = "RequirementsDrifted";

// Why the NodeClaim launched from `pool` is drifted, or "" when it is not. Does not look at
// the Launched condition or deletion; MarkDrift does.
std::string DriftReason(const api::NodeClaim& claim, const api::NodePool& pool,
                        const cloud::CloudProvider& cloud);

// What MarkDrift may do to a Drifted condition it finds no reason for.
enum class UnexplainedDrift {
  kClear,  // the controller's view: the cloud was asked, so no reason means no drift
  kKeep,   // a snapshot's view (`disrupt`): cloud-side drift cannot be re-derived, so it stays
};

// Sets Drifted=True (reason and message: the drift reason) on every drifted NodeClaim and,
// under kClear, removes the condition from every other one, writing only the NodeClaims that
// change. Errors only when an update fails (a stale NodeClaim is skipped: the next pass sees the
// new one). `recorder`, when given, logs each change.
core::Status MarkDrift(const core::Clock& clock, cluster::ClusterApi& cluster,
                       const cloud::CloudProvider& cloud,
                       runtime::EventRecorder* recorder = nullptr,
                       UnexplainedDrift unexplained = UnexplainedDrift::kClear);

struct DriftDetectionOptions {
  // Cloud-side drift (a retired instance type, a new AMI) changes nothing in the cluster, so
  // the controller also looks on a timer.
  core::Duration interval = std::chrono::seconds(30);
};

// The runtime's face of MarkDrift and MarkConsolidatable (consolidatable.h), as Karpenter's
// NodeClaim disruption controller keeps both conditions: runs them whenever a NodeClaim or
// NodePool changes, every `interval`, and at the moment the next NodeClaim turns
// consolidatable. Singleton. Not thread-safe.
class DriftDetection : public runtime::Controller {
 public:
  // REQUIRES: every reference outlives the controller.
  DriftDetection(const core::Clock& clock, cluster::ClusterApi& cluster,
                 const cloud::CloudProvider& cloud, runtime::EventRecorder& recorder,
                 DriftDetectionOptions options = {});

  std::string Name() const override { return kDriftDetectionName; }
  std::vector<cluster::Kind> Watches() const override {
    return {cluster::Kind::kNodeClaim, cluster::Kind::kNodePool};
  }
  bool Singleton() const override { return true; }
  core::Result<runtime::ReconcileResult> Reconcile(const runtime::Request& request) override;

 private:
  const core::Clock& clock_;
  cluster::ClusterApi& cluster_;
  const cloud::CloudProvider& cloud_;
  runtime::EventRecorder& recorder_;
  DriftDetectionOptions options_;
};

}  // namespace nodesmith::controllers
