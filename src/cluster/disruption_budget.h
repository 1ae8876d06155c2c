// PodDisruptionBudget arithmetic, as the disruption controller computes a PDB's status and as
// the Eviction API (policy/v1) uses it to admit or refuse an eviction.
//
// Status (k8s.io/kubernetes/pkg/controller/disruption):
//  - pods: the PDB's namespace, matching its selector (terminating and finished pods included);
//  - maxUnavailable (int or "N%" of the expected count, rounded up): expected = the summed scale
//    of the pods' controllers (a ReplicaSet owned by a Deployment counts as the Deployment);
//    desiredHealthy = max(0, expected - maxUnavailable);
//  - minAvailable int: expected = number of pods, desiredHealthy = the int;
//  - minAvailable "N%": expected as for maxUnavailable, desiredHealthy = ceil(N% of expected);
//  - currentHealthy = pods not terminating whose Ready condition is True;
//  - disruptionsAllowed = currentHealthy - desiredHealthy, or 0 when that is negative or
//    expected is 0. A pod whose controller cannot be found (or has no scale, e.g. a Job) makes
//    the status uncomputable; the controller then fails safe with disruptionsAllowed 0.
// Pods without a controller are left out of `expected` (upstream logs them and carries on).
#pragma once

#include <string>
#include <vector>

#include "api/pod.h"
#include "api/pod_status.h"
#include "api/policy.h"
#include "cluster/cluster_api.h"
#include "core/status.h"

namespace nodesmith::cluster {

struct DisruptionBudgetStatus {
  int expected_pods = 0;
  int desired_healthy = 0;
  int current_healthy = 0;
  int disruptions_allowed = 0;
  std::string error;  // non-empty when the status could not be computed (then 0 allowed)
};

// The status the disruption controller would write for `pdb` now. Walks every pod.
DisruptionBudgetStatus ComputeDisruptionBudgetStatus(const ClusterApi& cluster,
                                                     const api::PodDisruptionBudget& pdb);
// The statuses of several PDBs (in `pdbs` order) from one walk over the pods, where asking
// ComputeDisruptionBudgetStatus for each would walk them once a PDB.
std::vector<DisruptionBudgetStatus> ComputeDisruptionBudgetStatuses(
    const ClusterApi& cluster, const std::vector<const api::PodDisruptionBudget*>& pdbs);

// The PDBs the Eviction API applies to `pod`: same namespace, a valid non-empty selector that
// matches the pod's labels (a nil or empty selector guards nothing here). In list order.
std::vector<api::PodDisruptionBudget> DisruptionBudgetsFor(const ClusterApi& cluster,
                                                           const api::Pod& pod);

// The Eviction API's verdict for `pod` (pkg/registry/core/pod/storage/eviction.go): OK when it
// may be deleted now; Unavailable ("Cannot evict pod as it would violate the pod's disruption
// budget.", HTTP 429 upstream) when its PDB allows no disruption; Internal when more than one
// PDB guards it. Finished, pending and terminating pods skip the PDB check; a pod that is not
// Ready may go when the budget is met (IfHealthyBudget, the default) or always (AlwaysAllow).
core::Status CheckEviction(const ClusterApi& cluster, const api::Pod& pod);

// The pod's Ready condition is True (podutil.IsPodReady): what the eviction rules count as a
// healthy pod. Defined in api/pod_status.h; named here for the callers of the eviction rules.
using api::IsPodReady;

// intstr.GetScaledValueFromIntOrPercent: an int as is; "N%" as N% of `total`, rounded up or
// down; any other string is an error.
core::Result<int> ScaledValueFromIntOrPercent(const api::IntOrString& value, int total,
                                              bool round_up);

}  // namespace nodesmith::cluster
