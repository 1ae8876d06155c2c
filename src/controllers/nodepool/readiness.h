// NodePoolReadiness: keeps each NodePool's NodeClassReady condition (and so Ready), as
// Karpenter's nodepool readiness controller, from the node class its template references:
//   EC2NodeClass (karpenter.k8s.aws)   missing: False, NodeClassNotFound; being deleted: False,
//                                      NodeClassTerminating; its Ready condition True: True;
//                                      False: False with its reason and message; Unknown or
//                                      absent: False, NodeClassReadinessUnknown;
//   KWOKNodeClass (karpenter.kwok.sh)  True: the kwok provider's node class is Ready from
//                                      creation (its CRD defaults the condition) and nodesmith
//                                      keeps no such objects to look at;
//   any other kind                     left alone, as upstream leaves unsupported classes.
// Runs on every NodePool or EC2NodeClass change; writes only NodePools whose conditions change
// (conditions.h). Singleton. Not thread-safe.
#pragma once

#include <string>
#include <vector>

#include "api/nodepool.h"
#include "cluster/cluster_api.h"
#include "controllers/controllers.h"
#include "core/clock.h"
#include "runtime/controller.h"

namespace nodesmith::controllers {

inline constexpr const char* kReasonNodeClassNotFound = "NodeClassNotFound";
inline constexpr const char* kReasonNodeClassTerminating = "NodeClassTerminating";
inline constexpr const char* kReasonNodeClassReadinessUnknown = "NodeClassReadinessUnknown";

class NodePoolReadiness : public runtime::Controller {
 public:
  // REQUIRES: every reference outlives the controller.
  NodePoolReadiness(const core::Clock& clock, cluster::ClusterApi& cluster);

  std::string Name() const override { return kNodePoolReadinessName; }
  std::vector<cluster::Kind> Watches() const override {
    return {cluster::Kind::kNodePool, cluster::Kind::kEC2NodeClass};
  }
  bool Singleton() const override { return true; }
  core::Result<runtime::ReconcileResult> Reconcile(const runtime::Request& request) override;

 private:
  // Sets NodeClassReady on `pool`; true when anything changed.
  core::Result<bool> Update(api::NodePool& pool) const;

  const core::Clock& clock_;
  cluster::ClusterApi& cluster_;
};

}  // namespace nodesmith::controllers
