// WorkloadControllers: what kube-controller-manager does for nodesmith's simulated cluster —
// the ReplicaSet/Deployment, StatefulSet, Job and DaemonSet controllers and the garbage
// collector's cascading delete.
//
//   Deployment, ReplicaSet, StatefulSet  keep `replicas` live pods made from the template;
//   Job                                  keeps min(parallelism, completions) pods (pods never
//                                        finish in the simulation, so the Job never completes);
//     new pods are named "<workload>-<n>" (n counting up from 1 per workload, never reused, a
//     name already taken is skipped), carry the template's labels, annotations and spec and a
//     controller ownerReference to the workload; they are created unbound (pending). Scaling
//     down deletes unbound pods first, then pods not yet running, then the newest.
//   DaemonSet                            one pod per node it may run on (node affinity and
//     selector, taints with NoSchedule/NoExecute tolerated, except the node-condition taints
//     DaemonSet pods tolerate automatically), named "<daemonset>-<node>" and created bound to
//     that node; a node being deleted gets none.
//   cascading delete                     deleting a workload deletes the pods it owns.
// A pod belongs to a workload through its controller ownerReference (uid, else kind and name);
// for a Deployment also through a ReplicaSet named "<deployment>-<hash>" (pods as kubectl
// prints them). Input pods without such a reference are left alone.
//
// Watches workloads, DaemonSets, Jobs, Nodes and pod deletions, and resyncs everything in one
// coalesced pass per instant. Not thread-safe. REQUIRES: loop, cluster and recorder outlive it.
#pragma once

#include <map>
#include <set>
#include <string>
#include <tuple>
#include <vector>

#include "api/pod.h"
#include "cluster/cluster_api.h"
#include "runtime/event_loop.h"
#include "runtime/event_recorder.h"
#include "sim/coalesced_task.h"

namespace nodesmith::sim {

class WorkloadControllers {
 public:
  WorkloadControllers(runtime::EventLoop& loop, cluster::ClusterApi& cluster,
                      runtime::EventRecorder& recorder);
  WorkloadControllers(const WorkloadControllers&) = delete;
  WorkloadControllers& operator=(const WorkloadControllers&) = delete;

  // Registers the watches and schedules the first sync at Now().
  void Start();
  // Runs a sync now (the world calls it right after a scenario changes a workload; otherwise
  // the watches do).
  void Sync();

  // What a sync keeps of each live pod.
  struct PodView {
    std::string namespace_;
    std::string name;
    std::string node;
    bool running = false;
    core::Time created;
    std::string owner;  // "<namespace>/<workload name>"
  };

 private:
  // (kind, namespace, name) of a workload.
  using WorkloadKey = std::tuple<std::string, std::string, std::string>;

  void SyncReplicas(const WorkloadKey& key, const api::ObjectMeta& meta,
                    const api::PodTemplateSpec& tmpl, int desired, std::vector<PodView> live,
                    const std::set<std::string>& taken);
  // `pods`: the live pods owned by DaemonSets.
  void SyncDaemonSets(const std::vector<PodView>& pods);

  cluster::ClusterApi& cluster_;
  runtime::EventRecorder& recorder_;
  CoalescedTask task_;
  std::map<WorkloadKey, int> next_index_;  // the next n of "<workload>-<n>"
  std::set<WorkloadKey> deleted_;           // workloads deleted since the last sync (cascade)
};

}  // namespace nodesmith::sim
