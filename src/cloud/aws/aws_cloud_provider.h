// AwsCloudProvider: the CloudProvider of EC2, as Karpenter's AWS provider.
//
//   Create   resolves the NodeClaim's EC2NodeClass (nodeclass_resolver.h; an answer is reused
//            for a minute), refuses while the class is not Ready (or, naming a role, has no
//            instance profile yet), builds one launch template per image × max pods of the
//            types offered (the class's image for the type's architecture and GPU, user data for its AMI family
//            with the NodeClaim's labels and taints, karpenter.sh/unregistered:NoExecute and
//            the type's max pods, security groups, block devices, metadata options, tags)
//            and creates it unless it exists,
//            launches one instant fleet over every compatible available offering
//            (fleet_request.h), and marks offerings a capacity error names unavailable for
//            3 minutes. The NodeClaim comes back with providerID aws:///<zone>/<instance id>
//            and the class's hash stamp.
//   Delete   terminates the instance; NotFound once EC2 no longer knows it or it is terminated.
//            DeleteAll terminates many in one call (the terminator batches them).
//   Get/List DescribeInstances by id, or by this cluster's and nodesmith's tags, in any state
//            but terminated. Get batches as Karpenter's DescribeInstances batcher does: one
//            call answers for every instance asked about lately (the terminator polls each
//            instance it deletes), and its answers serve the next second's Gets; an id EC2
//            does not know fails the whole call, so then each is asked alone.
//   GetInstanceTypes  the catalog's types, offerings in zones without one of the class's
//            subnets or in an insufficient-capacity window marked unavailable.
//   IsDrifted as Karpenter's, the first that applies: NodeClassDrift (the class's hash stamp,
//            nodeclass_hash.h, differs from the one the NodeClaim was launched with), AMIDrift
//            (its image is no longer one the class resolves to), SecurityGroupDrift (its
//            security groups are not the class's), SubnetDrift (its subnet is not one of the
//            class's).
// It is also the UnavailableOfferingsSink the interruption controller reports spot
// interruptions to, so the same 3-minute windows serve launches and interruptions.
// Calls AWS synchronously; not thread-safe (called on the runtime's thread, as the controllers).
// REQUIRES: the session and the clock outlive the provider.
#pragma once

#include <functional>
#include <optional>
#include <map>
#include <set>
#include <string>

#include "api/ec2nodeclass.h"
#include "cloud/aws/aws_session.h"
#include "cloud/aws/fleet_request.h"
#include "cloud/aws/nodeclass_resolver.h"
#include "cloud/aws/ssm_client.h"
#include "cloud/aws/user_data.h"
#include "cloud/cloud_provider.h"
#include "cloud/interruption_queue.h"
#include "cloud/sim/unavailable_offerings.h"
#include "core/clock.h"

namespace nodesmith::aws {

inline constexpr const char* kAwsProviderIdPrefix = "aws:///";
// The most launches one CreateFleet carries (Karpenter's batcher's MaxItems).
inline constexpr size_t kMaxLaunchBatch = 1000;
// The most instances one of Get's DescribeInstances asks about.
inline constexpr size_t kMaxDescribeBatch = 500;
// The most instances one TerminateInstances names (Karpenter's batcher's MaxItems).
inline constexpr size_t kMaxDeleteBatch = 500;

// The cluster the instances join, as their user data says it.
struct ClusterIdentity {
  std::string name;
  std::string endpoint;
  std::string ca_bundle_base64;
  std::string dns_ip;
  std::string service_cidr;
  std::string kubernetes_version;  // "1.34": the AMI aliases' version
};

struct AwsCloudProviderOptions {
  ClusterIdentity cluster;
  cloud::InstanceTypes instance_types;  // the catalog: built-in or live
  // Looks an EC2NodeClass up by name (kNotFound when there is none).
  std::function<core::Result<api::EC2NodeClass>(const std::string& name)> node_classes;
  core::Duration unavailable_for = std::chrono::minutes(3);
  core::Duration resolution_ttl = std::chrono::minutes(1);
  // A launch template no launch or validation used for this long is deleted (Karpenter's
  // launch-template cache TTL, whose eviction deletes the template).
  core::Duration launch_template_ttl = std::chrono::minutes(1);
  // Get's DescribeInstances batching: an answer is reused this long, and each call also asks
  // about every instance Get was asked about (or CreateAll launched) within `describe_watch`,
  // at most kMaxDescribeBatch of them — Karpenter's batcher's window and size.
  core::Duration describe_batch_window = std::chrono::seconds(1);
  core::Duration describe_watch = std::chrono::minutes(1);
};

// What the EC2NodeClass validation's dry runs found: an empty reason when the controller may
// create the class's launch templates, its fleets and its instances; otherwise Karpenter's
// ValidationSucceeded reason (CreateLaunchTemplateAuthCheckFailed, CreateFleetAuthCheckFailed,
// RunInstancesAuthCheckFailed) and a message with AWS's own words.
struct NodeClassValidation {
  std::string reason;
  std::string message;
  std::string operation;  // the call refused: "CreateFleet"
  bool succeeded() const { return reason.empty(); }
  bool operator==(const NodeClassValidation&) const = default;
};

class AwsCloudProvider : public cloud::CloudProvider, public cloud::UnavailableOfferingsSink {
 public:
  AwsCloudProvider(AwsSession& session, const core::Clock& clock, AwsCloudProviderOptions options);

