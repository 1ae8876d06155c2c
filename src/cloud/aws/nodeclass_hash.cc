#include "cloud/aws/nodeclass_hash.h"

#include <algorithm>

#include <nlohmann/json.hpp>

#include "api/codec.h"
#include "core/field_hasher.h"

namespace nodesmith::aws {

std::string EC2NodeClassHash(const api::EC2NodeClass& node_class, const std::string& ca_bundle) {
  // nlohmann::json keeps object keys sorted: one text per spec, whatever order it was written in.
  nlohmann::json spec = nlohmann::json::parse(api::EncodeEC2NodeClass(node_class)["spec"].dump());
  for (const char* ignored : {"amiFamily", "amiSelectorTerms", "subnetSelectorTerms",
                              "securityGroupSelectorTerms", "capacityReservationSelectorTerms",
                              "ipPrefixCount"}) {
    spec.erase(ignored);
  }
  if (auto it = spec.find("blockDeviceMappings"); it != spec.end()) {
    std::vector<std::string> mappings;
    for (const nlohmann::json& m : *it) mappings.push_back(m.dump());
    std::sort(mappings.begin(), mappings.end());
    *it = mappings;
  }
  core::FieldHasher h;
  h.Add(spec.dump()).Add(node_class.ami_family).Add(ca_bundle);
  return std::to_string(h.value());
}

NodeClassHashController::NodeClassHashController(cluster::ClusterApi& cluster,
                                                 std::string ca_bundle)
    : cluster_(cluster), ca_bundle_(std::move(ca_bundle)) {}

core::Status NodeClassHashController::RestampNodeClaims(const std::string& node_class,
                                                        const std::string& hash) {
  core::Status first_error;
  for (api::NodeClaim claim : cluster_.List<api::NodeClaim>()) {
    if (claim.spec.node_class_ref.name != node_class) continue;
    if (!claim.spec.node_class_ref.kind.empty() && claim.spec.node_class_ref.kind != "EC2NodeClass")
      continue;
    if (!api::RestampNodeClaim(claim, kEC2NodeClassHashStamp, hash)) continue;
    auto updated = cluster_.Update(claim);
    if (!updated.ok() && updated.status().code() != core::StatusCode::kNotFound &&
        first_error.ok()) {
      first_error = updated.status().WithPrefix("updating the EC2NodeClass hash of nodeclaim " +
                                                claim.metadata.name);
    }
  }
  return first_error;
}

core::Result<runtime::ReconcileResult> NodeClassHashController::Reconcile(
    const runtime::Request& request) {
  auto node_class = cluster_.Get<api::EC2NodeClass>("", request.name);
  if (!node_class.ok()) {
    if (node_class.status().code() == core::StatusCode::kNotFound) return runtime::ReconcileResult{};
    return node_class.status();
  }
  const std::string hash = EC2NodeClassHash(*node_class, ca_bundle_);
  if (!api::HasCurrentHashVersion(node_class->metadata, kEC2NodeClassHashStamp)) {
    NS_RETURN_IF_ERROR(RestampNodeClaims(request.name, hash));
  }
  if (api::SetHashStamp(node_class->metadata, kEC2NodeClassHashStamp, hash)) {
    auto written = cluster_.Update<api::EC2NodeClass>(*node_class);
    if (!written.ok() && written.status().code() != core::StatusCode::kNotFound) {
      return written.status().WithPrefix("EC2NodeClass " + request.name + ": writing the hash");
    }
  }
  return runtime::ReconcileResult{};
}

}  // namespace nodesmith::aws
