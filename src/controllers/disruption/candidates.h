// Building disruption candidates and the budgets that bound them, from the cluster as it is now.
#pragma once

#include <cstdint>
#include <optional>
#include <string>
#include <vector>

#include "api/nodepool.h"
#include "cloud/cloud_provider.h"
#include "cluster/cluster_api.h"
#include "controllers/common/nominations.h"
#include "controllers/disruption/types.h"
#include "core/clock.h"

namespace nodesmith::controllers {

// Every node nodesmith could disrupt now, sorted by disruption cost (then name): it has a
// NodeClaim and NodePool, is Initialized, neither it nor its NodeClaim is being deleted, no
// disruption command is in progress on it (karpenter.sh/disrupted taint), and no pending pod is
// nominated to it (by NodeClaim or Node name, when `nominations` is given). Nodes left out are
// appended to `excluded` with the reason, when given.
//
// A candidate is still returned, with Candidate::blocked set, when graceful methods must leave it
// alone: karpenter.sh/do-not-disrupt on its Node or NodeClaim ("true", or a duration from its
// creation) or on one of its reschedulable pods ("true", or a duration from the pod's start);
// a pod whose eviction a PodDisruptionBudget forbids now (no disruptions allowed, or several
// PDBs match it). Prices come from the cloud's instance types for the pool.
// With `index` (pods_by_node.h, kept from the same cluster's watch) the pods are read from it
// instead of a scan of every pod; without one, a store that indexes pods by node
// (ClusterApi::IndexesPodsByNode, as KubeCluster's informers) is asked for each candidate's pods.
// The candidates are the same either way.
class PodsByNode;
std::vector<Candidate> BuildCandidates(const core::Clock& clock, const cluster::ClusterApi& cluster,
                                       const cloud::CloudProvider& cloud,
                                       const Nominations* nominations = nullptr,
                                       std::vector<BlockedNode>* excluded = nullptr,
                                       const PodsByNode* index = nullptr);

// When karpenter.sh/do-not-disrupt on `meta` stops protecting it: nullopt when it is absent or
// neither "true" nor a duration (no protection), kForever for "true", else `since` + duration.
inline constexpr core::Time kForever{INT64_MAX};
std::optional<core::Time> DoNotDisruptUntil(const api::ObjectMeta& meta, core::Time since);

// A pod that would have to be rescheduled if its node went away (pkg/utils/pod IsReschedulable):
// active, or terminating and a StatefulSet's (its successor cannot start until it is gone, so it
// is planned for); and neither a DaemonSet's nor a static (mirror) pod. A node whose only pods
// are terminating ReplicaSet pods is therefore empty.
bool IsReschedulable(const api::Pod& pod);

// Karpenter's eviction cost of one pod: 1, plus the controller.kubernetes.io/pod-deletion-cost
// annotation / 2^27, plus priority / 2^25, clamped to [-10, 10].
double EvictionCost(const api::Pod& pod);

}  // namespace nodesmith::controllers
