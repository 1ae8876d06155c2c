#include "controllers/disruption/budgets.h"

#include <algorithm>
#include <chrono>
#include <climits>
#include <map>
#include <stdexcept>

#include "api/node_status.h"
#include "cluster/disruption_budget.h"
#include "controllers/common/karpenter.h"
#include "core/cron_schedule.h"
#include "scheduling/taints.h"
#include "scheduling/well_known_labels.h"

namespace nodesmith::controllers {
namespace {

// What the budgets of one pool decide for one reason.
struct Verdict {
  int allowed = INT_MAX;
  int deciding = -1;  // index of the budget that set `allowed`; -1 when none did
  int broken = -1;    // index of the first misconfigured budget; -1 when none
  std::string error;  // why `broken` is misconfigured
  bool any_applicable = false;  // some budget applies to the reason, active or not
};

bool AppliesTo(const api::Budget& b, const std::string& reason) {
  return b.reasons.empty() ||
         std::find(b.reasons.begin(), b.reasons.end(), reason) != b.reasons.end();
}

// Karpenter evaluates every budget, whatever its reasons, so a broken one blocks them all.
Verdict Evaluate(const api::NodePool& pool, int total, const std::string& reason,
                 core::Time now) {
  Verdict v;
  const auto& budgets = pool.disruption.budgets;
  for (size_t i = 0; i < budgets.size(); ++i) {
    const api::Budget& b = budgets[i];
    int value = INT_MAX;  // inactive
    core::Status problem;
    core::Result<bool> active = BudgetActive(b, now);
    if (!active.ok()) {
      problem = active.status();
    } else if (*active) {
      core::Result<int> n = BudgetAllowance(b.nodes, total);
      if (n.ok()) {
        value = *n;
      } else {
        problem = n.status();
      }
    }
    if (!problem.ok()) {
      value = 0;
      if (v.broken < 0) {
        v.broken = static_cast<int>(i);
        v.error = problem.message();
      }
    }
    if (!AppliesTo(b, reason)) continue;
    v.any_applicable = true;
    if (value < v.allowed) {
      v.allowed = value;
      v.deciding = static_cast<int>(i);
    }
  }
  if (v.broken >= 0) v.allowed = 0;
  return v;
}

// "8h", "10m", "1h30m" as budgets are written; Go's form for anything finer.
std::string CompactDuration(core::Duration d) {
  using std::chrono::hours;
  using std::chrono::minutes;
  if (d <= core::Duration(0) || d % minutes(1) != core::Duration(0)) {
    return core::FormatDuration(d);
  }
  const auto h = std::chrono::duration_cast<hours>(d);
  const auto m = std::chrono::duration_cast<minutes>(d - h);
  std::string out;
  if (h.count() > 0) out += std::to_string(h.count()) + "h";
  if (m.count() > 0) out += std::to_string(m.count()) + "m";
  return out;
}

// `nodes=0 schedule="0 9 * * mon-fri" duration=8h reasons=Drifted`, with the pool size when
// `nodes` is a percentage.
std::string BudgetText(const api::Budget& b, int total) {
  std::string out = "nodes=" + b.nodes;
  if (!b.nodes.empty() && b.nodes.back() == '%') out += " of " + std::to_string(total) + " nodes";
  if (b.schedule) out += " schedule=\"" + *b.schedule + "\"";
  if (b.duration) out += " duration=" + CompactDuration(*b.duration);
  if (!b.reasons.empty()) {
    out += " reasons=";
    for (size_t i = 0; i < b.reasons.size(); ++i) out += (i ? "," : "") + b.reasons[i];
  }
  return out;
}

bool HasDisruptedTaint(const api::Node& node) {
  return std::any_of(node.spec.taints.begin(), node.spec.taints.end(), [](const api::Taint& t) {
    return t.key == scheduling::kTaintDisrupted && t.effect == scheduling::kTaintEffectNoSchedule;
  });
}

}  // namespace

core::Result<int> BudgetAllowance(const std::string& nodes, int total) {
  api::IntOrString v;
  if (!nodes.empty() && nodes.back() == '%') {
    v.is_string = true;
    v.str_value = nodes;
  } else {
    try {
      size_t used = 0;
      v.int_value = std::stoi(nodes, &used);
      if (used != nodes.size() || v.int_value < 0) throw std::invalid_argument(nodes);
    } catch (...) {
      return core::Status::Invalid("budget nodes \"" + nodes +
                                   "\" is neither an int nor a percentage");
    }
  }
  return cluster::ScaledValueFromIntOrPercent(v, total, /*round_up=*/true);
}

core::Result<bool> BudgetActive(const api::Budget& budget, core::Time now) {
  if (!budget.schedule) {
    if (budget.duration) return core::Status::Invalid("budget has a duration but no schedule");
    return true;
  }
  core::Result<core::CronSchedule> schedule = core::CronSchedule::Parse(*budget.schedule);
  if (!schedule.ok()) return schedule.status();
  const core::Duration window = budget.duration.value_or(core::Duration(0));
  // Karpenter asks for the first firing after now - duration and calls the budget active unless
  // that firing is after now; a schedule that never fires yields Go's zero time, never after now.
  if (!schedule->Next(now - window)) return true;
  return schedule->ActiveAt(now, window);
}

int AllowedDisruptions(const api::NodePool& pool, int total, const std::string& reason,
                       core::Time now) {
  return Evaluate(pool, total, reason, now).allowed;
}

std::string DescribeBudget(const api::NodePool& pool, int total, const std::string& reason,
                           core::Time now) {
  const Verdict v = Evaluate(pool, total, reason, now);
  std::string out = "nodepool " + pool.metadata.name + " allows ";
  out += v.allowed == INT_MAX ? "unlimited" : std::to_string(v.allowed);
  out += v.allowed == 1 ? " disruption" : " disruptions";
  out += " for reason " + reason + " now (";
  const auto& budgets = pool.disruption.budgets;
  if (v.broken >= 0) {
    out += "budget " + BudgetText(budgets[v.broken], total) + " is misconfigured: " + v.error +
           "; a misconfigured budget blocks every disruption of the pool";
  } else if (v.deciding >= 0) {
    out += "budget " + BudgetText(budgets[v.deciding], total);
  } else if (v.any_applicable) {
    out += "no budget for this reason is active";
  } else {
    out += "no budget applies to this reason";
  }
  return out + ")";
}

BudgetMapping BuildBudgetMapping(const cluster::ClusterApi& cluster, const std::string& reason,
                                 core::Time now) {
  std::map<std::string, int> total, disrupting;
  for (const auto& claim : cluster.List<api::NodeClaim>()) {
    auto pool = claim.metadata.labels.find(scheduling::kLabelNodePool);
    if (pool == claim.metadata.labels.end() || !claim.IsTrue(kConditionInitialized)) continue;
    // The instance is already going away: Karpenter no longer counts it either way.
    if (claim.IsTrue(kConditionInstanceTerminating)) continue;
    auto node = NodeForNodeClaim(cluster, claim);
    if (!node) continue;
    ++total[pool->second];
    if (!api::IsNodeReady(*node) || claim.metadata.deletion_timestamp ||
        node->metadata.deletion_timestamp || HasDisruptedTaint(*node)) {
      ++disrupting[pool->second];
    }
  }
  BudgetMapping out;
  for (const auto& pool : cluster.List<api::NodePool>()) {
    const std::string& name = pool.metadata.name;
    int allowed = AllowedDisruptions(pool, total[name], reason, now);
    out[name] = allowed == INT_MAX ? INT_MAX : std::max(0, allowed - disrupting[name]);
  }
  return out;
}

}  // namespace nodesmith::controllers
