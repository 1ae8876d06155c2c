// Pods that workloads stand for: a Deployment, ReplicaSet, StatefulSet or Job whose pods are not
// among the inputs represents `replicas` (Job: `parallelism`, at most `completions`) pending pods
// made from its pod template, as the CLI contract specifies.
//
// A workload's pods are "in the input" when some pod is owned by it through ownerReferences
// (a Deployment also owns the pods of its ReplicaSets, matched by the "<deployment>-<hash>"
// ReplicaSet name when the ReplicaSet itself is absent) or, failing that, when some pod in its
// namespace matches its selector. A ReplicaSet controlled by a Deployment among the inputs is
// left to the Deployment. DaemonSet pods are never pending and are not made here.
//
// Generated pods are named "<workload>-<n>" (n from 1), carry the template's labels and
// annotations, the workload's namespace and creationTimestamp, a controller ownerReference to the
// workload and a uid derived from namespace, kind, name and n (stable across runs).
//
// The input's pods and the stand-ins together are bounded by kMaxPods (api/pod_limit.h): the
// workload whose count would pass it is refused, naming its file, document and field, before any
// pod is made.
#pragma once

#include <vector>

#include "api/object_set.h"
#include "core/status.h"

namespace nodesmith::api {

// The pods a Job runs at once — parallelism, capped by completions — and the field that sets it.
struct JobPods {
  int count;
  const char* field;  // "spec.parallelism" or "spec.completions"
};
JobPods JobPodsOf(const Job& job);

// The stand-in pods for every workload of `set` whose own pods are absent, in workload order.
core::Result<std::vector<Sourced<Pod>>> WorkloadPods(const ObjectSet& set);

// Appends WorkloadPods(set) to set.pods; InvalidArgument (set unchanged) past kMaxPods.
core::Status ExpandWorkloads(ObjectSet& set);

}  // namespace nodesmith::api
