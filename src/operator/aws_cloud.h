// AwsCloud: the EC2 cloud provider as `nodesmith controller --cloud-provider aws` runs it.
//
// Create() builds, in order: the AWS session (region from AWS_REGION/--aws-region, else as the
// SDKs resolve it; credentials from the SDKs' chain), the instance-type catalog (built in for
// that region, or the --catalog file), the cluster identity the instances' user data carries
// (DiscoverClusterIdentity), the AwsCloudProvider, the provider's own controllers (EC2NodeClass
// status with its finalizer and instance profiles, EC2NodeClass hash, NodeClaim tagging; the
// operator registers them with the others), and — when
// INTERRUPTION_QUEUE is set, outside shadow mode (reading a queue deletes its messages) — the
// SQS interruption queue, whose URL must resolve. Any failure is one error a person can act on;
// the operator logs it and exits.
//
// Owns everything it builds; the provider and the queue are used on the runtime thread, the
// queue's poller runs on its own. REQUIRES: `clock` (the controllers' clock) and `wall` outlive
// the AwsCloud.
#pragma once

#include <functional>
#include <memory>
#include <string>
#include <vector>

#include "cloud/aws/aws_cloud_provider.h"
#include "cloud/aws/aws_session.h"
#include "cloud/aws/eks_client.h"
#include "cloud/aws/iam_client.h"
#include "cloud/aws/instance_profile.h"
#include "cloud/aws/instance_profile_gc_controller.h"
#include "cloud/aws/launch_template_gc_controller.h"
#include "cloud/aws/live_catalog.h"
#include "cloud/aws/nodeclaim_tagging_controller.h"
#include "cloud/aws/nodeclass_hash.h"
#include "cloud/aws/nodeclass_status_controller.h"
#include "cloud/aws/sqs_client.h"
#include "cloud/aws/sqs_interruption_queue.h"
#include "cloud/catalog.h"
#include "cluster/cluster_api.h"
#include "kube/rest_client.h"
#include "operator/options.h"

namespace nodesmith::op {

// What the instances' user data says about the cluster they join:
//   name       CLUSTER_NAME;
//   endpoint   CLUSTER_ENDPOINT, else the EKS cluster's (DescribeCluster, as Karpenter: inside
//              the cluster nodesmith talks to the kubernetes Service's IP, which a node cannot
//              use before it joined), else the API server nodesmith talks to;
//   CA bundle  CLUSTER_CA_BUNDLE, else the CA nodesmith trusts for it, else the EKS cluster's;
//   services   the first IPv4 range of the ServiceCIDR "kubernetes" (AL2023 needs it), else
//              the EKS cluster's (clusters before 1.33 have no ServiceCIDR objects);
//   DNS IP     the clusterIP of kube-system/kube-dns (left empty, with a warning, without one);
//   version    the API server's /version as "MAJOR.MINOR" (the AMI aliases' version).
// `eks` describes the cluster named CLUSTER_NAME; it is called at most once, and only when one
// of the values above is missing. `warnings` gets a sentence for each value that could not be
// found.
using DescribeEksCluster = std::function<core::Result<aws::EksCluster>()>;
core::Result<aws::ClusterIdentity> DiscoverClusterIdentity(const Options& options,
                                                           kube::RestClient& client,
                                                           const DescribeEksCluster& eks,
                                                           std::vector<std::string>* warnings);

// Fills the endpoint, CA bundle and service CIDR `id` lacks from the EKS cluster (asking `eks`
// only then); an endpoint still missing becomes `api_server`, with a warning saying why.
void CompleteFromEks(aws::ClusterIdentity& id, const std::string& api_server,
                     const DescribeEksCluster& eks, std::vector<std::string>* warnings);

// "v1.35.2" or {"major":"1","minor":"35+"} -> "1.35"; "" when /version says neither.
std::string KubernetesMinorVersion(const kube::Json& version);

class AwsCloud {
 public:
  // `cluster` is where the provider looks EC2NodeClasses up (the informers' cache).
  static core::Result<std::unique_ptr<AwsCloud>> Create(const Options& options,
                                                        kube::RestClient& client,
                                                        cluster::ClusterApi& cluster,
                                                        const core::Clock& clock,
                                                        const core::Clock& wall,
                                                        std::vector<std::string>* warnings);

  aws::AwsCloudProvider& provider() { return *provider_; }
  const cloud::Catalog& catalog() const { return catalog_; }
  // The account's live catalog (the default, or CATALOG=aws-live) is loaded again every 12 hours,
  // as Karpenter's instance types and prices are; the built-in table and catalog files are fixed.
  bool refreshes_catalog() const { return live_catalog_; }
  // True when the live catalog could not be read at start and the built-in table stands in for
  // it until a refresh succeeds.
  bool catalog_is_fallback() const { return live_catalog_ && catalog_.source != aws::kLiveCatalogName; }
  // Loads the catalog as Create did. Uses only the session, so any thread may call it.
  core::Result<cloud::Catalog> LoadCatalog(std::vector<std::string>* warnings);
  // Puts `catalog` in use: the provider's launches and instance types. On the runtime's thread.
  void ApplyCatalog(cloud::Catalog catalog);
  const aws::ClusterIdentity& identity() const { return identity_; }
  // The provider's own controllers, beside the core ones. In shadow mode (DRY_RUN) not the
  // tagging controller nor the launch-template and instance-profile collectors: they write to
  // EC2 and IAM.
  std::vector<runtime::Controller*> controllers() {
    if (dry_run_) return {status_controller_.get(), hash_controller_.get()};
    return {status_controller_.get(), hash_controller_.get(), tagging_controller_.get(),
            launch_template_gc_.get(), instance_profile_gc_.get()};
  }
  // Where the EC2NodeClass controller reports (WaitingOnNodeClaimTermination); the operator's
  // recorder exists only after the cloud.
  void set_recorder(runtime::EventRecorder* recorder) {
    status_controller_->set_recorder(recorder);
    launch_template_gc_->set_recorder(recorder);
    if (instance_profile_gc_) instance_profile_gc_->set_recorder(recorder);
  }
  // Null without INTERRUPTION_QUEUE.
  aws::SqsInterruptionQueue* interruption_queue() { return queue_.get(); }

 private:
  AwsCloud() = default;

  std::unique_ptr<aws::AwsSession> session_;
  std::string catalog_flag_;  // CATALOG / --catalog
  bool live_catalog_ = false;  // the flag names the live catalog, or is empty
  bool isolated_vpc_ = false;
  const core::Clock* wall_ = nullptr;
  cloud::Catalog catalog_;
  aws::ClusterIdentity identity_;
  std::unique_ptr<aws::AwsCloudProvider> provider_;
  std::unique_ptr<aws::IamClient> iam_;  // null in shadow mode: no profiles are made
  std::unique_ptr<aws::InstanceProfileReconciler> instance_profiles_;
  std::unique_ptr<aws::NodeClassStatusController> status_controller_;
  std::unique_ptr<aws::NodeClassHashController> hash_controller_;
  std::unique_ptr<aws::NodeClaimTaggingController> tagging_controller_;
  std::unique_ptr<aws::LaunchTemplateGcController> launch_template_gc_;
  std::unique_ptr<aws::InstanceProfileGcController> instance_profile_gc_;  // null in shadow mode
  std::unique_ptr<aws::SqsClient> sqs_;
  std::unique_ptr<aws::SqsInterruptionQueue> queue_;
  bool dry_run_ = false;
};

}  // namespace nodesmith::op
