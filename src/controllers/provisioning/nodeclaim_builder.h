// BuildNodeClaim: the karpenter.sh/v1 NodeClaim a planned new NodeClaim (solver::NewNodeClaim)
// becomes when it is created from its NodePool, as Karpenter's NodeClaimTemplate.ToNodeClaim.
// The provisioner creates what it plans with it, and the disruption queue its replacements, so
// both launch identical NodeClaims from the same plan.
//
// The result has:
//   - generateName "<pool>-"; labels: the pool template's, then the plan's, then
//     karpenter.sh/nodepool; annotations: the template's plus the nodepool hash (and its version)
//     drift compares against;
//   - the karpenter.sh/termination finalizer and an owner reference to the NodePool;
//   - requirements: the plan's, with node.kubernetes.io/instance-type replaced by the plan's
//     instance type options (cheapest first), last;
//   - resource requests from the plan; taints, startup taints, nodeClassRef, expireAfter and
//     terminationGracePeriod from the template.
// Pure: no cluster access.
#pragma once

#include "api/nodeclaim.h"
#include "api/nodepool.h"
#include "solver/results.h"

namespace nodesmith::controllers {

// REQUIRES: planned.node_pool names `pool`.
api::NodeClaim BuildNodeClaim(const solver::NewNodeClaim& planned, const api::NodePool& pool);

}  // namespace nodesmith::controllers
