#include "controllers/provisioning/nodeclaim_builder.h"

#include <utility>

#include "controllers/common/karpenter.h"
#include "scheduling/well_known_labels.h"

namespace nodesmith::controllers {

api::NodeClaim BuildNodeClaim(const solver::NewNodeClaim& planned, const api::NodePool& pool) {
  api::NodeClaim claim;
  claim.metadata.generate_name = pool.metadata.name + "-";
  claim.metadata.labels = pool.template_.labels;
  for (const auto& [k, v] : planned.labels) claim.metadata.labels[k] = v;
  claim.metadata.labels[scheduling::kLabelNodePool] = pool.metadata.name;
  claim.metadata.annotations = pool.template_.annotations;
  claim.metadata.annotations[kNodePoolHashAnnotation] = NodePoolHash(pool);
  claim.metadata.annotations[kNodePoolHashVersionAnnotation] = kNodePoolHashVersion;
  claim.metadata.finalizers = {kTerminationFinalizer};
  claim.metadata.owner_references.push_back(
      api::OwnerReference{"karpenter.sh/v1", "NodePool", pool.metadata.name, pool.metadata.uid,
                          false});

  for (auto& r : planned.requirements.ToNodeSelectorRequirements()) {
    if (r.key == scheduling::kLabelInstanceTypeStable) continue;
    claim.spec.requirements.push_back(std::move(r));
  }
  claim.spec.requirements.push_back(api::NodeSelectorRequirement{
      scheduling::kLabelInstanceTypeStable, "In", planned.instance_type_options, std::nullopt});
  claim.spec.resource_requests = planned.requests;
  claim.spec.taints = pool.template_.spec.taints;
  claim.spec.startup_taints = pool.template_.spec.startup_taints;
  claim.spec.node_class_ref = pool.template_.spec.node_class_ref;
  claim.spec.expire_after = pool.template_.spec.expire_after;
  claim.spec.termination_grace_period = pool.template_.spec.termination_grace_period;
  return claim;
}

}  // namespace nodesmith::controllers
