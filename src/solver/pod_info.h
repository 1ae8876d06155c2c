// PodInfo: what the scheduler precomputes once per pending pod (and again after the pod is
// relaxed), so the placement loops never touch the pod spec: dense requests, requirements,
// host ports, and a class signature under which identical pods share cached decisions.
#pragma once

#include <cstdint>
#include <memory>
#include <optional>
#include <string>
#include <unordered_map>
#include <utility>
#include <vector>

#include "api/pod.h"
#include "api/resource_list.h"
#include "scheduling/requirements.h"
#include "solver/host_ports.h"
#include "solver/resource_vector.h"

namespace nodesmith::solver {

struct PodInfo {
  std::string key;                  // "namespace/name"
  // Effective requests, pods: 1 included. Shared, never modified: pods asking for the same
  // (RequestLists) hold one list.
  std::shared_ptr<const api::ResourceList> request_list;
  ResourceVector requests;
  scheduling::Requirements requirements;         // Requirements::FromPod
  scheduling::Requirements strict_requirements;  // Requirements::FromPodStrict
  std::vector<HostPort> host_ports;
  // Equal signatures mean the pods are interchangeable for placement decisions that do not
  // involve topology (same requests, requirements, tolerations and host ports).
  std::string signature;
};

// The pod's effective requests (Kubernetes rules, scheduling::PodRequests) with `pods: 1`, as
// Karpenter's RequestsForPods.
api::ResourceList PodRequestsWithPodCount(const api::Pod& pod);

// Effective request lists (PodRequestsWithPodCount), shared among pods whose containers ask for
// the same: a solve over tens of thousands of pods of a few shapes then builds and frees a few
// lists, not one per pod. Pods are compared by their containers' requests and limits (names,
// values and formats, everything the list is computed from); pods with init containers,
// pod-level resources or overhead get a list of their own. The pods passed must outlive the
// cache.
class RequestLists {
 public:
  std::shared_ptr<const api::ResourceList> For(const api::Pod& pod);

 private:
  using Entry = std::pair<const api::Pod*, std::shared_ptr<const api::ResourceList>>;
  std::unordered_map<uint64_t, std::vector<Entry>> by_hash_;
  Entry last_{nullptr, nullptr};  // the latest match (a copy: bucket vectors move)
};

// Appends every detail of `r` as text, so equal texts mean equal requirements
// (Requirement::String abbreviates long value lists). `with_min_values` adds minValues, which
// pod classes depend on but offering compatibility does not.
void AppendCanonicalText(const scheduling::Requirement& r, bool with_min_values, std::string& out);

// Fills every field of PodInfo from the pod's current spec. `request_list` is
// PodRequestsWithPodCount(pod), when the caller has it already (null: computed here).
PodInfo MakePodInfo(const api::Pod& pod, const ResourceIndex& index,
                    std::shared_ptr<const api::ResourceList> request_list = nullptr);

// True when MakePodInfo gives `a` and `b` equal fields other than the key, provided both have
// the same request list: same node selector and tolerations, and neither has node affinity or
// a host port. A test cheap enough to run per pod, so pods stamped from one template (which
// arrive in runs) can share one computation; false whenever in doubt.
bool SamePlacementSpec(const api::Pod& a, const api::Pod& b);

// The first taint of `taints` the pod does not tolerate, or nullopt. Every effect counts
// (PreferNoSchedule too, as in Karpenter, which tolerates it only through relaxation).
std::optional<api::Taint> FirstUntoleratedTaint(const std::vector<api::Taint>& taints,
                                                const api::Pod& pod);
// "taint nvidia.com/gpu=true:NoSchedule not tolerated".
std::string DescribeUntolerated(const api::Taint& taint);

// True when the pod declares topology spread, pod affinity or pod anti-affinity.
bool HasTopologyConstraints(const api::Pod& pod);
// True when the pod declares required pod anti-affinity (it may repel other pods).
bool HasRequiredAntiAffinity(const api::Pod& pod);

}  // namespace nodesmith::solver
