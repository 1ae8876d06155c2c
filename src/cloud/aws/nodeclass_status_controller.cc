#include "cloud/aws/nodeclass_status_controller.h"

#include "scheduling/well_known_labels.h"

namespace nodesmith::aws {

bool ApplyResolution(const ResolvedNodeClass& resolved, api::EC2NodeClass& node_class) {
  std::vector<api::SubnetStatus> subnets;
  for (const Subnet& s : resolved.subnets) subnets.push_back({s.id, s.zone, s.zone_id});
  std::vector<api::SecurityGroupStatus> groups;
  for (const SecurityGroup& g : resolved.security_groups) groups.push_back({g.id, g.name});
  std::vector<api::AMIStatus> amis;
  for (const ResolvedImage& image : resolved.images) {
    api::AMIStatus a;
    a.id = image.id;
    a.name = image.name;
    const std::string arch = KubernetesArchOf(image.architecture);
    if (!arch.empty()) {
      a.requirements.push_back({scheduling::kLabelArchStable, "In", {arch}, std::nullopt});
    }
    a.deprecated = image.deprecated;
    amis.push_back(std::move(a));
  }

  bool changed = false;
  auto assign = [&changed](auto& field, auto value) {
    if (field == value) return;
    field = std::move(value);
    changed = true;
  };
  assign(node_class.status_subnets, std::move(subnets));
  assign(node_class.status_security_groups, std::move(groups));
  assign(node_class.status_amis, std::move(amis));
  // The resolver kept the transition times of conditions whose status did not change, so equal
  // conditions compare equal.
  std::vector<api::Condition> conditions = node_class.conditions;
  for (const api::Condition& c : resolved.conditions) {
    api::Condition* existing = nullptr;
    for (api::Condition& e : conditions) {
      if (e.type == c.type) existing = &e;
    }
    if (existing == nullptr) conditions.push_back(c);
    else *existing = c;
  }
  assign(node_class.conditions, std::move(conditions));
  return changed;
}

NodeClassStatusController::NodeClassStatusController(cluster::ClusterApi& cluster,
                                                     AwsCloudProvider& provider,
                                                     NodeClassStatusOptions options)
    : cluster_(cluster), provider_(provider), options_(options) {}

core::Result<runtime::ReconcileResult> NodeClassStatusController::Reconcile(
    const runtime::Request& request) {
  auto node_class = cluster_.Get<api::EC2NodeClass>("", request.name);
  if (!node_class.ok()) {
    if (node_class.status().code() == core::StatusCode::kNotFound) return runtime::ReconcileResult{};
    return node_class.status();
  }
  if (node_class->metadata.deletion_timestamp) return runtime::ReconcileResult{};
  auto resolved = provider_.Resolve(*node_class);
  if (!resolved.ok()) return resolved.status().WithPrefix("EC2NodeClass " + request.name);
  if (ApplyResolution(**resolved, *node_class)) {
    auto written = cluster_.Update<api::EC2NodeClass>(*node_class);
    if (!written.ok()) {
      return written.status().WithPrefix("EC2NodeClass " + request.name + ": writing status");
    }
  }
  return runtime::ReconcileResult::RequeueAfter(options_.refresh_interval);
}

}  // namespace nodesmith::aws
