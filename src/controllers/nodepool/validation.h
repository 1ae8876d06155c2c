// NodePoolValidation: keeps each NodePool's ValidationSucceeded condition, as Karpenter's
// nodepool validation controller. True when the NodePool passes api::ValidateNodePool (the
// rules of the NodePool CRD, checked again at run time for objects that never went through an
// API server: files, the simulator); else False, reason NodePoolValidationFailed, the first
// violation as message. Writes only when a condition changes (conditions.h). Per NodePool. Not
// thread-safe.
#pragma once

#include <string>
#include <vector>

#include "cluster/cluster_api.h"
#include "controllers/controllers.h"
#include "core/clock.h"
#include "runtime/controller.h"

namespace nodesmith::controllers {

inline constexpr const char* kReasonNodePoolValidationFailed = "NodePoolValidationFailed";

class NodePoolValidation : public runtime::Controller {
 public:
  // REQUIRES: every reference outlives the controller.
  NodePoolValidation(const core::Clock& clock, cluster::ClusterApi& cluster);

  std::string Name() const override { return kNodePoolValidationName; }
  std::vector<cluster::Kind> Watches() const override { return {cluster::Kind::kNodePool}; }
  bool Singleton() const override { return false; }
  core::Result<runtime::ReconcileResult> Reconcile(const runtime::Request& request) override;

 private:
  const core::Clock& clock_;
  cluster::ClusterApi& cluster_;
};

}  // namespace nodesmith::controllers
