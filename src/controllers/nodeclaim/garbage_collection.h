// GarbageCollector: reconciles the cloud's instances with the cluster's NodeClaims, as
// Karpenter's nodeclaim garbagecollection controller.
//   - an instance no NodeClaim points at (by provider id), launched more than `min_age` ago, is
//     terminated: a launch whose NodeClaim was lost must not bill forever;
//   - a Launched NodeClaim whose instance the cloud no longer lists is deleted, so the
//     terminator cleans up its Node and its pods are planned elsewhere — unless it launched less
//     than `min_launched_age` ago (EC2 is eventually consistent: DescribeInstances may not show
//     a launch of seconds ago), or its Node is still Ready (then its kubelet runs, whatever the
//     cloud says), as Karpenter's garbage collection rules.
// Singleton; runs every `interval`. Not thread-safe.
#pragma once

#include <string>
#include <vector>

#include "cloud/cloud_provider.h"
#include "cluster/cluster_api.h"
#include "core/clock.h"
#include "core/duration.h"
#include "runtime/controller.h"
#include "runtime/event_recorder.h"

namespace nodesmith::controllers {

struct GarbageCollectionOptions {
  core::Duration interval = std::chrono::minutes(2);
  core::Duration min_age = std::chrono::seconds(30);            // of an orphaned instance
  core::Duration min_launched_age = std::chrono::seconds(10);   // of a claim the cloud lacks
};

class GarbageCollector : public runtime::Controller {
 public:
  // REQUIRES: every reference outlives the controller.
  GarbageCollector(const core::Clock& clock, cluster::ClusterApi& cluster,
                   cloud::CloudProvider& cloud, runtime::EventRecorder& recorder,
                   GarbageCollectionOptions options = {});

  std::string Name() const override;
  std::vector<cluster::Kind> Watches() const override { return {}; }
  bool Singleton() const override { return true; }
  core::Result<runtime::ReconcileResult> Reconcile(const runtime::Request& request) override;

 private:
  const core::Clock& clock_;
  cluster::ClusterApi& cluster_;
  cloud::CloudProvider& cloud_;
  runtime::EventRecorder& recorder_;
  GarbageCollectionOptions options_;
};

}  // namespace nodesmith::controllers
