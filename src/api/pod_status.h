// Questions every layer asks about a Pod: where it is in its lifecycle, who owns it, whether it
// is Ready, and the "namespace/name" key it is known by. They follow Kubernetes' podutil and
// Karpenter's pod utilities, so the controllers, the cluster model and the simulator classify
// pods the same way.
#pragma once

#include <string>

#include "api/meta.h"
#include "api/pod.h"

namespace nodesmith::api {

// The pod has finished: phase Succeeded or Failed.
bool IsTerminal(const Pod& pod);

// The pod has a deletionTimestamp (it is being deleted, finished or not).
bool IsTerminating(const Pod& pod);

// Neither terminal nor terminating (podutil.IsPodActive): the pod still holds, or will hold,
// capacity on a node.
bool IsActive(const Pod& pod);

// Some owner reference is a DaemonSet (controller or not).
bool IsOwnedByDaemonSet(const Pod& pod);

// Some owner reference is a StatefulSet.
bool IsOwnedByStatefulSet(const Pod& pod);

// Some owner reference is a Node: a static pod's mirror, which no controller can move.
bool IsOwnedByNode(const Pod& pod);

// The owner reference marked controller: true, or nullptr (metav1.GetControllerOf). The pointer
// is into `meta`.
const OwnerReference* ControllerOf(const ObjectMeta& meta);

// The pod's Ready condition is True (podutil.IsPodReady).
bool IsPodReady(const Pod& pod);

// "namespace/name", with the slash even when the namespace is empty.
std::string PodKey(const Pod& pod);

}  // namespace nodesmith::api
