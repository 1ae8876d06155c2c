#include "sim/kubelet.h"

#include <algorithm>
#include <cstdio>
#include <tuple>

#include "api/conditions.h"
#include "api/node_status.h"
#include "api/pod_status.h"
#include "scheduling/taints.h"

namespace nodesmith::sim {
namespace {

constexpr const char* kLogger = "kubelet";

void SetReady(api::Node& node, bool ready, const std::string& reason, const std::string& message,
              core::Time now) {
  api::SetCondition(node.status.conditions, api::kNodeConditionReady, ready ? "True" : "False",
                    reason, now, message);
}

}  // namespace

std::string NodeNameForIp(const std::string& private_ip) {
  std::string name = "ip-" + private_ip;
  std::replace(name.begin(), name.end(), '.', '-');
  return name;
}

Kubelets::Kubelets(runtime::EventLoop& loop, cluster::ClusterApi& cluster,
                   const cloud::sim::SimulatedCloud& cloud, runtime::EventRecorder& recorder,
                   const cloud::sim::CloudTimings& timings, core::Duration pod_start_delay)
    : loop_(loop),
      cluster_(cluster),
      cloud_(cloud),
      recorder_(recorder),
      timings_(timings),
      pod_start_delay_(pod_start_delay),
      scan_(loop, [this] { ScanPods(); }) {}

void Kubelets::Start() {
  cluster_.Watch(cluster::Kind::kPod, [this](const cluster::WatchEvent& e) {
    if (e.type == cluster::WatchEventType::kDeleted || !e.object) return;
    const auto& pod = std::get<api::Pod>(*e.object);
    if (!pod.spec.node_name.empty() && pod.status.phase == "Pending") scan_.Request();
  });
  cluster_.Watch(cluster::Kind::kNode, [this](const cluster::WatchEvent& e) {
    if (e.type == cluster::WatchEventType::kDeleted) {
      std::string node = e.name;
      loop_.At(loop_.Now(), [this, node] { DeletePodsOn(node); });
    }
  });
  scan_.Request();
}

void Kubelets::OnInstanceTransition(const std::string& provider_id,
                                    cloud::sim::InstanceState state, core::Time at) {
  using cloud::sim::InstanceState;
  switch (state) {
    case InstanceState::kRunning:
      loop_.At(at + timings_.registration_delay, [this, provider_id] { Register(provider_id); });
      break;
    case InstanceState::kStopped:
    case InstanceState::kShuttingDown:
    case InstanceState::kTerminated:
      NodeLost(provider_id);
      break;
    case InstanceState::kPending:
      break;
  }
}

void Kubelets::Register(const std::string& provider_id) {
  const cloud::sim::SimulatedInstance* instance = cloud_.FindInstance(provider_id);
  if (!instance || instance->StateAt(loop_.Now()) != cloud::sim::InstanceState::kRunning) return;
  api::NodeClaim claim = instance->node_claim;
  if (auto live = cluster_.Get<api::NodeClaim>("", instance->node_claim_name); live.ok()) {
    claim = *live;
  }
  api::Node node;
  node.metadata.name = NodeNameForIp(instance->private_ip);
  node.metadata.labels = claim.metadata.labels;
  node.metadata.labels["kubernetes.io/hostname"] = node.metadata.name;
  node.spec.provider_id = provider_id;
  node.spec.taints = scheduling::MergeTaints(claim.spec.taints, claim.spec.startup_taints);
  node.spec.taints = scheduling::MergeTaints(
      node.spec.taints, {api::Taint{scheduling::kTaintUnregistered, "", "NoExecute"}});
  node.status.capacity = claim.status.capacity.empty() ? instance->node_claim.status.capacity
                                                       : claim.status.capacity;
  node.status.allocatable = claim.status.allocatable.empty()
                                ? instance->node_claim.status.allocatable
                                : claim.status.allocatable;
  SetReady(node, false, "KubeletNotReady", "container runtime network not ready", loop_.Now());
  auto created = cluster_.Create(node);
  if (!created.ok()) {
    recorder_.Record({runtime::LogLevel::kWarn, kLogger,
                      "Could not register node " + node.metadata.name + ": " +
                          created.status().message(),
                      "", {{"node", node.metadata.name}}});
    return;
  }
  node_of_[provider_id] = node.metadata.name;
  recorder_.Record({runtime::LogLevel::kInfo, kLogger,
                    "Registered node " + node.metadata.name + " (" + instance->instance_id + ", " +
                        instance->instance_type + ")",
                    "", {{"node", node.metadata.name}, {"nodeClaim", instance->node_claim_name}}});
  std::string name = node.metadata.name;
  loop_.After(timings_.ready_delay, [this, name, provider_id] { MarkReady(name, provider_id); });
}

void Kubelets::MarkReady(const std::string& node_name, const std::string& provider_id) {
  if (lost_.count(provider_id)) return;
  auto node = cluster_.Get<api::Node>("", node_name);
  if (!node.ok() || node->metadata.deletion_timestamp) return;
  SetReady(*node, true, "KubeletReady", "kubelet is posting ready status", loop_.Now());
  if (!cluster_.Update(*node).ok()) return;
  const cloud::sim::SimulatedInstance* instance = cloud_.FindInstance(provider_id);
  recorder_.Record({runtime::LogLevel::kInfo, kLogger, "Node " + node_name + " is Ready",
                    "NodeReady",
                    {{"node", node_name},
                     {"nodeClaim", instance ? instance->node_claim_name : ""},
                     {"instanceType", instance ? instance->instance_type : ""}}});
  scan_.Request();
}

void Kubelets::NodeLost(const std::string& provider_id) {
  if (!lost_.insert(provider_id).second) return;
  auto it = node_of_.find(provider_id);
  if (it == node_of_.end()) return;  // never registered
  auto node = cluster_.Get<api::Node>("", it->second);
  if (!node.ok()) return;
  SetReady(*node, false, "NodeStatusUnknown", "Kubelet stopped posting node status.", loop_.Now());
  node->spec.taints = scheduling::MergeTaints(
      node->spec.taints, {api::Taint{scheduling::kTaintNodeUnreachable, "", "NoExecute"}});
  (void)cluster_.Update(*node);
  recorder_.Record({runtime::LogLevel::kWarn, kLogger,
                    "Node " + it->second + " is NotReady: its instance is gone", "",
                    {{"node", it->second}}});
  DeletePodsOn(it->second);
}

void Kubelets::DeletePodsOn(const std::string& node_name) {
  std::vector<std::pair<std::string, std::string>> doomed;
  cluster_.ForEachObject(cluster::Kind::kPod, [&](const cluster::Object& o) {
    const auto& pod = std::get<api::Pod>(o);
    if (pod.spec.node_name == node_name) doomed.emplace_back(pod.metadata.namespace_, pod.metadata.name);
  });
  if (doomed.empty()) return;
  for (const auto& [ns, name] : doomed) (void)cluster_.Delete<api::Pod>(ns, name);
  recorder_.Record({runtime::LogLevel::kInfo, kLogger,
                    "Deleted " + std::to_string(doomed.size()) + " pods of lost node " + node_name,
                    "", {{"node", node_name}}});
}

void Kubelets::ScanPods() {
  std::set<std::string> ready;
  cluster_.ForEachObject(cluster::Kind::kNode, [&](const cluster::Object& o) {
    const auto& node = std::get<api::Node>(o);
    if (api::IsNodeReady(node)) ready.insert(node.metadata.name);
  });
  std::vector<std::tuple<std::string, std::string, std::string>> to_start;
  cluster_.ForEachObject(cluster::Kind::kPod, [&](const cluster::Object& o) {
    const auto& pod = std::get<api::Pod>(o);
    if (pod.spec.node_name.empty() || pod.status.phase != "Pending" ||
        pod.metadata.deletion_timestamp || !ready.count(pod.spec.node_name) ||
        starting_.count(pod.metadata.uid)) {
      return;
    }
    to_start.emplace_back(pod.metadata.namespace_, pod.metadata.name, pod.metadata.uid);
  });
  for (auto& [ns, name, uid] : to_start) {
    starting_.insert(uid);
    // Captured by init-capture: clang before 16 cannot capture structured bindings by name.
    loop_.After(pod_start_delay_, [this, ns = ns, name = name, uid = uid] { StartPod(ns, name, uid); });
  }
}

void Kubelets::StartPod(const std::string& ns, const std::string& name, const std::string& uid) {
  starting_.erase(uid);
  auto pod = cluster_.Get<api::Pod>(ns, name);
  if (!pod.ok() || pod->metadata.uid != uid || pod->status.phase != "Pending") return;
  auto node = cluster_.Get<api::Node>("", pod->spec.node_name);
  if (!node.ok() || !api::IsNodeReady(*node)) return;
  core::Time now = loop_.Now();
  pod->status.phase = "Running";
  pod->status.start_time = now;
  for (const char* type : {"Initialized", "ContainersReady", "Ready"}) {
    pod->status.conditions.push_back(api::Condition{type, "True", "", "", now});
  }
  if (!cluster_.Update(*pod).ok()) return;
  std::string key = pod->metadata.Key();
  std::vector<std::pair<std::string, std::string>> fields{{"pod", key},
                                                           {"node", pod->spec.node_name}};
  if (!api::IsOwnedByDaemonSet(*pod) && pod->metadata.creation_timestamp) {
    double latency =
        static_cast<double>((now - *pod->metadata.creation_timestamp).count()) / 1e9;
    start_latencies_.push_back(latency);
    char buf[32];
    std::snprintf(buf, sizeof(buf), "%.3f", latency);
    fields.emplace_back("startLatencySeconds", buf);
  }
  recorder_.Record({runtime::LogLevel::kInfo, kLogger,
                    "Started pod " + key + " on node " + pod->spec.node_name, "PodRunning",
                    std::move(fields)});
}

}  // namespace nodesmith::sim
