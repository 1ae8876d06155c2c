#include "solver/volume_topology.h"

#include <utility>

namespace nodesmith::solver {
namespace {

// The API server's NotFound wording, which Karpenter wraps.
core::Status NotFound(const std::string& resource, const std::string& name) {
  return core::Status::NotFound(resource + " \"" + name + "\" not found");
}

core::Status Wrap(const std::string& context, const core::Status& st) {
  return core::Status(st.code(), context + ", " + st.message());
}

}  // namespace

void VolumeTopology::AddClaim(const api::PersistentVolumeClaim& claim) {
  claims_[claim.metadata.namespace_ + "/" + claim.metadata.name] = claim;
}

void VolumeTopology::AddVolume(const api::PersistentVolume& volume) {
  volumes_[volume.metadata.name] = volume;
}

void VolumeTopology::AddStorageClass(const api::StorageClass& storage_class) {
  storage_classes_[storage_class.metadata.name] = storage_class;
}

core::Result<const api::PersistentVolumeClaim*> VolumeTopology::ClaimFor(
    const api::Pod& pod, const api::Volume& volume) const {
  std::string claim_name;
  if (!volume.pvc_claim_name.empty()) {
    claim_name = volume.pvc_claim_name;
  } else if (volume.ephemeral) {
    claim_name = pod.metadata.name + "-" + volume.name;
  } else {
    return static_cast<const api::PersistentVolumeClaim*>(nullptr);  // emptyDir, configMap, ...
  }
  auto it = claims_.find(pod.metadata.namespace_ + "/" + claim_name);
  if (it == claims_.end()) {
    // A generic ephemeral volume's claim is made by the ephemeral-volume controller once the pod
    // exists; offline (plan) it usually is not there yet, and the pod must not be rejected for it.
    if (volume.ephemeral) return static_cast<const api::PersistentVolumeClaim*>(nullptr);
    return NotFound("persistentvolumeclaims", claim_name);
  }
  return &it->second;
}

namespace {

// The class an unbound claim will be provisioned with: its own, or (when the field is absent,
// as the DefaultStorageClass admission plugin would have filled it) the default class.
std::string EffectiveStorageClass(const api::PersistentVolumeClaim& claim,
                                  const std::map<std::string, api::StorageClass>& classes) {
  if (claim.storage_class_name) return *claim.storage_class_name;
  for (const auto& [name, sc] : classes) {
    if (sc.is_default) return name;
  }
  return "";
}

}  // namespace

core::Result<std::vector<api::NodeSelectorRequirement>> VolumeTopology::Requirements(
    const api::Pod& pod) const {
  std::vector<api::NodeSelectorRequirement> out;
  for (const api::Volume& volume : pod.spec.volumes) {
    auto claim = ClaimFor(pod, volume);
    if (!claim.ok()) return Wrap("discovering persistent volume claim", claim.status());
    const api::PersistentVolumeClaim* pvc = *claim;
    if (pvc == nullptr) continue;

    if (!pvc->volume_name.empty()) {
      auto pv = volumes_.find(pvc->volume_name);
      if (pv == volumes_.end()) {
        return Wrap("getting existing requirements",
                    Wrap("getting persistent volume \"" + pvc->volume_name + "\"",
                         NotFound("persistentvolumes", pvc->volume_name)));
      }
      const auto& affinity = pv->second.node_affinity;
      // Terms are ORed; like Karpenter, only the first one is used.
      if (affinity && !affinity->node_selector_terms.empty()) {
        const auto& exprs = affinity->node_selector_terms.front().match_expressions;
        out.insert(out.end(), exprs.begin(), exprs.end());
      }
      continue;
    }

    std::string class_name = EffectiveStorageClass(*pvc, storage_classes_);
    if (class_name.empty()) continue;
    auto sc = storage_classes_.find(class_name);
    if (sc == storage_classes_.end()) {
      return Wrap("getting storage class \"" + class_name + "\"",
                  NotFound("storageclasses.storage.k8s.io", class_name));
    }
    if (!sc->second.allowed_topologies.empty()) {
      for (const auto& expr : sc->second.allowed_topologies.front().match_label_expressions) {
        api::NodeSelectorRequirement r;
        r.key = expr.key;
        r.op = "In";
        r.values = expr.values;
        out.push_back(std::move(r));
      }
    }
  }
  return out;
}

core::Status VolumeTopology::Inject(api::Pod& pod) const {
  auto requirements = Requirements(pod);
  if (!requirements.ok()) return requirements.status();
  if (requirements->empty()) return core::Status::Ok();
  if (!pod.spec.affinity) pod.spec.affinity.emplace();
  auto& affinity = *pod.spec.affinity;
  if (!affinity.node_affinity) affinity.node_affinity.emplace();
  auto& required = affinity.node_affinity->required;
  if (!required) required.emplace();
  if (required->node_selector_terms.empty()) required->node_selector_terms.emplace_back();
  // ANDed into every ORed term, so relaxing a term never drops the volume's zone.
  for (auto& term : required->node_selector_terms) {
    term.match_expressions.insert(term.match_expressions.end(), requirements->begin(),
                                  requirements->end());
  }
  return core::Status::Ok();
}

core::Status VolumeTopology::ValidatePersistentVolumeClaims(const api::Pod& pod) const {
  for (const api::Volume& volume : pod.spec.volumes) {
    auto claim = ClaimFor(pod, volume);
    if (!claim.ok()) return claim.status();
    const api::PersistentVolumeClaim* pvc = *claim;
    if (pvc == nullptr) continue;
    const std::string& name = pvc->metadata.name;
    if (!pvc->volume_name.empty()) {
      if (volumes_.count(pvc->volume_name) == 0) {
        return Wrap(
            "failed to validate pvc \"" + name + "\" with volume \"" + pvc->volume_name + "\"",
            NotFound("persistentvolumes", pvc->volume_name));
      }
      continue;
    }
    std::string class_name = EffectiveStorageClass(*pvc, storage_classes_);
    if (class_name.empty()) {
      return core::Status(core::StatusCode::kFailedPrecondition,
                          "unbound pvc " + name + " must define a storage class");
    }
    if (storage_classes_.count(class_name) == 0) {
      return Wrap(
          "failed to validate pvc \"" + name + "\" with storage class \"" + class_name + "\"",
          NotFound("storageclasses.storage.k8s.io", class_name));
    }
  }
  return core::Status::Ok();
}

}  // namespace nodesmith::solver
