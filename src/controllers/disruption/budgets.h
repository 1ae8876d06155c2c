// NodePool disruption budgets: how many of a pool's nodes may be disrupting at once, for one
// reason, now. Karpenter's rules: a budget applies to the reasons it lists (none listed: all);
// a budget with a `schedule` applies only while active, i.e. for `duration` after each firing
// of its cron schedule, in UTC (core/cron_schedule.h); `nodes` is an int or a percentage of the
// pool's nodes rounded up; the most restrictive applicable active budget wins; no such budget
// allows any number; nodes already disrupting count against it.
//
// Misconfiguration fails closed, as upstream: if any budget of the pool is broken (unparsable
// schedule, a duration without a schedule, or unparsable `nodes` while active), the pool allows
// 0 disruptions for every reason, whichever budget is broken.
//
// All functions are pure: the caller passes `now` (the controller's clock).
#pragma once

#include <string>

#include "api/nodepool.h"
#include "cluster/cluster_api.h"
#include "controllers/disruption/types.h"
#include "core/status.h"
#include "core/time.h"

namespace nodesmith::controllers {

// The nodes a budget allows disrupted at once out of `total`: an int, or "N%" rounded up.
// InvalidArgument for anything else.
core::Result<int> BudgetAllowance(const std::string& nodes, int total);

// Whether the budget is in force at `now`: always without a schedule; with one, when some
// firing f has f <= now < f + duration (no duration: never). A schedule that never fires
// ("0 0 30 2 *") counts as always active, as in Karpenter, whose next-firing time is then the
// zero time, which is never after now. InvalidArgument for an unparsable schedule or a duration
// without a schedule.
core::Result<bool> BudgetActive(const api::Budget& budget, core::Time now);

// The NodePool's allowed disruptions for `reason` at `now` given `total` managed initialized
// nodes: the minimum over its active budgets that apply to the reason; INT_MAX when none does;
// 0 when any budget is misconfigured.
int AllowedDisruptions(const api::NodePool& pool, int total, const std::string& reason,
                       core::Time now);

// One sentence explaining AllowedDisruptions for dry-run output, naming the budget that decides
// it, e.g. `nodepool default allows 0 disruptions for reason Underutilized now (budget nodes=0
// schedule="0 9 * * mon-fri" duration=8h)`.
std::string DescribeBudget(const api::NodePool& pool, int total, const std::string& reason,
                           core::Time now);

// Per NodePool: AllowedDisruptions minus the nodes already disrupting, never below 0. The total
// counts the pool's NodeClaims that are initialized and have a Node, leaving out those whose
// instance is already terminating; disrupting are those whose Node is not Ready, whose NodeClaim
// or Node is being deleted, or whose Node carries karpenter.sh/disrupted:NoSchedule (a
// disruption command is in progress on it).
BudgetMapping BuildBudgetMapping(const cluster::ClusterApi& cluster, const std::string& reason,
                                 core::Time now);

}  // namespace nodesmith::controllers
