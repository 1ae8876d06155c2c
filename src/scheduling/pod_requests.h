// A pod's effective resource requests, as Kubernetes computes them for scheduling
// (k8s.io/component-helpers/resource PodRequests) after the API server's defaulting.
//
//   1. Each container's requests, where a resource with a limit but no request requests its
//      limit (API defaulting of containers).
//   2. The sum of the regular containers.
//   3. Init containers run one at a time, in order; sidecars (init containers with
//      restartPolicy Always) keep running alongside every later init container and the main
//      containers. So each sidecar adds to the running sum, each init container needs itself
//      plus the sidecars started before it, and the pod needs the largest of those and the
//      sum of containers and sidecars.
//   4. Pod-level spec.resources.requests replaces the aggregate for the resources it names
//      (cpu, memory, hugepages-*). When only pod-level limits are set, requests default as the
//      API server does: to the container aggregate for cpu/memory the containers request, else
//      to the pod-level limit.
//   5. spec.overhead is added.
//   6. pods: 1.
#pragma once

#include <string_view>

#include "api/pod.h"
#include "api/resource_list.h"

namespace nodesmith::scheduling {

// A container's requests after defaulting missing requests from limits.
api::ResourceList ContainerRequests(const api::Container& container);

// Steps 1-3: containers, init containers and sidecars (AggregateContainerRequests).
api::ResourceList AggregateContainerRequests(const api::PodSpec& spec);

// Whether a resource may be set at pod level (cpu, memory, hugepages-*).
bool IsSupportedPodLevelResource(std::string_view name);

// All steps; the result always has pods: 1.
api::ResourceList PodRequests(const api::Pod& pod);
api::ResourceList PodRequests(const api::PodSpec& spec);

}  // namespace nodesmith::scheduling
