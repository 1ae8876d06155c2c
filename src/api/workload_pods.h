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
#pragma once

#include <vector>

#include "api/object_set.h"

namespace nodesmith::api {

// The stand-in pods for every workload of `set` whose own pods are absent, in workload order.
std::vector<Sourced<Pod>> WorkloadPods(const ObjectSet& set);

// Appends WorkloadPods(set) to set.pods.
void ExpandWorkloads(ObjectSet& set);

}  // namespace nodesmith::api
