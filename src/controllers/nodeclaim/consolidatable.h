// The Consolidatable condition of NodeClaims, as Karpenter's NodeClaim disruption controller
// keeps it: True (reason Consolidatable) once the NodePool's consolidateAfter has passed since
// the NodeClaim's last pod event (status.lastPodEventTime), or since it was initialized
// (Initialized's lastTransitionTime) when no pod event was seen. Absent while consolidateAfter
// has not passed, while the NodeClaim is not Initialized, and always under consolidateAfter
// Never. A NodeClaim being deleted, or without a NodePool (label or object), is left as it is.
// The condition is an observation for users and tools: the disruption methods measure
// consolidateAfter themselves (Candidate::last_activity).
#pragma once

#include <optional>

#include "cluster/cluster_api.h"
#include "core/clock.h"
#include "core/duration.h"
#include "core/status.h"

namespace nodesmith::controllers {

// Brings every NodeClaim's Consolidatable condition up to date (see above), writing only the
// NodeClaims that change (a NodeClaim changed or gone since the list is skipped: the next pass
// sees it). Returns how long until the next NodeClaim becomes consolidatable, nullopt when none
// is waiting. Errors only when an update fails otherwise.
core::Result<std::optional<core::Duration>> MarkConsolidatable(const core::Clock& clock,
                                                              cluster::ClusterApi& cluster);

}  // namespace nodesmith::controllers
