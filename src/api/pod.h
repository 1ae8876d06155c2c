// Pod, PodSpec and PodTemplateSpec (core/v1): the fields nodesmith schedules by.
#pragma once

#include <optional>
#include <string>
#include <vector>

#include "api/meta.h"
#include "api/resource_list.h"
#include "api/selector.h"

namespace nodesmith::api {

struct ResourceRequirements {
  ResourceList requests;
  ResourceList limits;
};

struct ContainerPort {
  std::string name;
  int container_port = 0;
  int host_port = 0;  // 0: none
  std::string protocol = "TCP";
  std::string host_ip;
};

struct Container {
  std::string name;
  std::string image;
  ResourceRequirements resources;
  std::vector<ContainerPort> ports;
  std::string restart_policy;  // "Always" on an init container makes it a sidecar
};

struct PodAffinityTerm {
  std::optional<LabelSelector> label_selector;
  std::vector<std::string> namespaces;
  std::optional<LabelSelector> namespace_selector;
  std::string topology_key;
  std::vector<std::string> match_label_keys;
  std::vector<std::string> mismatch_label_keys;
};

struct WeightedPodAffinityTerm {
  int weight = 0;
  PodAffinityTerm term;
};

struct NodeAffinity {
  std::optional<NodeSelector> required;  // requiredDuringSchedulingIgnoredDuringExecution
  std::vector<PreferredSchedulingTerm> preferred;
};

struct PodAffinity {  // also used for anti-affinity
  std::vector<PodAffinityTerm> required;
  std::vector<WeightedPodAffinityTerm> preferred;
};

struct Affinity {
  std::optional<NodeAffinity> node_affinity;
  std::optional<PodAffinity> pod_affinity;
  std::optional<PodAffinity> pod_anti_affinity;
};

struct TopologySpreadConstraint {
  int max_skew = 1;
  std::string topology_key;
  std::string when_unsatisfiable = "DoNotSchedule";  // or ScheduleAnyway
  std::optional<LabelSelector> label_selector;
  std::optional<int> min_domains;
  std::string node_affinity_policy;  // Honor (default) | Ignore
  std::string node_taints_policy;    // Ignore (default) | Honor
  std::vector<std::string> match_label_keys;
};

struct Volume {
  std::string name;
  std::string pvc_claim_name;  // persistentVolumeClaim.claimName, "" if not a PVC volume
  bool ephemeral = false;      // generic ephemeral volume (a PVC named <pod>-<volume>)
};

struct PodSpec {
  std::string node_name;
  Labels node_selector;
  std::optional<Affinity> affinity;
  std::vector<Toleration> tolerations;
  std::vector<Container> init_containers;
  std::vector<Container> containers;
  ResourceList overhead;
  std::optional<ResourceRequirements> resources;  // pod-level resources
  std::vector<TopologySpreadConstraint> topology_spread_constraints;
  std::vector<Volume> volumes;
  std::optional<int> priority;
  std::string priority_class_name;
  std::string runtime_class_name;
  std::string scheduler_name;
  std::string service_account_name;
  std::optional<int64_t> termination_grace_period_seconds;
};

struct PodStatus {
  std::string phase;  // Pending, Running, Succeeded, Failed
  std::vector<Condition> conditions;
  std::optional<core::Time> start_time;
  std::string nominated_node_name;
};

struct Pod {
  ObjectMeta metadata;
  PodSpec spec;
  PodStatus status;
};

struct PodTemplateSpec {
  ObjectMeta metadata;
  PodSpec spec;
};

}  // namespace nodesmith::api
