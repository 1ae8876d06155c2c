// Preferences: soft scheduling constraints and how they are relaxed, as Karpenter's
// preferences.go. When a pod fails to schedule, the scheduler calls Relax(pod) and retries,
// until Relax has nothing left to drop. Each call drops exactly one thing, in this order:
//   1. a required node-affinity term, while more than one remains (terms are ORed: the next
//      term is tried),
//   2. the heaviest preferred pod-affinity term,
//   3. the heaviest preferred pod anti-affinity term,
//   4. the heaviest preferred node-affinity term,
//   5. a ScheduleAnyway topology spread constraint,
//   6. finally (only when enabled) adds a toleration for every PreferNoSchedule taint.
// After a successful Relax, the caller rebuilds the pod's requirements and calls
// Topology::Update(pod). Stateless apart from the option; copy freely.
#pragma once

#include <optional>
#include <string>
#include <vector>

#include "api/nodepool.h"
#include "api/pod.h"

namespace nodesmith::solver {

class Preferences {
 public:
  // `tolerate_prefer_no_schedule`: whether step 6 is allowed; see ToleratePreferNoSchedule().
  explicit Preferences(bool tolerate_prefer_no_schedule = false)
      : tolerate_prefer_no_schedule_(tolerate_prefer_no_schedule) {}

  // Relaxes one soft constraint of `pod` in place. Returns what was done ("removing:
  // spec.affinity.podAffinity.preferredDuringSchedulingIgnoredDuringExecution[0]=..."), or
  // nullopt when nothing is left to relax (the pod is unchanged).
  std::optional<std::string> Relax(api::Pod& pod) const;

 private:
  bool tolerate_prefer_no_schedule_;
};

// True when any NodePool's template taints include a PreferNoSchedule taint: only then does
// tolerating PreferNoSchedule help (Karpenter enables step 6 in that case).
bool ToleratePreferNoSchedule(const std::vector<const api::NodePool*>& node_pools);

// --preference-policy Ignore: removes every preference from `pod` up front (preferred node
// affinity, preferred pod affinity and anti-affinity, ScheduleAnyway spread constraints).
void StripPreferences(api::Pod& pod);

}  // namespace nodesmith::solver
