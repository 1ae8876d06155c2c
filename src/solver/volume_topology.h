// VolumeTopology: where a pod's volumes let it run, as Karpenter's volumetopology.go. A bound
// PersistentVolume pins the pod to its nodeAffinity (e.g. the PV's zone); an unbound claim whose
// StorageClass lists allowedTopologies (typical of WaitForFirstConsumer) limits the pod to those.
// The requirements are added to every required node-affinity term of the pod, so relaxing one
// OR term never drops them.
//
// Holds copies of the claims, volumes and classes it is given. Read-only after setup;
// pure (no I/O).
#pragma once

#include <map>
#include <string>
#include <vector>

#include "api/pod.h"
#include "api/selector.h"
#include "api/storage.h"
#include "core/status.h"

namespace nodesmith::solver {

class VolumeTopology {
 public:
  VolumeTopology() = default;

  void AddClaim(const api::PersistentVolumeClaim& claim);  // keyed by namespace/name
  void AddVolume(const api::PersistentVolume& volume);     // keyed by name
  void AddStorageClass(const api::StorageClass& storage_class);

  // The node requirements the pod's PVC and generic ephemeral volumes impose (first term of a
  // PV's nodeAffinity; first allowedTopologies term of the class of an unbound claim).
  // A claim without a storage class field gets the default class, as admission would have set.
  // Errors (NotFound), worded as Karpenter's:
  //   discovering persistent volume claim, persistentvolumeclaims "data" not found
  //   getting existing requirements, getting persistent volume "pv-1",
  //     persistentvolumes "pv-1" not found
  //   getting storage class "fast", storageclasses.storage.k8s.io "fast" not found
  // A generic ephemeral volume whose claim does not exist yet imposes nothing (offline, the
  // ephemeral-volume controller has not run).
  core::Result<std::vector<api::NodeSelectorRequirement>> Requirements(const api::Pod& pod) const;

  // Adds Requirements(pod) to every required node-affinity term of `pod` (creating one term when
  // the pod has none). Leaves the pod unchanged on error.
  core::Status Inject(api::Pod& pod) const;

  // Karpenter's ValidatePersistentVolumeClaims: every claim exists, its bound volume exists and
  // its storage class exists. Error: failed to validate pvc "data" with volume "pv-1", ... /
  // failed to validate pvc "data" with storage class "fast", ...
  core::Status ValidatePersistentVolumeClaims(const api::Pod& pod) const;

 private:
  // The claim a volume refers to, nullptr (ok) when the volume is not a claim, or NotFound.
  core::Result<const api::PersistentVolumeClaim*> ClaimFor(const api::Pod& pod,
                                                           const api::Volume& volume) const;

  std::map<std::string, api::PersistentVolumeClaim> claims_;
  std::map<std::string, api::PersistentVolume> volumes_;
  std::map<std::string, api::StorageClass> storage_classes_;
};

}  // namespace nodesmith::solver