  core::Result<api::NodeClaim> Create(const api::NodeClaim& node_claim) override;
  size_t MaxLaunchBatch() const override { return kMaxLaunchBatch; }
  // Launches whose fleet requests are equal (the same templates, overrides, capacity type and
  // tags: NodeClaims of one shape from one NodePool) become one CreateFleet for as many
  // instances, as Karpenter's CreateFleet batcher merges them; its instances are handed out in
  // order and the launches left without one get the fleet's errors.
  std::vector<core::Result<api::NodeClaim>> CreateAll(
      const std::vector<api::NodeClaim>& node_claims) override;
  core::Status Delete(const api::NodeClaim& node_claim) override;
  size_t MaxDeleteBatch() const override { return kMaxDeleteBatch; }
  // One TerminateInstances for every instance, as Karpenter's batcher sends it. EC2 refuses a
  // whole call for one bad id (unknown, protected), so the instances the answer does not show
  // shutting down are then terminated one call each, and each gets its own answer.
  std::vector<core::Status> DeleteAll(const std::vector<api::NodeClaim>& node_claims) override;
  core::Result<api::NodeClaim> Get(const std::string& provider_id) const override;
  std::vector<api::NodeClaim> List() const override;
  core::Result<cloud::InstanceTypes> GetInstanceTypes(const api::NodePool& node_pool) const override;
  cloud::DriftReason IsDrifted(const api::NodeClaim& node_claim) const override;
  std::string Name() const override { return "aws"; }
  // The interruption controller's report (a spot interruption): no launches there until the TTL.
  void MarkOfferingUnavailable(const cloud::UnavailableOffering& offering) override;

  // The catalog refreshed (the live types and prices, every 12 h): launches and GetInstanceTypes
  // use `types` from now on.
  void SetInstanceTypes(cloud::InstanceTypes types) { options_.instance_types = std::move(types); }

  // Checks, as Karpenter's validation does, that the controller's role may launch from the
  // class: its launch template is made (a real one, kept for launches of the same shape), then
  // CreateFleet and RunInstances are called with DryRun. An error other than
  // UnauthorizedOperation (throttling, 5xx, an unreachable endpoint) is the Result's error.
  core::Result<NodeClassValidation> Validate(const api::EC2NodeClass& node_class);

  // Deletes this cluster's launch templates that nothing used for `launch_template_ttl` (those
  // of an earlier life of the controller, found by the cluster's tag on the first call, count as
  // used then) and returns their names. Launches and validations made since keep theirs.
  core::Result<std::vector<std::string>> DeleteUnusedLaunchTemplates();

  // Deletes the launch templates made for the class (by its and this cluster's tags), as its
  // deletion does, and forgets them and its resolution.
  core::Status DeleteLaunchTemplates(const std::string& node_class);

  // "aws:///us-west-2a/i-0123" -> "i-0123"; "" when it is not an EC2 provider id.
  static std::string InstanceIdOf(const std::string& provider_id);

  // What the class's selectors match now: the answer launches use, reused for `resolution_ttl`
  // at the class's generation, so the class's status and the launches agree. The pointer is
  // valid until the next call.
  core::Result<const ResolvedNodeClass*> Resolve(const api::EC2NodeClass& node_class) const;

