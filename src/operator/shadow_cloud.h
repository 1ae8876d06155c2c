// ShadowCloud: the CloudProvider of shadow mode (`nodesmith controller --dry-run`) over a real
// cloud. Shadow mode must launch and terminate nothing, and the ShadowCluster keeps only the
// Kubernetes API out of reach; a provider like EC2's calls its cloud directly. So here:
//   Create   picks what the real provider would launch — the cheapest available compatible
//            offering of the real provider's instance types for the NodeClaim's NodePool — and
//            returns the NodeClaim as launched there, with provider id
//            "<prefix><zone>/shadow-<NodeClaim name>"; nothing is sent to the cloud;
//   Delete   of a shadow instance forgets it; of a real one remembers it as terminated (Get says
//            NotFound and List leaves it out from then on) without sending anything;
//   Get/List the shadow instances, and the real provider's minus the would-be terminated;
//   GetInstanceTypes, IsDrifted, Name: the real provider's.
// Every launch and termination it absorbs is reported to `on_write`. The NodeClaims it launches
// never get Nodes (no instance boots), so in shadow mode they count as launches decided, not as
// capacity. Not thread-safe, like the providers. REQUIRES: `real` and `cluster` outlive it.
#pragma once

#include <functional>
#include <map>
#include <set>
#include <string>
#include <vector>

#include "cloud/cloud_provider.h"
#include "cluster/cluster_api.h"

namespace nodesmith::op {

struct ShadowCloudOptions {
  std::string provider_id_prefix = "aws:///";
  std::string region;  // the topology.kubernetes.io/region label of launches
  // "launch" or "terminate", and the NodeClaim it concerns.
  std::function<void(const std::string& verb, const api::NodeClaim&)> on_write;
};

class ShadowCloud : public cloud::CloudProvider {
 public:
  ShadowCloud(cloud::CloudProvider& real, const cluster::ClusterApi& cluster,
              ShadowCloudOptions options);

  core::Result<api::NodeClaim> Create(const api::NodeClaim& node_claim) override;
  core::Status Delete(const api::NodeClaim& node_claim) override;
  core::Result<api::NodeClaim> Get(const std::string& provider_id) const override;
  std::vector<api::NodeClaim> List() const override;
  core::Result<cloud::InstanceTypes> GetInstanceTypes(const api::NodePool& node_pool) const override {
    return real_.GetInstanceTypes(node_pool);
  }
  cloud::DriftReason IsDrifted(const api::NodeClaim& node_claim) const override {
    return real_.IsDrifted(node_claim);
  }
  std::string Name() const override { return real_.Name(); }

 private:
  cloud::CloudProvider& real_;
  const cluster::ClusterApi& cluster_;
  ShadowCloudOptions options_;
  std::map<std::string, api::NodeClaim> launched_;  // by provider id
  std::set<std::string> terminated_;                 // real provider ids "terminated" here
};

}  // namespace nodesmith::op
