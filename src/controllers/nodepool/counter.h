// NodePoolCounter: keeps each NodePool's status.resources and status.nodes, as Karpenter's
// nodepool counter controller reads them from its cluster state.
//
// The cluster's nodes are NodeClaims with a providerID and Nodes, paired by providerID (a
// Node without one stands for itself unless it carries the karpenter.sh/nodepool label; a
// labelled Node not yet initialized is left out until it has an instance-type label). Each
// such node counts towards the NodePool named by its karpenter.sh/nodepool label (the Node's
// once it is registered, else the NodeClaim's) with:
//   - its capacity: the Node's status.capacity once initialized (karpenter.sh/initialized on
//     the Node) or when it has no NodeClaim; before that the Node's capacity with every zero or
//     missing entry taken from the NodeClaim's status.capacity, or the NodeClaim's alone while
//     there is no Node;
//   - and nodes: 1;
// unless it is being deleted (its NodeClaim has a deletionTimestamp or InstanceTerminating=True,
// or a Node without NodeClaim has a deletionTimestamp) or is a candidate of a disruption in
// flight (its NodeClaim carries DisruptionReason, which the orchestration queue sets while
// upstream marks the node for deletion). status.resources always lists cpu, memory, pods,
// ephemeral-storage and nodes (zero when nothing counts) and whatever else the nodes have;
// status.nodes is the nodes entry. Runs on every NodePool, NodeClaim or Node change and writes
// only NodePools whose counts changed. Singleton. Not thread-safe.
#pragma once

#include <map>
#include <string>
#include <vector>

#include "api/resource_list.h"
#include "cluster/cluster_api.h"
#include "controllers/controllers.h"
#include "runtime/controller.h"

namespace nodesmith::controllers {

inline constexpr const char* kResourceNodes = api::kResourceNodes;

// What each NodePool's nodes add up to (see above), by NodePool name. NodePools without
// nodes are absent.
std::map<std::string, api::ResourceList> NodePoolResources(const cluster::ClusterApi& cluster);

class NodePoolCounter : public runtime::Controller {
 public:
  // REQUIRES: `cluster` outlives the controller.
  explicit NodePoolCounter(cluster::ClusterApi& cluster);

  std::string Name() const override { return kNodePoolCounterName; }
  std::vector<cluster::Kind> Watches() const override {
    return {cluster::Kind::kNodePool, cluster::Kind::kNodeClaim, cluster::Kind::kNode};
  }
  bool Singleton() const override { return true; }
  core::Result<runtime::ReconcileResult> Reconcile(const runtime::Request& request) override;

 private:
  cluster::ClusterApi& cluster_;
};

}  // namespace nodesmith::controllers
