// InterruptionController: acts on the cloud's notices that an instance is about to go away, as
// Karpenter's AWS interruption controller does with its SQS queue. A singleton that polls a
// cloud::InterruptionQueue every `poll_interval` and, for each message about an instance backing
// a NodeClaim (matched by the instance id of status.providerID):
//   spot interruption            mark the offering (instance type, zone, spot) unavailable for
//                                `unavailable_offering_ttl` and delete the NodeClaim;
//   capacity reservation,        delete the NodeClaim;
//   scheduled change, stopping /
//   stopped / shutting-down /
//   terminated state change
//   rebalance recommendation     nothing (logged);
// and records one `Interruption` event {node, nodeClaim, kind, instanceId} per NodeClaim. The
// Terminator (termination/terminator.h) then cordons, drains and terminates as for any deleted
// NodeClaim, and the provisioner replaces the evicted pods well before a spot reclaim.
//
// Unknown messages and messages about instances without a NodeClaim are logged and deleted. A
// message is deleted from the queue once every instance it names was handled; when deleting a
// NodeClaim fails the message is kept (the queue redelivers it) and the reconcile returns the
// error. Handling is idempotent: a NodeClaim already being deleted is left alone.
//
// The controller never learns which cloud it serves: the queue and the unavailable-offerings sink
// are interfaces (cloud/interruption_queue.h). Not thread-safe.
#pragma once

#include <map>
#include <string>
#include <vector>

#include "api/node.h"
#include "api/nodeclaim.h"
#include "cloud/interruption_queue.h"
#include "cluster/cluster_api.h"
#include "core/clock.h"
#include "core/duration.h"
#include "runtime/controller.h"
#include "runtime/event_recorder.h"

namespace nodesmith::controllers {

struct InterruptionOptions {
  // How long to wait between polls of the queue. Karpenter long-polls SQS without pause; in
  // virtual time a short interval costs one cheap reconcile per interval over a long scenario.
  core::Duration poll_interval = std::chrono::seconds(2);
  // Messages per Receive (SQS allows at most 10); a full batch is followed by another at once.
  int max_messages = 10;
  // How long a spot-interrupted offering stays unavailable (Karpenter's cache: 3 minutes).
  core::Duration unavailable_offering_ttl = std::chrono::minutes(3);
};

class InterruptionController : public runtime::Controller {
 public:
  // REQUIRES: every reference outlives the controller.
  InterruptionController(const core::Clock& clock, cluster::ClusterApi& cluster,
                         cloud::InterruptionQueue& queue,
                         cloud::UnavailableOfferingsSink& unavailable_offerings,
                         runtime::EventRecorder& recorder, InterruptionOptions options = {});

  std::string Name() const override;
  // None: the queue is polled, not watched.
  std::vector<cluster::Kind> Watches() const override { return {}; }
  bool Singleton() const override { return true; }
  core::Result<runtime::ReconcileResult> Reconcile(const runtime::Request& request) override;

 private:
  // NodeClaims and Nodes by the instance id of their provider id, built once per reconcile that
  // has messages, and updated as NodeClaims are deleted.
  struct InstanceIndex {
    std::map<std::string, api::NodeClaim> node_claims;
    std::map<std::string, api::Node> nodes;
  };
  InstanceIndex BuildIndex() const;
  core::Status Handle(const cloud::InterruptionMessage& message, InstanceIndex& index);
  core::Status DeleteNodeClaim(api::NodeClaim& claim, const std::string& kind);

  const core::Clock& clock_;
  cluster::ClusterApi& cluster_;
  cloud::InterruptionQueue& queue_;
  cloud::UnavailableOfferingsSink& unavailable_offerings_;
  runtime::EventRecorder& recorder_;
  InterruptionOptions options_;
};

}  // namespace nodesmith::controllers
