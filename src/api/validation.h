// Semantic validation of decoded objects: the rules of Karpenter's v1 CRDs (OpenAPI patterns,
// enums, bounds and x-kubernetes-validations) and the Kubernetes rules nodesmith relies on.
//
// Each function returns the first violation as InvalidArgument "field.path: rule", the path
// counted from the object's root ("spec.template.spec.requirements[0].minValues: 3 is more than
// the 2 values given"). Runs after decoding (and defaulting), so defaults are validated too.
#pragma once

#include "api/ec2nodeclass.h"
#include "api/instance_type_catalog.h"
#include "api/node.h"
#include "api/nodeclaim.h"
#include "api/nodepool.h"
#include "api/pod.h"
#include "api/policy.h"
#include "api/storage.h"
#include "api/workloads.h"
#include "core/status.h"

namespace nodesmith::api {

// metadata.name present and a DNS-1123 subdomain; label keys and values well formed.
core::Status ValidateObjectMeta(const ObjectMeta& meta);

core::Status ValidateNodePool(const NodePool& pool);
core::Status ValidateNodeClaim(const NodeClaim& claim);
core::Status ValidateEC2NodeClass(const EC2NodeClass& node_class);
core::Status ValidateInstanceTypeCatalog(const InstanceTypeCatalog& catalog);
// Operators of node selectors, label selectors and tolerations; taint effects.
core::Status ValidatePodSpec(const PodSpec& spec, const std::string& path);
core::Status ValidateNode(const Node& node);
core::Status ValidateLabelSelector(const LabelSelector& selector, const std::string& path);

}  // namespace nodesmith::api
