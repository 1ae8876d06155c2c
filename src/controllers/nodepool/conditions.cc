#include "controllers/nodepool/conditions.h"

#include <algorithm>
#include <vector>

#include "api/conditions.h"

namespace nodesmith::controllers {
namespace {

constexpr const char* kDependents[] = {kConditionValidationSucceeded, kConditionNodeClassReady};

core::Time TransitionOf(const api::Condition& c) {
  return c.last_transition_time.value_or(core::Time::FromUnixSeconds(0));
}

// One condition of the set, without recomputing Ready. A condition new to the list dates from
// the NodePool's creation, as every condition of the set is taken to have existed since then.
bool Put(api::NodePool& pool, const std::string& type, const std::string& status,
         const std::string& reason, const std::string& message, core::Time now) {
  const core::Time when = api::FindCondition(pool.conditions, type) != nullptr
                              ? now
                              : pool.metadata.creation_timestamp.value_or(now);
  if (!api::SetCondition(pool.conditions, type, status, reason, when, message,
                         pool.metadata.generation)) {
    return false;
  }
  std::stable_sort(pool.conditions.begin(), pool.conditions.end(),
                   [](const api::Condition& a, const api::Condition& b) {
                     if (a.type == kConditionReady || b.type == kConditionReady) {
                       return b.type == kConditionReady && a.type != kConditionReady;
                     }
                     return TransitionOf(a) < TransitionOf(b);
                   });
  return true;
}

bool RecomputeReady(api::NodePool& pool, core::Time now) {
  const int64_t generation = pool.metadata.generation;
  std::vector<api::Condition> unhealthy;
  for (const char* type : kDependents) {
    const api::Condition* c = api::FindCondition(pool.conditions, type);
    if (c != nullptr && (c->status != "True" || c->observed_generation != generation)) {
      unhealthy.push_back(*c);
    }
  }
  if (unhealthy.empty()) return Put(pool, kConditionReady, "True", kConditionReady, "", now);
  std::stable_sort(unhealthy.begin(), unhealthy.end(),
                   [](const api::Condition& a, const api::Condition& b) {
                     return TransitionOf(a) > TransitionOf(b);
                   });
  const bool failed = std::any_of(unhealthy.begin(), unhealthy.end(), [&](const api::Condition& c) {
    return c.status == "False" && c.observed_generation == generation;
  });
  std::string message;
  for (const auto& c : unhealthy) {
    message += (message.empty() ? "" : ", ") + c.type + "=" + c.status;
  }
  return Put(pool, kConditionReady, failed ? "False" : "Unknown",
             failed ? "UnhealthyDependents" : "ReconcilingDependents", message, now);
}

bool SetWithReady(api::NodePool& pool, const std::string& type, const std::string& status,
                  const std::string& reason, const std::string& message, core::Time now) {
  bool changed = Put(pool, type, status, reason, message, now);
  if (type != kConditionReady) changed = RecomputeReady(pool, now) || changed;
  return changed;
}

}  // namespace

bool SetNodePoolCondition(api::NodePool& pool, const std::string& type, const std::string& status,
                          const std::string& reason, const std::string& message, core::Time now) {
  bool changed = false;
  for (const char* t : {kConditionReady, kDependents[0], kDependents[1]}) {
    if (api::FindCondition(pool.conditions, t) != nullptr) continue;
    changed = SetWithReady(pool, t, "Unknown", "AwaitingReconciliation",
                           "object is awaiting reconciliation", now) ||
              changed;
  }
  return SetWithReady(pool, type, status, reason, message, now) || changed;
}

core::Status WriteNodePool(cluster::ClusterApi& cluster, const api::NodePool& pool,
                           const std::string& what) {
  auto updated = cluster.Update(pool);
  if (updated.ok()) return core::Status::Ok();
  if (updated.status().code() == core::StatusCode::kNotFound ||
      cluster::IsConflict(updated.status())) {
    return core::Status::Ok();
  }
  return updated.status().WithPrefix(what + " of nodepool " + pool.metadata.name);
}

}  // namespace nodesmith::controllers
