// Building disruption candidates and the budgets that bound them, from the cluster as it is now.
#pragma once

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
// NodeClaim and NodePool, is Initialized, neither it nor its NodeClaim is being deleted, and
// neither carries karpenter.sh/do-not-disrupt=true; none of its reschedulable pods carries it.
// Nodes that pending pods are nominated to (by NodeClaim or Node name, when `nominations` is
// given) are left out. Prices come from the cloud's instance types for the pool.
std::vector<Candidate> BuildCandidates(const core::Clock& clock, const cluster::ClusterApi& cluster,
                                       const cloud::CloudProvider& cloud,
                                       const Nominations* nominations = nullptr);

// A pod that would have to be rescheduled if its node went away: not terminal, not a
// DaemonSet's, not a static (mirror) pod.
bool IsReschedulable(const api::Pod& pod);

// Karpenter's eviction cost of one pod: 1, plus the controller.kubernetes.io/pod-deletion-cost
// annotation / 2^27, plus priority / 2^25, clamped to [-10, 10].
double EvictionCost(const api::Pod& pod);

// The nodes a budget allows disrupted at once out of `total`: an int, or "N%" rounded up.
// InvalidArgument for anything else.
core::Result<int> BudgetAllowance(const std::string& nodes, int total);

// The NodePool's allowed disruptions for `reason` given `total` managed initialized nodes: the
// minimum over its budgets that apply to the reason (no reasons listed: all). Budgets with a cron
// schedule are not evaluated yet and are skipped; no applicable budget allows any number. An
// unparsable budget fails closed (0).
int AllowedDisruptions(const api::NodePool& pool, int total, const std::string& reason);

// Per NodePool: AllowedDisruptions minus the nodes already disrupting (not Ready, or being
// deleted), never below 0.
BudgetMapping BuildBudgetMapping(const cluster::ClusterApi& cluster, const std::string& reason);

}  // namespace nodesmith::controllers
