// ObjectSet: the cluster as a command sees it — the union of every document given with -f,
// decoded, defaulted, validated and converted to current API versions.
//
// Each object keeps where it came from (SourceRef) so later stages can still name the file and
// document in an error. Vectors keep input order (files sorted, documents in file order).
#pragma once

#include <string>
#include <vector>

#include <nlohmann/json.hpp>

#include "api/ec2nodeclass.h"
#include "api/instance_type_catalog.h"
#include "api/meta.h"
#include "api/node.h"
#include "api/nodeclaim.h"
#include "api/nodepool.h"
#include "api/pod.h"
#include "api/policy.h"
#include "api/storage.h"
#include "api/workloads.h"

namespace nodesmith::api {

template <typename T>
struct Sourced {
  T object;
  SourceRef source;
};

struct ObjectSet {
  std::vector<Sourced<Pod>> pods;
  std::vector<Sourced<Node>> nodes;
  std::vector<Sourced<PersistentVolumeClaim>> persistent_volume_claims;
  std::vector<Sourced<PersistentVolume>> persistent_volumes;
  std::vector<Sourced<StorageClass>> storage_classes;
  std::vector<Sourced<ReplicatedWorkload>> replicated_workloads;  // Deployment, ReplicaSet, StatefulSet
  std::vector<Sourced<DaemonSet>> daemon_sets;
  std::vector<Sourced<Job>> jobs;
  std::vector<Sourced<PodDisruptionBudget>> pod_disruption_budgets;
  std::vector<Sourced<NodePool>> node_pools;
  std::vector<Sourced<NodeClaim>> node_claims;
  std::vector<Sourced<EC2NodeClass>> ec2_node_classes;
  std::vector<Sourced<InstanceTypeCatalog>> instance_type_catalogs;
  // Scenario documents are kept as parsed JSON (decoded by the simulator).
  std::vector<Sourced<nlohmann::ordered_json>> scenarios;
  // One line per document of a kind nodesmith does not understand ("cm.yaml: document 1
  // (ConfigMap app-config): kind v1/ConfigMap is not used by nodesmith; ignored").
  std::vector<std::string> warnings;
};

}  // namespace nodesmith::api
