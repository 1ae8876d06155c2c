#include "operator/shadow_cloud.h"

#include "cloud/launch_offering.h"
#include "scheduling/well_known_labels.h"

namespace nodesmith::op {

ShadowCloud::ShadowCloud(cloud::CloudProvider& real, const cluster::ClusterApi& cluster,
                         ShadowCloudOptions options)
    : real_(real), cluster_(cluster), options_(std::move(options)) {}

core::Result<api::NodeClaim> ShadowCloud::Create(const api::NodeClaim& node_claim) {
  auto pool_name = node_claim.metadata.labels.find(scheduling::kLabelNodePool);
  if (pool_name == node_claim.metadata.labels.end()) {
    return core::Status::Invalid("nodeclaim " + node_claim.metadata.name + " names no NodePool");
  }
  auto pool = cluster_.Get<api::NodePool>("", pool_name->second);
  if (!pool.ok()) return pool.status();
  auto types = real_.GetInstanceTypes(*pool);
  if (!types.ok()) return types.status();
  cloud::LaunchSearch search;
  search.catalog_source = real_.Name();
  auto choice = cloud::ChooseLaunchOffering(*types, node_claim, search);
  if (!choice.ok()) return choice.status();
  const std::string id =
      options_.provider_id_prefix + choice->offering->zone + "/shadow-" + node_claim.metadata.name;
  api::NodeClaim launched = cloud::LaunchedNodeClaim(node_claim, *choice->type, *choice->offering,
                                                     options_.region, id);
  launched_[id] = launched;
  if (options_.on_write) options_.on_write("launch", launched);
  return launched;
}

core::Status ShadowCloud::Delete(const api::NodeClaim& node_claim) {
  const std::string& id = node_claim.status.provider_id;
  if (launched_.erase(id) == 0) {
    if (terminated_.count(id) != 0) return core::Status::NotFound("instance " + id + " is gone");
    auto real = real_.Get(id);
    if (!real.ok()) return real.status();
    terminated_.insert(id);
  }
  if (options_.on_write) options_.on_write("terminate", node_claim);
  return core::Status::Ok();
}

core::Result<api::NodeClaim> ShadowCloud::Get(const std::string& provider_id) const {
  if (auto it = launched_.find(provider_id); it != launched_.end()) return it->second;
  if (terminated_.count(provider_id) != 0) {
    return core::Status::NotFound("instance " + provider_id + " is gone");
  }
  return real_.Get(provider_id);
}

std::vector<api::NodeClaim> ShadowCloud::List() const {
  std::vector<api::NodeClaim> out;
  for (api::NodeClaim& c : real_.List()) {
    if (terminated_.count(c.status.provider_id) == 0) out.push_back(std::move(c));
  }
  for (const auto& [id, c] : launched_) out.push_back(c);
  return out;
}

}  // namespace nodesmith::op
