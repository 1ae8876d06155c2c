// NodeClassStatusController: keeps each EC2NodeClass's status as Karpenter's nodeclass
// controller does — status.subnets (id, zone, zoneID), status.securityGroups (id, name),
// status.amis (id, name, the architecture requirement, deprecated) and the conditions
// SubnetsReady, SecurityGroupsReady, AMIsReady and Ready — so NodePools see NodeClassReady and
// `kubectl get ec2nodeclasses` shows what launches will use.
//
// It asks the provider (AwsCloudProvider::Resolve), so the status is the resolution launches use.
// It writes only when something changed, and only status (the three-way merge keeps every other
// field). A class being deleted is left alone. Each class is looked at again after
// `refresh_interval` (AMI_REFRESH_INTERVAL / SUBNET_REFRESH_INTERVAL, the shorter), as new AMIs
// and subnets appear without an event. A failed AWS call is the reconcile's error (backoff).
// Not thread-safe. REQUIRES: every reference outlives the controller.
#pragma once

#include <string>
#include <vector>

#include "cloud/aws/aws_cloud_provider.h"
#include "cluster/cluster_api.h"
#include "core/clock.h"
#include "runtime/controller.h"

namespace nodesmith::aws {

inline constexpr const char* kNodeClassStatusControllerName = "nodeclass.status";

struct NodeClassStatusOptions {
  core::Duration refresh_interval = std::chrono::minutes(1);
};

// The status fields a resolution gives (the conditions, subnets, security groups and AMIs of
// `resolved` written into `node_class`); true when any changed.
bool ApplyResolution(const ResolvedNodeClass& resolved, api::EC2NodeClass& node_class);

class NodeClassStatusController : public runtime::Controller {
 public:
  NodeClassStatusController(cluster::ClusterApi& cluster, AwsCloudProvider& provider,
                            NodeClassStatusOptions options = {});

  std::string Name() const override { return kNodeClassStatusControllerName; }
  std::vector<cluster::Kind> Watches() const override { return {cluster::Kind::kEC2NodeClass}; }
  bool Singleton() const override { return false; }
  core::Result<runtime::ReconcileResult> Reconcile(const runtime::Request& request) override;

 private:
  cluster::ClusterApi& cluster_;
  AwsCloudProvider& provider_;
  NodeClassStatusOptions options_;
};

}  // namespace nodesmith::aws
