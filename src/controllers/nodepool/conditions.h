// A NodePool's status conditions, as Karpenter keeps them (its condition set over the NodePool):
// the root condition Ready summarises the dependents ValidationSucceeded and NodeClassReady.
//
//   - Every write first gives each of Ready and the dependents that is missing the status
//     Unknown, reason AwaitingReconciliation (its lastTransitionTime: the NodePool's
//     creationTimestamp), so a new NodePool reads "not known yet" rather than "absent".
//   - Each condition written carries observedGeneration = metadata.generation; its
//     lastTransitionTime moves only when its status does.
//   - After a dependent changes, Ready is recomputed: True (reason Ready) when every dependent
//     is True at the current generation; else False (UnhealthyDependents) when one is False at
//     the current generation, else Unknown (ReconcilingDependents); the message lists the
//     unhealthy dependents, most recent transition first ("NodeClassReady=False, ...").
//   - The list is kept in transition order with Ready last.
// NodeRegistrationHealthy is a NodePool condition too but, as upstream, not a dependent of Ready.
#pragma once

#include <string>

#include "api/nodepool.h"
#include "cluster/cluster_api.h"
#include "core/status.h"
#include "core/time.h"

namespace nodesmith::controllers {

inline constexpr const char* kConditionReady = api::kNodePoolConditionReady;
inline constexpr const char* kConditionValidationSucceeded = "ValidationSucceeded";
inline constexpr const char* kConditionNodeClassReady = "NodeClassReady";
inline constexpr const char* kConditionNodeRegistrationHealthy = "NodeRegistrationHealthy";

// Sets the dependent condition `type` of `pool` (see above) at `now`. Returns true when any
// condition changed. REQUIRES: `type` is ValidationSucceeded or NodeClassReady.
bool SetNodePoolCondition(api::NodePool& pool, const std::string& type, const std::string& status,
                          const std::string& reason, const std::string& message, core::Time now);

// Writes `pool` (a copy read from `cluster`, with its status changed). A NodePool deleted or
// changed since it was read is left alone: the watch brings the new version to the next
// reconcile. Other errors are returned, prefixed with `what`.
core::Status WriteNodePool(cluster::ClusterApi& cluster, const api::NodePool& pool,
                           const std::string& what);

}  // namespace nodesmith::controllers
