// PodEvents: keeps NodeClaim status.lastPodEventTime current, as Karpenter's podevents
// controller. A pod bound to the NodeClaim's node, going terminal, or removed from it is a pod
// event; consolidation measures consolidateAfter from the last one. Writes within
// `dedupe_window` of the previous one are skipped to spare the API server.
//
// The runtime only passes a pod's key, so the controller remembers where each pod it saw was
// bound, to attribute a deleted pod to its node. Per pod. Not thread-safe.
#pragma once

#include <map>
#include <string>
#include <vector>

#include "cluster/cluster_api.h"
#include "core/clock.h"
#include "core/duration.h"
#include "runtime/controller.h"

namespace nodesmith::controllers {

struct PodEventsOptions {
  core::Duration dedupe_window = std::chrono::seconds(10);
};

class PodEvents : public runtime::Controller {
 public:
  // REQUIRES: every reference outlives the controller.
  PodEvents(const core::Clock& clock, cluster::ClusterApi& cluster, PodEventsOptions options = {});

  std::string Name() const override;
  std::vector<cluster::Kind> Watches() const override { return {cluster::Kind::kPod}; }
  bool Singleton() const override { return false; }
  core::Result<runtime::ReconcileResult> Reconcile(const runtime::Request& request) override;

 private:
  struct Seen {
    std::string node;
    bool terminal = false;
  };
  core::Status Touch(const std::string& node);

  const core::Clock& clock_;
  cluster::ClusterApi& cluster_;
  PodEventsOptions options_;
  std::map<std::string, Seen> seen_;  // pod key -> where it was bound when last reconciled
};

}  // namespace nodesmith::controllers
