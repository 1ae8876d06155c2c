#include "controllers/nodepool/readiness.h"

#include "api/conditions.h"
#include "api/ec2nodeclass.h"
#include "cloud/kwok/kwok_cloud_provider.h"
#include "controllers/nodepool/conditions.h"
#include "scheduling/well_known_labels.h"

namespace nodesmith::controllers {

NodePoolReadiness::NodePoolReadiness(const core::Clock& clock, cluster::ClusterApi& cluster)
    : clock_(clock), cluster_(cluster) {}

core::Result<bool> NodePoolReadiness::Update(api::NodePool& pool) const {
  const api::NodeClassReference& ref = pool.template_.spec.node_class_ref;
  const core::Time now = clock_.Now();
  auto set = [&](const std::string& status, const std::string& reason, const std::string& message) {
    return SetNodePoolCondition(pool, kConditionNodeClassReady, status, reason, message, now);
  };
  if (ref.group == cloud::kwok::kNodeClassGroup && ref.kind == cloud::kwok::kNodeClassKind) {
    return set("True", kConditionNodeClassReady, "");
  }
  if (ref.group != scheduling::kAwsGroup || ref.kind != "EC2NodeClass") return false;

  auto node_class = cluster_.Get<api::EC2NodeClass>("", ref.name);
  if (!node_class.ok()) {
    if (node_class.status().code() != core::StatusCode::kNotFound) return node_class.status();
    return set("False", kReasonNodeClassNotFound, "NodeClass not found on cluster");
  }
  if (node_class->metadata.deletion_timestamp) {
    return set("False", kReasonNodeClassTerminating, "NodeClass is Terminating");
  }
  const api::Condition* ready = api::FindCondition(node_class->conditions, kConditionReady);
  if (ready == nullptr || (ready->status != "True" && ready->status != "False")) {
    return set("False", kReasonNodeClassReadinessUnknown, "Node Class Readiness Unknown");
  }
  if (ready->status == "False") return set("False", ready->reason, ready->message);
  return set("True", kConditionNodeClassReady, "");
}

core::Result<runtime::ReconcileResult> NodePoolReadiness::Reconcile(const runtime::Request&) {
  for (api::NodePool pool : cluster_.List<api::NodePool>()) {
    auto changed = Update(pool);
    if (!changed.ok()) return changed.status().WithPrefix("nodepool " + pool.metadata.name);
    if (*changed) NS_RETURN_IF_ERROR(WriteNodePool(cluster_, pool, "setting readiness"));
  }
  return runtime::ReconcileResult::Done();
}

}  // namespace nodesmith::controllers
