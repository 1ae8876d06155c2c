// NodeClaimLifecycle: takes one NodeClaim from request to a working node, as Karpenter's
// nodeclaim lifecycle controller.
//
//   Launch         CloudProvider::CreateAll, with every NodeClaim waiting for its launch when
//                  the cloud merges launches (MaxLaunchBatch); the NodeClaim gets providerID, capacity,
//                  allocatable, imageID, the launched type's labels and Launched=True. On
//                  insufficient capacity (kUnavailable) the NodeClaim is deleted: its pods are
//                  pending again and the provisioner plans them elsewhere (the cloud already
//                  treats the offerings it tried as unavailable for a while).
//   Registration   a Node whose spec.providerID is the NodeClaim's: status.nodeName,
//                  Registered=True; the NodeClaim's labels and taints are copied onto the Node
//                  and the karpenter.sh/unregistered taint is removed.
//   Initialization the Node is Ready, no startup taint is left and every requested extended
//                  resource is allocatable: Initialized=True.
//   Liveness       not registered within `registration_ttl` of launch: the NodeClaim is deleted.
// Requests name either a NodeClaim or a Node (the runtime keys Node changes by node name); a
// Node request reconciles the NodeClaim with its provider id. NodeClaims being deleted are the
// terminator's. A write that finds its object changed since it was read (a conflict) is no
// error: the NodeClaim is looked at again within kConflictRecheck. Not thread-safe.
#pragma once

#include <set>
#include <string>
#include <vector>

#include "api/node.h"
#include "api/nodeclaim.h"
#include "cloud/cloud_provider.h"
#include "cluster/cluster_api.h"
#include "core/clock.h"
#include "core/duration.h"
#include "runtime/controller.h"
#include "runtime/event_recorder.h"

namespace nodesmith::controllers {

// When a write found its object changed since it was read, the NodeClaim is looked at again
// after this, unless a watch event brings it sooner.
inline constexpr core::Duration kConflictRecheck = std::chrono::seconds(1);

struct LifecycleOptions {
  core::Duration registration_ttl = std::chrono::minutes(15);
};

class NodeClaimLifecycle : public runtime::Controller {
 public:
  // REQUIRES: every reference outlives the controller.
  NodeClaimLifecycle(const core::Clock& clock, cluster::ClusterApi& cluster,
                     cloud::CloudProvider& cloud, runtime::EventRecorder& recorder,
                     LifecycleOptions options = {});

  std::string Name() const override;
  std::vector<cluster::Kind> Watches() const override;
  bool Singleton() const override { return false; }
  core::Result<runtime::ReconcileResult> Reconcile(const runtime::Request& request) override;

 private:
  core::Result<runtime::ReconcileResult> ReconcileClaim(api::NodeClaim claim);
  // Launches the NodeClaim, with every other one waiting for its launch when the cloud merges
  // launches.
  core::Result<runtime::ReconcileResult> Launch(api::NodeClaim claim);
  // Writes what the cloud answered for the NodeClaim's launch.
  core::Result<runtime::ReconcileResult> RecordLaunch(api::NodeClaim claim,
                                                      core::Result<api::NodeClaim> launched);
  // Registers and initializes against `node`; returns whether anything changed.
  core::Status Register(api::NodeClaim& claim, api::Node node);
  core::Status Initialize(api::NodeClaim& claim, const api::Node& node);
  // The hourly price of the launched offering, when the cloud still lists it.
  std::string PriceOf(const api::NodeClaim& launched) const;

  const core::Clock& clock_;
  cluster::ClusterApi& cluster_;
  cloud::CloudProvider& cloud_;
  runtime::EventRecorder& recorder_;
  LifecycleOptions options_;
  // NodeClaims whose launch failed in another's batch, until their own reconcile.
  std::set<std::string> failed_in_batch_;
};

}  // namespace nodesmith::controllers
