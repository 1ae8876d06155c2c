// NodePoolHashController: stamps each NodePool with karpenter.sh/nodepool-hash (NodePoolHash of
// its template) and karpenter.sh/nodepool-hash-version (kNodePoolHashVersion), as Karpenter's
// nodepool hash controller; drift detection compares the NodeClaims' stamps with them.
//
// When the NodePool's hash version is not the current one (a NodePool new to nodesmith, or
// stamped by another hash scheme), its NodeClaims (karpenter.sh/nodepool label) from another
// hash version are moved to the current one first: they get the current hash version and,
// unless they are already Drifted (whose drift the old hash can no longer confirm nor clear),
// the NodePool's current hash, so a change of hashing scheme is not taken for drift. Writes
// only what changes. Per NodePool. Not thread-safe.
#pragma once

#include <string>
#include <vector>

#include "api/nodepool.h"
#include "cluster/cluster_api.h"
#include "controllers/controllers.h"
#include "core/status.h"
#include "runtime/controller.h"

namespace nodesmith::controllers {

class NodePoolHashController : public runtime::Controller {
 public:
  // REQUIRES: `cluster` outlives the controller.
  explicit NodePoolHashController(cluster::ClusterApi& cluster);

  std::string Name() const override { return kNodePoolHashName; }
  std::vector<cluster::Kind> Watches() const override { return {cluster::Kind::kNodePool}; }
  bool Singleton() const override { return false; }
  core::Result<runtime::ReconcileResult> Reconcile(const runtime::Request& request) override;

 private:
  core::Status RestampNodeClaims(const api::NodePool& pool, const std::string& hash);

  cluster::ClusterApi& cluster_;
};

}  // namespace nodesmith::controllers
