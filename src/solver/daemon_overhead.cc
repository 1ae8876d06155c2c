#include "solver/daemon_overhead.h"

#include <map>
#include <utility>

#include "scheduling/taints.h"
#include "solver/pod_info.h"

namespace nodesmith::solver {
namespace {

// The taints a DaemonSet pod must tolerate: all but PreferNoSchedule ones (Karpenter adds a
// toleration for those to the pod before it checks).
std::vector<api::Taint> BlockingTaints(const std::vector<api::Taint>& taints) {
  std::vector<api::Taint> out;
  for (const auto& t : taints) {
    if (t.effect != "PreferNoSchedule") out.push_back(t);
  }
  return out;
}

bool Tolerates(const api::Pod& pod, const std::vector<api::Taint>& blocking) {
  return scheduling::FindUntoleratedTaint(pod.spec.tolerations, blocking) == nullptr;
}

}  // namespace

std::vector<scheduling::Requirements> RequiredTermRequirements(const api::Pod& pod) {
  const scheduling::Requirements selector = scheduling::Requirements::FromLabels(pod.spec.node_selector);
  std::vector<scheduling::Requirements> out;
  if (pod.spec.affinity && pod.spec.affinity->node_affinity &&
      pod.spec.affinity->node_affinity->required) {
    for (const auto& term : pod.spec.affinity->node_affinity->required->node_selector_terms) {
      scheduling::Requirements reqs = selector;
      reqs.Add(scheduling::Requirements::FromNodeSelectorRequirements(term.match_expressions));
      out.push_back(std::move(reqs));
    }
  }
  if (out.empty()) out.push_back(selector);
  return out;
}

DaemonOverheadGroups GroupDaemonOverhead(const scheduling::Requirements& requirements,
                                         const std::vector<api::Taint>& taints,
                                         const std::vector<const cloud::InstanceType*>& types,
                                         const std::vector<api::Pod>& daemon_pods,
                                         const scheduling::CompatibilityOptions& allow) {
  // Per DaemonSet pod, the terms the NodePool admits; none when its taints keep the pod off.
  const std::vector<api::Taint> blocking = BlockingTaints(taints);
  std::vector<std::vector<scheduling::Requirements>> admitted(daemon_pods.size());
  for (size_t d = 0; d < daemon_pods.size(); ++d) {
    if (!Tolerates(daemon_pods[d], blocking)) continue;
    for (auto& term : RequiredTermRequirements(daemon_pods[d])) {
      if (requirements.IsCompatible(term, allow)) admitted[d].push_back(std::move(term));
    }
  }
  DaemonOverheadGroups out;
  out.group_of.reserve(types.size());
  std::map<std::vector<int>, int> group_by_pods;
  std::vector<int> pods;
  for (const cloud::InstanceType* type : types) {
    pods.clear();
    for (size_t d = 0; d < daemon_pods.size(); ++d) {
      for (const auto& term : admitted[d]) {
        if (type->requirements.IntersectsWith(term)) {
          pods.push_back(static_cast<int>(d));
          break;
        }
      }
    }
    auto [it, inserted] = group_by_pods.emplace(pods, static_cast<int>(out.groups.size()));
    if (inserted) {
      DaemonOverheadGroup g;
      g.daemon_pods = pods;
      for (int d : pods) {
        g.overhead.Add(PodRequestsWithPodCount(daemon_pods[d]));
        for (auto& port : PodHostPorts(daemon_pods[d])) g.host_ports.push_back(std::move(port));
      }
      out.groups.push_back(std::move(g));
    }
    out.group_of.push_back(it->second);
  }
  return out;
}

bool DaemonPodRunsOnNode(const api::Pod& daemon_pod, const scheduling::Requirements& node_labels,
                         const std::vector<api::Taint>& taints) {
  if (!Tolerates(daemon_pod, BlockingTaints(taints))) return false;
  for (const auto& term : RequiredTermRequirements(daemon_pod)) {
    if (node_labels.IsCompatible(term)) return true;
  }
  return false;
}

}  // namespace nodesmith::solver
