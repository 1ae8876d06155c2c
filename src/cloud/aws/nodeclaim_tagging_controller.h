// NodeClaimTaggingController: once a NodeClaim's Node has joined, tags its instance with what
// only registration tells — Name (the node's name, what the EC2 console lists),
// karpenter.sh/nodeclaim and eks:eks-cluster-name — as Karpenter's nodeclaim.tagging controller
// does, then marks the NodeClaim with the annotations karpenter.k8s.aws/tagged and
// compatibility.karpenter.k8s.aws/cluster-name-tagged ("true") so it is done once.
//
// Tags the instance already has are not sent again; an instance that is gone or terminating is
// not an error
// and not tagged (the garbage collector deals with its NodeClaim). A NodeClaim without a node name, being
// deleted, already marked, or whose provider id is not an EC2 one is left alone. The
// annotations are the only change written to the NodeClaim.
// Not thread-safe. REQUIRES: the cluster and the session outlive the controller.
#pragma once

#include <string>
#include <vector>

#include "cloud/aws/aws_session.h"
#include "cluster/cluster_api.h"
#include "runtime/controller.h"

namespace nodesmith::aws {

inline constexpr const char* kNodeClaimTaggingControllerName = "nodeclaim.tagging";
inline constexpr const char* kAnnotationInstanceTagged = "karpenter.k8s.aws/tagged";
inline constexpr const char* kAnnotationClusterNameTagged =
    "compatibility.karpenter.k8s.aws/cluster-name-tagged";

class NodeClaimTaggingController : public runtime::Controller {
 public:
  NodeClaimTaggingController(cluster::ClusterApi& cluster, AwsSession& session,
                             std::string cluster_name);

  std::string Name() const override { return kNodeClaimTaggingControllerName; }
  std::vector<cluster::Kind> Watches() const override { return {cluster::Kind::kNodeClaim}; }
  bool Singleton() const override { return false; }
  core::Result<runtime::ReconcileResult> Reconcile(const runtime::Request& request) override;

 private:
  cluster::ClusterApi& cluster_;
  AwsSession& session_;
  std::string cluster_name_;
};

}  // namespace nodesmith::aws
