// The user data an EC2 instance boots with: how the node finds its cluster and how its kubelet
// registers (labels, the startup taints, max pods, reserved resources, eviction thresholds), in
// the format each AMI family's bootstrap reads, with the EC2NodeClass's spec.userData merged in
// the way Karpenter's AWS provider merges it (pkg/providers/amifamily/bootstrap).
//
//   AL2           MIME multipart (boundary "//"): the user's parts, then a shell part calling
//                 /etc/eks/bootstrap.sh.
//   AL2023        MIME multipart: the user's parts (shell scripts, NodeConfig documents), then
//                 nodesmith's node.eks.aws/v1alpha1 NodeConfig, last so that nodeadm lets its
//                 fields win over the user's.
//   Bottlerocket  TOML settings; the user's settings with nodesmith's written over them.
//   Windows       a <powershell> block: the user's script, then Start-EKSBootstrap.ps1.
//   Custom        the user's data, untouched: the AMI bootstraps itself.
//
// The output is a pure function of the options: maps are walked in key order and taints are
// sorted, so equal options give equal bytes (the launch template's name is a hash of them).
//
// The TOML reader and writer below exist for Bottlerocket's settings alone; they cover what
// those settings use and reject the rest with an error that names the construct.
#pragma once

#include <cstdint>
#include <map>
#include <optional>
#include <string>
#include <string_view>
#include <variant>
#include <vector>

#include "api/ec2nodeclass.h"
#include "api/selector.h"
#include "cloud/ec2_overhead.h"
#include "cloud/aws/toml.h"
#include "core/base64.h"
#include "core/status.h"

namespace nodesmith::aws {

using cloud::AmiFamily;

struct BootstrapOptions {
  std::string cluster_name;
  std::string cluster_endpoint;
  std::string ca_bundle_base64;  // the cluster CA, base64 as EKS reports it; "" to omit
  // The cluster DNS service's address, used when kubelet.cluster_dns is empty.
  std::string cluster_dns_ip;
  std::string cluster_cidr;  // the service CIDR; AL2023's NodeConfig requires it
  std::map<std::string, std::string> labels;
  // Registered with the node, in any order (the output sorts them). The caller includes
  // karpenter.sh/unregistered:NoExecute.
  std::vector<api::Taint> taints;
  // The pod limit resolved for the instance type; when absent kubelet->max_pods applies, and
  // when both are absent the AMI's own default does.
  std::optional<int> max_pods;
  std::optional<api::KubeletConfiguration> kubelet;
  std::optional<std::string> custom_user_data;  // EC2NodeClass spec.userData
  std::string instance_store_policy;            // "" or "RAID0"
};

// The user data for `family`, not base64-encoded. Fails with InvalidArgument, naming
// spec.userData, when the custom user data cannot be merged (a MIME document that does not
// parse, a YAML document that is not a NodeConfig, TOML that does not parse or is not
// Bottlerocket settings), and with FailedPrecondition when AL2023 has no cluster CIDR.
core::Result<std::string> BuildUserData(AmiFamily family, const BootstrapOptions& options);

// (Base64Encode of core/base64.h turns it into what EC2 expects.)

}  // namespace nodesmith::aws
