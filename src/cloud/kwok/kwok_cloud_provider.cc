#include "cloud/kwok/kwok_cloud_provider.h"

#include <cstdio>

#include "cloud/launch_offering.h"
#include "scheduling/requirements.h"
#include "scheduling/taints.h"
#include "scheduling/well_known_labels.h"

namespace nodesmith::cloud::kwok {

namespace s = scheduling;

namespace {

// Go's fmt "%f": six decimals.
std::string FormatPrice(double price) {
  char buf[64];
  std::snprintf(buf, sizeof(buf), "%f", price);
  return buf;
}

}  // namespace

std::string NodeNameOf(const std::string& provider_id) {
  const std::string prefix = kProviderIdPrefix;
  if (provider_id.compare(0, prefix.size(), prefix) != 0) return "";
  return provider_id.substr(prefix.size());
}

KwokCloudProvider::KwokCloudProvider(cluster::ClusterApi& cluster, Catalog catalog,
                                     KwokCloudProviderOptions options)
    : cluster_(cluster), catalog_(std::move(catalog)), options_(std::move(options)) {}

core::Result<api::NodeClaim> KwokCloudProvider::Create(const api::NodeClaim& node_claim) {
  KwokNodeClass node_class;
  const std::string& class_name = node_claim.spec.node_class_ref.name;
  if (options_.node_classes) {
    auto found = options_.node_classes(class_name);
    if (!found.ok()) {
      if (found.status().code() == core::StatusCode::kNotFound) {
        return core::Status::Unavailable("insufficient capacity: resolving node class " +
                                         std::string(kNodeClassKind) + "/" + class_name + ": " +
                                         found.status().message());
      }
      return found.status();
    }
    node_class = *found;
  }
  if (!node_class.ready) {
    return core::Status(core::StatusCode::kFailedPrecondition,
                        std::string(kNodeClassKind) + "/" + class_name + " is not ready: " +
                            node_class.not_ready_message);
  }

  auto choice = ChooseLaunchOffering(catalog_.instance_types, node_claim,
                                     {catalog_.well_known_labels.empty()
                                          ? nullptr
                                          : &catalog_.well_known_labels,
                                      nullptr, catalog_.source});
  if (!choice.ok()) return choice.status();
  const InstanceType& type = *choice->type;
  const Offering& offering = *choice->offering;

  const std::string name = node_claim.metadata.name;
  const std::string provider_id = kProviderIdPrefix + name;
  api::NodeClaim launched =
      LaunchedNodeClaim(node_claim, type, offering, catalog_.region, provider_id);

  api::Node node;
  node.metadata.name = name;
  node.metadata.labels = launched.metadata.labels;
  node.metadata.labels[kNodeViewerPriceLabel] = FormatPrice(offering.price);
  node.metadata.labels[s::kLabelHostname] = name;
  node.metadata.labels[kKwokNodeKey] = kKwokNodeValue;
  node.metadata.annotations = node_claim.metadata.annotations;
  node.metadata.annotations[kKwokNodeKey] = kKwokNodeValue;
  node.spec.provider_id = provider_id;
  node.spec.taints = {api::Taint{s::kTaintUnregistered, "", "NoExecute"}};
  node.status.capacity = type.capacity;
  node.status.allocatable = type.allocatable;

  pending_[provider_id] = {launched, std::move(node)};
  if (node_class.registration_delay > core::Duration(0) && options_.schedule) {
    options_.schedule(node_class.registration_delay,
                      [this, provider_id] { Register(provider_id); });
  } else {
    Register(provider_id);
  }
  return launched;
}

void KwokCloudProvider::Register(const std::string& provider_id) {
  auto it = pending_.find(provider_id);
  if (it == pending_.end()) return;  // deleted meanwhile
  api::Node node = std::move(it->second.second);
  pending_.erase(it);
  auto created = cluster_.Create(node);
  if (!created.ok() && created.status().code() != core::StatusCode::kAlreadyExists) {
    // The NodeClaim's registration TTL deletes it if the Node never appears, as for a real
    // instance that fails to join.
    Log("creating node " + node.metadata.name + " for " + provider_id + ": " +
        created.status().message());
  }
}

core::Status KwokCloudProvider::Delete(const api::NodeClaim& node_claim) {
  const std::string& provider_id = node_claim.status.provider_id;
  if (pending_.erase(provider_id) > 0) return core::Status::Ok();
  const std::string node_name = NodeNameOf(provider_id);
  if (node_name.empty()) {
    return core::Status::NotFound("instance " + provider_id + " not found");
  }
  auto node = cluster_.Get<api::Node>("", node_name);
  if (!node.ok() || node->spec.provider_id != provider_id) {
    return core::Status::NotFound("instance " + provider_id + " not found");
  }
  if (node->metadata.deletion_timestamp) return core::Status::Ok();
  core::Status deleted = cluster_.Delete<api::Node>("", node_name);
  if (deleted.code() == core::StatusCode::kNotFound) {
    return core::Status::NotFound("instance " + provider_id + " not found");
  }
  return deleted;
}

api::NodeClaim KwokCloudProvider::FromNode(const api::Node& node) {
  api::NodeClaim claim;
  claim.metadata.name = node.metadata.name;
  claim.metadata.labels = node.metadata.labels;
  claim.metadata.annotations = node.metadata.annotations;
  claim.metadata.creation_timestamp = node.metadata.creation_timestamp;
  claim.status.node_name = node.metadata.name;
  claim.status.provider_id = node.spec.provider_id;
  claim.status.capacity = node.status.capacity;
  claim.status.allocatable = node.status.allocatable;
  return claim;
}

core::Result<api::NodeClaim> KwokCloudProvider::Get(const std::string& provider_id) const {
  if (auto it = pending_.find(provider_id); it != pending_.end()) return it->second.first;
  const std::string node_name = NodeNameOf(provider_id);
  if (!node_name.empty()) {
    auto node = cluster_.Get<api::Node>("", node_name);
    if (node.ok() && node->spec.provider_id == provider_id &&
        !node->metadata.deletion_timestamp) {
      return FromNode(*node);
    }
  }
  return core::Status::NotFound("instance " + provider_id + " not found");
}

std::vector<api::NodeClaim> KwokCloudProvider::List() const {
  std::vector<api::NodeClaim> out;
  for (const auto& [id, entry] : pending_) out.push_back(entry.first);
  cluster_.ForEachObject(cluster::Kind::kNode, [&](const cluster::Object& o) {
    const auto& node = std::get<api::Node>(o);
    if (NodeNameOf(node.spec.provider_id).empty() || node.metadata.deletion_timestamp) return;
    if (pending_.count(node.spec.provider_id) != 0) return;
    out.push_back(FromNode(node));
  });
  return out;
}

core::Result<InstanceTypes> KwokCloudProvider::GetInstanceTypes(const api::NodePool&) const {
  return catalog_.instance_types;
}

void KwokCloudProvider::Log(const std::string& message) const {
  if (options_.log) options_.log(message);
}

}  // namespace nodesmith::cloud::kwok
