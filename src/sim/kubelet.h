// Kubelets: the simulated nodes' kubelets (and the bits of the node lifecycle and pod garbage
// collector that follow from a node dying), with the Scenario's timings.
//
//   instance running        after registration_delay the Node is created: named
//                           "ip-192-168-x-y" from the instance's private IP, spec.providerID,
//                           the NodeClaim's labels (plus kubernetes.io/hostname), its taints and
//                           startup taints, karpenter.sh/unregistered:NoExecute, capacity and
//                           allocatable, Ready=False. Skipped if the instance is gone by then.
//   registered              after ready_delay the Node turns Ready (event `NodeReady`).
//   pod bound to Ready node after pod_start_delay the pod is Running (startTime, Ready) and its
//                           start latency (created -> Running) is kept; event `PodRunning`.
//   instance gone           (stopped, shutting down or terminated) the Node turns NotReady with
//                           node.kubernetes.io/unreachable:NoExecute, and the pods on it are
//                           deleted at once: their workloads make new pending ones.
//   Node deleted            the pods still bound to it are deleted (pod garbage collection).
// Not thread-safe. REQUIRES: loop, cluster, cloud and recorder outlive it.
#pragma once

#include <map>
#include <set>
#include <string>
#include <vector>

#include "cloud/sim/cloud_timings.h"
#include "cloud/sim/simulated_cloud.h"
#include "cluster/cluster_api.h"
#include "runtime/event_loop.h"
#include "runtime/event_recorder.h"
#include "sim/coalesced_task.h"

namespace nodesmith::sim {

// "192.168.1.20" -> "ip-192-168-1-20".
std::string NodeNameForIp(const std::string& private_ip);

class Kubelets {
 public:
  Kubelets(runtime::EventLoop& loop, cluster::ClusterApi& cluster,
           const cloud::sim::SimulatedCloud& cloud, runtime::EventRecorder& recorder,
           const cloud::sim::CloudTimings& timings, core::Duration pod_start_delay);
  Kubelets(const Kubelets&) = delete;
  Kubelets& operator=(const Kubelets&) = delete;

  // Registers the watches and schedules a first pass over bound pods.
  void Start();
  // The cloud reports the instance entered `state` at `at` (<= Now()).
  void OnInstanceTransition(const std::string& provider_id, cloud::sim::InstanceState state,
                            core::Time at);

  // Seconds from creation to Running of every pod that started (DaemonSet pods excluded: they
  // wait for their node by design), in the order they started.
  const std::vector<double>& start_latencies() const { return start_latencies_; }

 private:
  void Register(const std::string& provider_id);
  void MarkReady(const std::string& node_name, const std::string& provider_id);
  void NodeLost(const std::string& provider_id);
  void DeletePodsOn(const std::string& node_name);
  // Schedules the start of every pod bound to a Ready node that is not started or starting.
  void ScanPods();
  void StartPod(const std::string& ns, const std::string& name, const std::string& uid);

  runtime::EventLoop& loop_;
  cluster::ClusterApi& cluster_;
  const cloud::sim::SimulatedCloud& cloud_;
  runtime::EventRecorder& recorder_;
  cloud::sim::CloudTimings timings_;
  core::Duration pod_start_delay_;
  CoalescedTask scan_;
  std::set<std::string> lost_;        // provider ids whose node was declared lost
  std::set<std::string> starting_;    // pod uids with a start scheduled
  std::map<std::string, std::string> node_of_;  // provider id -> node name
  std::vector<double> start_latencies_;
};

}  // namespace nodesmith::sim
