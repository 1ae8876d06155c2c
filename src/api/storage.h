// Storage objects that constrain where a pod may run: PersistentVolumeClaim, PersistentVolume
// (core/v1) and StorageClass (storage.k8s.io/v1).
#pragma once

#include <optional>
#include <string>
#include <vector>

#include "api/meta.h"
#include "api/resource_list.h"
#include "api/selector.h"

namespace nodesmith::api {

struct PersistentVolumeClaim {
  ObjectMeta metadata;
  std::optional<std::string> storage_class_name;
  std::string volume_name;  // bound PV, "" if unbound
  ResourceList requests;
};

struct PersistentVolume {
  ObjectMeta metadata;
  std::string storage_class_name;
  std::optional<NodeSelector> node_affinity;  // spec.nodeAffinity.required
  ResourceList capacity;
  std::string claim_ref_namespace;
  std::string claim_ref_name;
};

// A topology term: ANDed label requirements, e.g. topology.kubernetes.io/zone In [a, b].
struct TopologySelectorTerm {
  std::vector<LabelSelectorRequirement> match_label_expressions;  // key + values (In)
};

struct StorageClass {
  ObjectMeta metadata;
  std::string provisioner;
  std::string volume_binding_mode = "Immediate";  // or WaitForFirstConsumer
  std::vector<TopologySelectorTerm> allowed_topologies;
  bool is_default = false;  // storageclass.kubernetes.io/is-default-class annotation
};

}  // namespace nodesmith::api
