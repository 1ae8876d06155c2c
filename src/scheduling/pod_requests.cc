#include "scheduling/pod_requests.h"

namespace nodesmith::scheduling {

namespace {

bool IsRestartableInitContainer(const api::Container& c) { return c.restart_policy == "Always"; }

// Pod-level requests defaulted from container aggregates only for overcommittable resources;
// hugepages cannot be overcommitted.
bool IsOvercommitAllowed(std::string_view name) { return name == "cpu" || name == "memory"; }

// The pod-level requests after API defaulting (defaultPodRequests upstream), empty when the pod
// sets no pod-level resources.
api::ResourceList EffectivePodLevelRequests(const api::PodSpec& spec,
                                            const api::ResourceList& aggregate) {
  if (!spec.resources) return {};
  api::ResourceList requests = spec.resources->requests;
  if (spec.resources->limits.empty()) return requests;
  for (const auto& [name, q] : aggregate.items()) {
    if (!requests.Has(name) && IsSupportedPodLevelResource(name) && IsOvercommitAllowed(name)) {
      requests.Set(name, q);
    }
  }
  for (const auto& [name, q] : spec.resources->limits.items()) {
    if (!requests.Has(name) && IsSupportedPodLevelResource(name)) requests.Set(name, q);
  }
  return requests;
}

}  // namespace

bool IsSupportedPodLevelResource(std::string_view name) {
  return name == "cpu" || name == "memory" || name.substr(0, 10) == "hugepages-";
}

api::ResourceList ContainerRequests(const api::Container& container) {
  api::ResourceList requests = container.resources.requests;
  for (const auto& [name, limit] : container.resources.limits.items()) {
    if (!requests.Has(name)) requests.Set(name, limit);
  }
  return requests;
}

api::ResourceList AggregateContainerRequests(const api::PodSpec& spec) {
  api::ResourceList result;
  for (const api::Container& c : spec.containers) result.Add(ContainerRequests(c));
  api::ResourceList sidecars;       // sidecars started so far
  api::ResourceList init_peak;      // the most any init step needs
  for (const api::Container& c : spec.init_containers) {
    api::ResourceList requests = ContainerRequests(c);
    api::ResourceList step;
    if (IsRestartableInitContainer(c)) {
      result.Add(requests);  // a sidecar also runs beside the main containers
      sidecars.Add(requests);
      step = sidecars;
    } else {
      step = api::ResourceList::Sum(requests, sidecars);
    }
    init_peak = api::ResourceList::Max(init_peak, step);
  }
  return api::ResourceList::Max(result, init_peak);
}

api::ResourceList PodRequests(const api::PodSpec& spec) {
  api::ResourceList requests = AggregateContainerRequests(spec);
  const api::ResourceList pod_level = EffectivePodLevelRequests(spec, requests);
  for (const auto& [name, q] : pod_level.items()) {
    if (IsSupportedPodLevelResource(name)) requests.Set(name, q);
  }
  requests.Add(spec.overhead);
  requests.Set(api::kResourcePods, api::Quantity::FromInt(1));
  return requests;
}

api::ResourceList PodRequests(const api::Pod& pod) { return PodRequests(pod.spec); }

}  // namespace nodesmith::scheduling
