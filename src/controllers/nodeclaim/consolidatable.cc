#include "controllers/nodeclaim/consolidatable.h"

#include <algorithm>
#include <map>
#include <string>
#include <vector>

#include "api/conditions.h"
#include "api/nodeclaim.h"
#include "api/nodepool.h"
#include "controllers/common/karpenter.h"
#include "scheduling/well_known_labels.h"

namespace nodesmith::controllers {

core::Result<std::optional<core::Duration>> MarkConsolidatable(const core::Clock& clock,
                                                              cluster::ClusterApi& cluster) {
  std::map<std::string, core::NillableDuration> consolidate_after;
  for (const auto& p : cluster.List<api::NodePool>()) {
    consolidate_after.emplace(p.metadata.name, p.disruption.consolidate_after);
  }
  const core::Time now = clock.Now();
  std::optional<core::Duration> next;
  // Read in place and copied only to be written, the writes in list order after the reads (as
  // drift_detection.cc does): nearly every run changes nothing.
  std::vector<api::NodeClaim> writes;
  cluster.ForEachObject(cluster::Kind::kNodeClaim, [&](const cluster::Object& o) {
    const auto& claim = std::get<api::NodeClaim>(o);
    if (claim.metadata.deletion_timestamp) return;
    auto label = claim.metadata.labels.find(scheduling::kLabelNodePool);
    if (label == claim.metadata.labels.end()) return;
    auto after = consolidate_after.find(label->second);
    if (after == consolidate_after.end()) return;

    const api::Condition* initialized = claim.FindCondition(kConditionInitialized);
    bool consolidatable = false;
    if (!after->second.never() && initialized != nullptr && initialized->status == "True") {
      const core::Time since = claim.status.last_pod_event_time.value_or(
          initialized->last_transition_time.value_or(now));
      const core::Time at = since + *after->second.value;
      consolidatable = now >= at;
      if (!consolidatable) next = std::min(next.value_or(at - now), at - now);
    }
    std::vector<api::Condition> conditions = claim.status.conditions;
    const bool changed =
        consolidatable
            ? api::SetCondition(conditions, kConditionConsolidatable, "True",
                                kConditionConsolidatable, now, "", claim.metadata.generation)
            : api::ClearCondition(conditions, kConditionConsolidatable);
    if (!changed) return;
    writes.push_back(claim);
    writes.back().status.conditions = std::move(conditions);
  });
  for (const api::NodeClaim& claim : writes) {
    auto updated = cluster.Update(claim);
    if (!updated.ok()) {
      if (updated.status().code() == core::StatusCode::kNotFound ||
          cluster::IsConflict(updated.status())) {
        continue;
      }
      return updated.status().WithPrefix("marking nodeclaim " + claim.metadata.name +
                                         " consolidatable");
    }
  }
  return next;
}

}  // namespace nodesmith::controllers
