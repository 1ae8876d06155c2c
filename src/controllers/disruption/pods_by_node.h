// PodsByNode: the pods bound to each node and the pods bound to none, kept up to date from the
// cluster's pod watch, as Karpenter's cluster state tracks pods per node from its informers.
//
// The disruption controller builds its candidates every poll (10 s). Scanning every pod of the
// cluster for that made a simulated day cost (pods x polls); with this index a poll reads what
// changed since the last one and the per-node sums it already has.
//
// Invariants: after every stored change the index holds exactly the cluster's pods (deleted
// pods leave it at once), each under its spec.nodeName, in (namespace, name) order — the order
// ClusterApi lists them in, so sums over a node's pods add up in the same order as a scan.
// A node's Summary is recomputed only after one of its pods changed.
// Not thread-safe. REQUIRES: the cluster outlives the index; it is created before the changes it
// must see (it reads the pods already there when constructed).
#pragma once

#include <map>
#include <memory>
#include <string>
#include <utility>
#include <vector>

#include "cluster/cluster_api.h"

namespace nodesmith::controllers {

class PodsByNode {
 public:
  using Key = std::pair<std::string, std::string>;  // (namespace, name)
  using Pods = std::map<Key, std::shared_ptr<const cluster::Object>>;

  // What disruption reads of a node's reschedulable pods (candidates.h IsReschedulable), in
  // (namespace, name) order. Nothing here depends on the time or on other objects.
  struct Summary {
    std::vector<std::string> keys;  // "namespace/name"
    double eviction_cost = 0;       // sum of EvictionCost
    double positive_eviction_cost = 0;
    // Some pod carries karpenter.sh/do-not-disrupt: whether it blocks depends on the time.
    bool any_do_not_disrupt = false;
  };

  explicit PodsByNode(cluster::ClusterApi& cluster);
  PodsByNode(const PodsByNode&) = delete;
  PodsByNode& operator=(const PodsByNode&) = delete;

  // Every pod bound to `node`; null when there is none.
  const Pods* PodsOn(const std::string& node) const;
  // The summary of `node`'s reschedulable pods; null when it has no pods at all.
  const Summary* SummaryOf(const std::string& node) const;
  // Pods with no spec.nodeName, active or not, in (namespace, name) order.
  const Pods& Unbound() const { return unbound_; }

 private:
  struct NodeEntry {
    Pods pods;
    mutable Summary summary;
    mutable bool dirty = true;
  };

  void Put(std::shared_ptr<const cluster::Object> object);
  void Remove(const Key& key);

  std::map<std::string, NodeEntry> nodes_;
  Pods unbound_;
  std::map<Key, std::string> node_of_;  // every bound pod -> its node
};

}  // namespace nodesmith::controllers
