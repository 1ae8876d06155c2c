// Snapshot: the immutable input of one provisioning solve, built once from the objects a
// command loaded (api::ObjectSet) and the instance types of the catalog.
//
// It answers the questions the scheduler would otherwise ask a cluster mid-solve: which pods
// are pending, which nodes exist and what is bound to them, which NodeClaims are still being
// launched (no Node yet), which NodePools may launch nodes (Ready, highest weight first, then name),
// which DaemonSets add pods to new nodes, and where volumes pin pods. Iteration orders are fixed
// here so every later output is deterministic.
#pragma once

#include <string>
#include <vector>

#include "api/object_set.h"
#include "cloud/instance_type.h"
#include "core/status.h"
#include "scheduling/well_known_labels.h"
#include "solver/volume_topology.h"

namespace nodesmith::solver {

// A place pending pods may go without launching anything: a Node, or an in-flight NodeClaim
// (one without a Node yet, whose capacity is already paid for).
struct ExistingCapacity {
  std::string name;
  bool in_flight = false;       // a NodeClaim without a Node
  std::string node_pool;        // karpenter.sh/nodepool label, "" when not managed
  api::Labels labels;           // for an in-flight NodeClaim: its labels + single-valued requirements
  bool initialized = true;      // false for a managed node not yet initialized, and in flight
  std::vector<api::Taint> taints;  // those pods must tolerate (see BuildSnapshot)
  api::ResourceList allocatable;
  api::ResourceList capacity;
  std::vector<int> bound_pods;  // indices into Snapshot::bound_pods
  bool schedulable = true;      // false for cordoned nodes
};

struct Snapshot {
  std::vector<api::Pod> pending_pods;        // input order; workload pods after explicit pods
  std::vector<api::Pod> bound_pods;          // non-terminal pods bound to `existing`
  std::vector<ExistingCapacity> existing;    // initialized first, then by name
  std::vector<api::NodePool> node_pools;     // those that may launch: weight desc, then name desc
  std::vector<api::Pod> daemon_set_pods;     // per DaemonSet its newest pod, else its template; by key
  cloud::InstanceTypes instance_types;       // by name
  scheduling::LabelKeySet well_known;        // default well-known keys + catalog additions
  VolumeTopology volume_topology;
  std::map<std::string, api::Labels> namespace_labels;  // unused by plan inputs today: empty
};

// A pod as the provisioner sees it: pending when unbound, not terminating, not terminal and not
// owned by a DaemonSet.
bool IsPending(const api::Pod& pod);
// "namespace/name".
std::string PodKey(const api::Pod& pod);

// Builds the snapshot. `objects` is taken by value so pods can be moved, not copied (pass
// std::move when the caller is done with them). `workload_pods` are extra pending pods (e.g.
// api::WorkloadPods); `instance_types` come from the catalog.
core::Result<Snapshot> BuildSnapshot(api::ObjectSet objects,
                                     std::vector<api::Pod> workload_pods,
                                     cloud::InstanceTypes instance_types,
                                     scheduling::LabelKeySet well_known);

}  // namespace nodesmith::solver
