// NodeClassStatusController: keeps each EC2NodeClass as Karpenter's nodeclass controller does.
//
// A class in use:
//   - carries the finalizer karpenter.k8s.aws/termination, so its deletion waits for cleanup;
//   - has status.instanceProfile and InstanceProfileReady (instance_profile.h) when given an
//     InstanceProfileReconciler;
//   - has status.subnets (id, zone, zoneID), status.securityGroups (id, name), status.amis (id,
//     name, the architecture requirement, deprecated) and SubnetsReady, SecurityGroupsReady,
//     AMIsReady, taken from the provider (AwsCloudProvider::Resolve), so the status is the
//     resolution launches use;
//   - has ValidationSucceeded, once those are True: AwsCloudProvider::Validate's dry runs of
//     CreateLaunchTemplate, CreateFleet and RunInstances, whose answer is kept `validation_ttl`
//     for the same resolution and generation (True without the calls under DISABLE_DRY_RUN;
//     False, DependenciesNotReady, while a dependency is False; Unknown while one is unknown);
//   - says Ready when all of those conditions are True (NodePools read it as NodeClassReady).
// It writes only when something changed; the three-way merge keeps every field it did not set.
// Each class is looked at again after `refresh_interval` (AMI_REFRESH_INTERVAL /
// SUBNET_REFRESH_INTERVAL, the shorter), as new AMIs and subnets appear without an event.
//
// A class being deleted: while NodeClaims still name it, it waits (looking again every
// `waiting_interval`, a WaitingOnNodeClaimTermination event at most every `waiting_event_every`);
// then the instance profiles made for it and its launch templates are deleted and the finalizer
// removed. With `dry_run` (shadow mode) nothing is created or deleted in AWS and a deleted class
// is left to the autoscaler that owns it. A failed AWS call is the reconcile's error (backoff).
// Not thread-safe. REQUIRES: every reference and pointer outlives the controller.
#pragma once

#include <map>
#include <string>
#include <vector>

#include "cloud/aws/aws_cloud_provider.h"
#include "cloud/aws/instance_profile.h"
#include "cluster/cluster_api.h"
#include "core/clock.h"
#include "runtime/controller.h"
#include "runtime/event_recorder.h"

namespace nodesmith::aws {

inline constexpr const char* kNodeClassStatusControllerName = "nodeclass.status";
inline constexpr const char* kNodeClassTerminationFinalizer = "karpenter.k8s.aws/termination";

struct NodeClassStatusOptions {
  core::Duration refresh_interval = std::chrono::minutes(1);
  core::Duration waiting_interval = std::chrono::seconds(15);
  core::Duration waiting_event_every = std::chrono::minutes(10);
  InstanceProfileReconciler* instance_profiles = nullptr;  // null: status.instanceProfile untouched
  runtime::EventRecorder* recorder = nullptr;
  bool dry_run = false;          // shadow mode: no status, nothing made in AWS, no validation
  bool disable_dry_run = false;  // DISABLE_DRY_RUN: ValidationSucceeded without the dry runs
  core::Duration validation_ttl = std::chrono::minutes(30);  // Karpenter's ValidationTTL
};

inline constexpr const char* kConditionValidationSucceeded = "ValidationSucceeded";

// The status fields a resolution gives (its conditions but Ready, its subnets, security groups
// and AMIs, written into `node_class`); true when any changed.
bool ApplyResolution(const ResolvedNodeClass& resolved, api::EC2NodeClass& node_class);

class NodeClassStatusController : public runtime::Controller {
 public:
  NodeClassStatusController(const core::Clock& clock, cluster::ClusterApi& cluster,
                            AwsCloudProvider& provider, NodeClassStatusOptions options = {});

  std::string Name() const override { return kNodeClassStatusControllerName; }
  std::vector<cluster::Kind> Watches() const override { return {cluster::Kind::kEC2NodeClass}; }
  bool Singleton() const override { return false; }
  core::Result<runtime::ReconcileResult> Reconcile(const runtime::Request& request) override;
  void set_recorder(runtime::EventRecorder* recorder) { options_.recorder = recorder; }

 private:
  core::Result<runtime::ReconcileResult> Finalize(api::EC2NodeClass node_class);
  // Sets ValidationSucceeded on `node_class` (its resolution already applied); an AWS error
  // other than a refusal leaves the condition as it was and is returned.
  core::Status SetValidation(api::EC2NodeClass& node_class, core::Time now);

  struct Validated {
    std::string key;  // what was validated: generation and resolution
    NodeClassValidation result;
    core::Time at;
  };

  const core::Clock& clock_;
  cluster::ClusterApi& cluster_;
  AwsCloudProvider& provider_;
  NodeClassStatusOptions options_;
  std::map<std::string, core::Time> waiting_event_at_;  // class -> last WaitingOnNodeClaimTermination
  std::map<std::string, Validated> validated_;          // class -> the last validation's answer
};

}  // namespace nodesmith::aws
