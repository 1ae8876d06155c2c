// Which DaemonSet pods would run on a node, and so take a share of it before any pending pod
// does: per NodePool and instance type for the nodes a NodePool would launch (Karpenter's
// buildDaemonOverheadGroups / isDaemonPodCompatible), and for a node that exists.
//
// A DaemonSet pod counts on a NodePool's instance type when
//   - it tolerates the NodePool's taints, PreferNoSchedule ones aside (a preference never keeps
//     a DaemonSet's pod off a node);
//   - some term of its required node affinity (nodeSelector included; the terms are ORed, and
//     preferences do not count) is compatible with the NodePool's requirements and intersects
//     the instance type's. Labels the instance type does not define do not rule it out: the
//     NodePool's requirements decide those.
// Instance types on which the same DaemonSets run share one group: its overhead is what those
// pods request (one pod each, `pods: 1` included), its host ports those they expose.
#pragma once

#include <vector>

#include "api/pod.h"
#include "api/resource_list.h"
#include "cloud/instance_type.h"
#include "scheduling/requirements.h"
#include "solver/host_ports.h"

namespace nodesmith::solver {

// The DaemonSet pods that would run on a node of some instance types, and what they take.
struct DaemonOverheadGroup {
  std::vector<int> daemon_pods;   // indices into the DaemonSet pods, ascending
  api::ResourceList overhead;     // their requests summed, with one pod each
  std::vector<HostPort> host_ports;
};

// A NodePool's groups. group_of[i] is the group of types[i]; groups are in order of first use,
// so a NodePool whose DaemonSets run everywhere has exactly one.
struct DaemonOverheadGroups {
  std::vector<DaemonOverheadGroup> groups;
  std::vector<int> group_of;
};

// The strict requirements of each required node-affinity term of `pod`, its nodeSelector added
// to each; one entry (the nodeSelector alone) when it has no required terms.
std::vector<scheduling::Requirements> RequiredTermRequirements(const api::Pod& pod);

// Groups `types` by the DaemonSet pods (`daemon_pods`) that would run on them when a NodePool
// with `requirements` and `taints` launches them.
DaemonOverheadGroups GroupDaemonOverhead(const scheduling::Requirements& requirements,
                                         const std::vector<api::Taint>& taints,
                                         const std::vector<const cloud::InstanceType*>& types,
                                         const std::vector<api::Pod>& daemon_pods,
                                         const scheduling::CompatibilityOptions& allow);

// Whether the DaemonSet pod would run on an existing node with these labels (hostname
// included) and taints: it tolerates the taints, PreferNoSchedule ones aside, and some required
// term matches the labels.
bool DaemonPodRunsOnNode(const api::Pod& daemon_pod, const scheduling::Requirements& node_labels,
                         const std::vector<api::Taint>& taints);

}  // namespace nodesmith::solver
