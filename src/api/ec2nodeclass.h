// EC2NodeClass (karpenter.k8s.aws/v1): how to launch an EC2 instance. nodesmith reads the
// kubelet settings (they change allocatable and max pods) and the block device mappings
// (ephemeral storage); the selector terms, role and user data are carried for the AWS provider
// and for `convert`. Legacy AWSNodeTemplate and v1beta1 documents are converted on load.
#pragma once

#include <map>
#include <optional>
#include <string>
#include <vector>

#include "api/meta.h"
#include "api/resource_list.h"
#include "api/selector.h"

namespace nodesmith::api {

struct KubeletConfiguration {
  std::optional<int> max_pods;
  std::optional<int> pods_per_core;
  std::map<std::string, std::string> system_reserved;  // resource -> quantity text
  std::map<std::string, std::string> kube_reserved;
  std::map<std::string, std::string> eviction_hard;    // signal -> "100Mi" or "10%"
  std::map<std::string, std::string> eviction_soft;
  std::vector<std::string> cluster_dns;
  std::optional<bool> cpu_cfs_quota;
  std::optional<int> image_gc_high_threshold_percent;
  std::optional<int> image_gc_low_threshold_percent;
};

// A selector term: tags (all must match), or an id, or a name (meaning depends on the list).
struct SelectorTerm {
  std::map<std::string, std::string> tags;
  std::string id;
  std::string name;
  std::string owner;   // AMI terms
  std::string alias;   // AMI terms: "al2023@latest", "bottlerocket@latest", ...
  std::string ssm_parameter;
};

struct BlockDevice {
  std::optional<std::string> volume_size;  // quantity text, e.g. "100Gi"
  std::string volume_type;
  std::optional<int> iops;
  std::optional<int> throughput;
  std::optional<bool> encrypted;
  std::optional<bool> delete_on_termination;
  std::string kms_key_id;
  std::string snapshot_id;
};

struct BlockDeviceMapping {
  std::string device_name;
  BlockDevice ebs;
  bool root_volume = false;
};

struct MetadataOptions {
  std::string http_endpoint = "enabled";
  std::string http_protocol_ipv6 = "disabled";
  int http_put_response_hop_limit = 1;
  std::string http_tokens = "required";
};

// What the selector terms resolved to, as status lists it (the EC2NodeClass controller writes it).
struct SubnetStatus {
  std::string id;
  std::string zone;
  std::string zone_id;
  bool operator==(const SubnetStatus&) const = default;
};
struct SecurityGroupStatus {
  std::string id;
  std::string name;
  bool operator==(const SecurityGroupStatus&) const = default;
};
struct AMIStatus {
  std::string id;
  std::string name;
  std::vector<NodeSelectorRequirement> requirements;  // the architecture (and variant) it serves
  bool deprecated = false;
  bool operator==(const AMIStatus&) const = default;
};

struct EC2NodeClass {
  ObjectMeta metadata;
  std::string ami_family;  // derived from an alias when not set
  std::vector<SelectorTerm> ami_selector_terms;
  std::vector<SelectorTerm> subnet_selector_terms;
  std::vector<SelectorTerm> security_group_selector_terms;
  std::vector<SelectorTerm> capacity_reservation_selector_terms;
  std::string role;
  std::string instance_profile;
  std::optional<std::string> user_data;
  std::map<std::string, std::string> tags;
  std::optional<KubeletConfiguration> kubelet;
  std::vector<BlockDeviceMapping> block_device_mappings;
  std::string instance_store_policy;  // "" or RAID0
  std::optional<bool> detailed_monitoring;
  std::optional<bool> associate_public_ip_address;
  MetadataOptions metadata_options;
  std::string context;
  std::vector<Condition> conditions;  // status.conditions (Ready: the NodePools' NodeClassReady)
  std::vector<SubnetStatus> status_subnets;                // status.subnets
  std::vector<SecurityGroupStatus> status_security_groups;  // status.securityGroups
  std::vector<AMIStatus> status_amis;                       // status.amis
  std::string status_instance_profile;                      // status.instanceProfile
};

}  // namespace nodesmith::api
