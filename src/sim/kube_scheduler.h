// KubeScheduler: the simulated cluster's kube-scheduler. It binds pending pods to Ready nodes
// with room, so the pods Karpenter launched capacity for actually land on it.
//
// A node is a candidate when it is Ready, not cordoned and not being deleted. A pod fits when
// its required node affinity and nodeSelector match, it tolerates every NoSchedule/NoExecute
// taint (so karpenter.sh/unregistered and karpenter.sh/disrupted keep pods off), and its
// requests (pods: 1 included) fit in allocatable minus the requests of the live pods already
// bound there. Pods are taken by priority, then age, then name; pods whose nominated node (the
// provisioner's PodNominated event, to a node or to a NodeClaim whose node it now is) is a
// candidate go first and to that node when they fit. Otherwise the node left least allocated
// wins (kube-scheduler's default LeastAllocated score), ties by name. A pod that fits nowhere
// gets PodScheduled=False/Unschedulable, once. Inter-pod affinity, anti-affinity and topology
// spread are checked with the provisioner solver's own Topology (solver/topology.h), counted
// over the pods bound at the start of the pass and those the pass binds.
//
// Runs one coalesced pass per instant when an unbound pod appears or changes, a pod is
// deleted, or a node changes. Each bind is recorded as `PodBound`. Not thread-safe.
// REQUIRES: loop, cluster and recorder outlive it.
#pragma once

#include <map>
#include <string>

#include "api/resource_list.h"
#include "cluster/cluster_api.h"
#include "runtime/event_loop.h"
#include "runtime/event_recorder.h"
#include "sim/coalesced_task.h"

namespace nodesmith::sim {

class KubeScheduler {
 public:
  KubeScheduler(runtime::EventLoop& loop, cluster::ClusterApi& cluster,
                runtime::EventRecorder& recorder);
  KubeScheduler(const KubeScheduler&) = delete;
  KubeScheduler& operator=(const KubeScheduler&) = delete;

  // Registers the watches and schedules a first pass at Now().
  void Start();
  // The provisioner nominated `pod` ("namespace/name") to `target` (a NodeClaim or node name).
  void Nominate(const std::string& pod, const std::string& target);
  // One scheduling pass now.
  void Schedule();

 private:
  const api::ResourceList& RequestsOf(const api::Pod& pod);

  cluster::ClusterApi& cluster_;
  runtime::EventRecorder& recorder_;
  CoalescedTask task_;
  std::map<std::string, std::string> nominated_;       // pod key -> NodeClaim or node
  std::map<std::string, api::ResourceList> requests_;  // pod uid -> requests (specs don't change)
};

}  // namespace nodesmith::sim
