// Which label keys a NodePool or NodeClaim may constrain (requirements) or set (template
// labels): the restricted-domain rules of Karpenter's v1 CRDs, core and AWS provider.
//
// A key's domain is the part before the first "/" (the whole key when there is none), as the
// CRDs' `find("^([^/]+)")` takes it. The scheduling layer keeps its own well-known-label set;
// this list covers only what validation needs, so api/ stays below scheduling/.
#pragma once

#include <string>
#include <string_view>
#include <vector>

namespace nodesmith::api {

enum class LabelUse {
  kNodePoolRequirement,   // spec.template.spec.requirements[].key
  kNodeClaimRequirement,  // NodeClaim spec.requirements[].key (may name karpenter.sh/nodepool)
  kTemplateLabel,         // spec.template.metadata.labels keys
};

// The domain of `key` ("karpenter.sh" for "karpenter.sh/nodepool").
std::string_view LabelDomain(std::string_view key);

// The CRD's message when `key` may not be used as `use` (e.g. `label domain "karpenter.sh" is
// restricted`), or "" when it is allowed.
std::string RestrictedLabelMessage(std::string_view key, LabelUse use);

// The karpenter.k8s.aws labels instance types carry, which users may name.
const std::vector<std::string>& AwsWellKnownLabels();

}  // namespace nodesmith::api