 private:
  struct Resolution {
    ResolvedNodeClass resolved;
    core::Time at;
  };
  // One NodeClaim's fleet request, and what its answer is read with.
  struct PreparedLaunch {
    FleetPlan plan;
    std::vector<ResolvedImage> images;  // the class's, for the instance's image id
    std::string node_class_hash;        // stamped on the NodeClaim, for NodeClassDrift
    std::string instance_profile;       // annotated on the NodeClaim, for the profile collector
  };
  // Resolves the NodeClaim's class, makes its launch templates and plans its fleet.
  core::Result<PreparedLaunch> PrepareLaunch(const api::NodeClaim& node_claim);
  // The NodeClaim as `instance`, which a fleet of `launch` gave it.
  core::Result<api::NodeClaim> LaunchedAs(const api::NodeClaim& node_claim, const PreparedLaunch& launch,
                                          const FleetInstance& instance) const;
  core::Result<std::string> EnsureLaunchTemplate(const LaunchTemplateData& data);
  // What the launch templates of one NodeClaim share; each instance type then gets the one of
  // its image (by architecture and GPU: ImageForType) and max pods, as Karpenter groups them.
  struct LaunchTemplateSource {
    const api::EC2NodeClass* node_class = nullptr;
    cloud::AmiFamily family = cloud::AmiFamily::kAL2023;
    BootstrapOptions bootstrap;  // without max pods
    std::vector<LaunchTemplateData::BlockDevice> block_devices;
    std::vector<std::string> security_group_ids;
    Tags tags;
    std::string instance_profile;
    std::vector<ResolvedImage> images;       // the class's, newest first (ImageForType)
    std::map<std::string, std::string> made;  // "<image>/<max pods>" -> template name
  };
  // REQUIRES: `node_class` outlives the source.
  core::Result<LaunchTemplateSource> LaunchTemplateSourceFor(const api::EC2NodeClass& node_class,
                                                             const ResolvedNodeClass& rc,
                                                             const api::NodeClaim& node_claim,
                                                             const std::string& instance_profile);
  // The pods the kubelet of `type` is told: the type's pods capacity, which the scheduler
  // planned with (the VPC CNI's ENI limit), unless the class sets kubelet.maxPods itself.
  static std::optional<int> MaxPodsOf(const LaunchTemplateSource& src, const cloud::InstanceType& type);
  // The template `type` launches from (made when missing): its image, its max pods.
  core::Result<std::string> EnsureLaunchTemplateFor(LaunchTemplateSource& src, const cloud::InstanceType& type);
  // The tags of everything launched for `node_claim` from `node_class`.
  Tags TagsFor(const api::EC2NodeClass& node_class, const api::NodeClaim& node_claim) const;
  api::NodeClaim FromInstance(const Instance& instance) const;
  // This cluster's instances (nodesmith's tags), in any state but terminated.
  core::Result<std::vector<Instance>> DescribeOwnInstances() const;
  // The instance as the last listing (at most `resolution_ttl` old) saw it: one
  // DescribeInstances a minute for all drift checks, not one per NodeClaim. Null when unknown.
  const Instance* CachedInstance(const std::string& id) const;
  const cloud::InstanceType* FindType(const std::string& name) const;

  AwsSession& session_;
  const core::Clock& clock_;
  AwsCloudProviderOptions options_;
  std::unique_ptr<SsmClient> ssm_;
  std::unique_ptr<NodeClassResolver> resolver_;
  mutable std::map<std::string, Resolution> resolutions_;  // by EC2NodeClass name
  std::map<std::string, core::Time> launch_templates_;  // names known to exist -> last used
  bool launch_templates_listed_ = false;                 // the cluster's were read once
  mutable std::map<std::string, Instance> instances_;       // by id: CachedInstance's
  // Get's batching: what the last DescribeInstances said of an id (nullopt: not live) and when;
  // the ids asked about, with the last time.
  struct InstanceAnswer {
    std::optional<Instance> instance;
    core::Time at;
  };
  mutable std::map<std::string, InstanceAnswer> answers_;
  mutable std::map<std::string, core::Time> asked_;
  // Describes `ids` (live states only) into answers_ at `now`.
  core::Status DescribeIntoAnswers(const std::vector<std::string>& ids, core::Time now) const;
  mutable std::optional<core::Time> instances_at_;
  cloud::sim::UnavailableOfferings unavailable_;
};

}  // namespace nodesmith::aws
