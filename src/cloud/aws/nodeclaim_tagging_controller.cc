#include "cloud/aws/nodeclaim_tagging_controller.h"

#include "cloud/aws/aws_cloud_provider.h"
#include "cloud/aws/fleet_request.h"

namespace nodesmith::aws {

namespace {

bool Marked(const api::NodeClaim& c, const char* annotation) {
  auto it = c.metadata.annotations.find(annotation);
  return it != c.metadata.annotations.end() && it->second == "true";
}

}  // namespace

NodeClaimTaggingController::NodeClaimTaggingController(cluster::ClusterApi& cluster,
                                                       AwsSession& session,
                                                       std::string cluster_name)
    : cluster_(cluster), session_(session), cluster_name_(std::move(cluster_name)) {}

core::Result<runtime::ReconcileResult> NodeClaimTaggingController::Reconcile(
    const runtime::Request& request) {
  auto claim = cluster_.Get<api::NodeClaim>("", request.name);
  if (!claim.ok()) {
    if (claim.status().code() == core::StatusCode::kNotFound) return runtime::ReconcileResult{};
    return claim.status();
  }
  if (claim->status.node_name.empty() || claim->metadata.deletion_timestamp ||
      (Marked(*claim, kAnnotationInstanceTagged) && Marked(*claim, kAnnotationClusterNameTagged))) {
    return runtime::ReconcileResult{};
  }
  const std::string id = AwsCloudProvider::InstanceIdOf(claim->status.provider_id);
  if (id.empty()) return runtime::ReconcileResult{};  // not an instance of this provider

  auto instances = session_.ec2().DescribeInstances({}, {id});
  if (!instances.ok()) {
    if (instances.status().code() == core::StatusCode::kNotFound) return runtime::ReconcileResult{};
    return instances.status().WithPrefix("tagging nodeclaim " + request.name);
  }
  if (instances->empty() || instances->front().state == "terminated" ||
      instances->front().state == "shutting-down") {
    return runtime::ReconcileResult{};
  }
  Tags missing;
  for (const auto& [key, value] : Tags{{kTagName, claim->status.node_name},
                                       {kTagNodeClaim, claim->metadata.name},
                                       {kTagEksClusterName, cluster_name_}}) {
    bool has = false;
    for (const auto& [k, v] : instances->front().tags) has = has || k == key;
    if (!has) missing.emplace_back(key, value);
  }
  if (!missing.empty()) {
    core::Status tagged = session_.ec2().CreateTags({id}, missing);
    if (!tagged.ok()) {
      if (tagged.code() == core::StatusCode::kNotFound) return runtime::ReconcileResult{};
      return tagged.WithPrefix("tagging nodeclaim " + request.name);
    }
  }
  claim->metadata.annotations[kAnnotationInstanceTagged] = "true";
  claim->metadata.annotations[kAnnotationClusterNameTagged] = "true";
  auto written = cluster_.Update<api::NodeClaim>(*claim);
  if (!written.ok() && written.status().code() != core::StatusCode::kNotFound) {
    return written.status().WithPrefix("tagging nodeclaim " + request.name);
  }
  return runtime::ReconcileResult{};
}

}  // namespace nodesmith::aws
