// Conversion of legacy Karpenter documents to the current API versions, at the JSON level and
// before typed decoding, following Karpenter's published v1alpha5 -> v1beta1 -> v1 migration:
//
//   karpenter.sh/v1alpha5 Provisioner      -> karpenter.sh/v1 NodePool (an inline `provider`
//                                             becomes an EC2NodeClass named after it)
//   karpenter.sh/v1alpha5 Machine          -> karpenter.sh/v1 NodeClaim
//   karpenter.k8s.aws/v1alpha1 AWSNodeTemplate -> karpenter.k8s.aws/v1 EC2NodeClass
//   karpenter.sh/v1beta1 NodePool, NodeClaim; karpenter.k8s.aws/v1beta1 EC2NodeClass -> v1
//
// Also, on every object: the annotations karpenter.sh/do-not-evict and do-not-consolidate become
// karpenter.sh/do-not-disrupt, and the label keys karpenter.sh/provisioner-name and
// node.k8s.aws/capacity-type become karpenter.sh/nodepool and karpenter.sh/capacity-type (in
// labels, node selectors and requirements). Kubelet settings, which moved from the Provisioner /
// NodePool to the EC2NodeClass, are carried to the referenced EC2NodeClass (a copy named
// "<class>-<pool>" when two pools disagree).
#pragma once

#include <string>
#include <vector>

#include <nlohmann/json_fwd.hpp>

#include "api/object_set.h"
#include "core/status.h"

namespace nodesmith::api {

// True when `api_version`/`kind` names one of the legacy kinds above.
bool IsLegacyKind(const std::string& api_version, const std::string& kind);

// Rewrites every document of `docs` in place to current versions; a Provisioner with an inline
// provider adds its EC2NodeClass right after it (with the same source). Notes a user should read
// (settings that have no v1 equivalent, assumed values) are appended to `warnings`, each
// prefixed with the document's source. Fails with "<source>: field.path: reason" on a legacy
// setting that cannot be expressed in v1 (e.g. launchTemplate, amiFamily Ubuntu).
core::Status ConvertLegacyDocuments(std::vector<Sourced<nlohmann::ordered_json>>* docs,
                                    std::vector<std::string>* warnings);

}  // namespace nodesmith::api
