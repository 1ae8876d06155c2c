// The schema of a NodeClaim's spec, which a NodePool's spec.template.spec also follows (without
// resources, and with the rules a template needs on top).
#pragma once

#include "crds/schema.h"

namespace nodesmith::crds {

enum class NodeClaimSpecUse {
  kNodeClaim,         // NodeClaim spec: has resources.requests; may name karpenter.sh/nodepool
  kNodePoolTemplate,  // NodePool spec.template.spec: nodeClassRef group and kind immutable
};

// The rules on a label key a NodePool or NodeClaim constrains or sets: the karpenter.sh domain is
// reserved (but for karpenter.sh/capacity-type and karpenter.sh/nodepool), and so is
// kubernetes.io/hostname; a NodePool may not name karpenter.sh/nodepool either. `over_map` gives
// the rules for the keys of a map (`self.all(x, ...)`), else for one key string.
Schema& AddRestrictedLabelRules(Schema& schema, NodeClaimSpecUse use, bool over_map);

Schema NodeClaimSpec(NodeClaimSpecUse use);

}  // namespace nodesmith::crds
