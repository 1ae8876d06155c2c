// Provisioner: turns pending pods into NodeClaims, as Karpenter's provisioning controller.
//
// Pending pods open a batch; the batch closes when no new pending pod arrived for
// `batch_idle_duration`, or when `batch_max_duration` has passed since it opened. Both windows
// are requeue timers on the Clock: Reconcile never waits. A closed batch is provisioned:
// snapshot the cluster, ask the cloud for each NodePool's instance types, run the solver and
// create one karpenter.sh/v1 NodeClaim per new NodeClaim it planned. Pods placed on in-flight
// capacity (a NodeClaim without a Node yet), on a Node that is not Ready yet, or on a new
// NodeClaim are nominated (an event, and ProvisionerOptions::nominations);
// the world's kube-scheduler binds them once the node is Ready. Pods the solver placed on
// existing nodes are left to that scheduler too.
//
// Duplicate-free by construction: the snapshot counts in-flight NodeClaims as existing
// capacity, so pods already planned onto one land on it again rather than on a new NodeClaim.
// A batch opens when a pending pod appears that was not pending at the previous reconcile,
// when a live NodeClaim disappears or starts deleting (its nominated pods need a new home), or
// when a NodePool changes, while pods are pending. Pods waiting on nothing — unschedulable, or
// pending although the capacity they were planned onto is up (a kube-scheduler that disagreed,
// DaemonSets that took the room) — are planned again every `pending_retry`; a pod planned onto
// capacity that is up is planned again at once (one batch) when a scheduler gives its verdict
// on it anew: its PodScheduled condition changed, as kube-scheduler's does when it tries the
// pod on the node that came up and finds no room. Karpenter reacts to such pod updates too.
//
// Singleton. Not thread-safe (the runtime calls it one reconcile at a time).
#pragma once

#include <map>
#include <memory>
#include <optional>
#include <set>
#include <string>
#include <vector>

#include "cloud/cloud_provider.h"
#include "cluster/cluster_api.h"
#include "controllers/common/nominations.h"
#include "core/clock.h"
#include "core/duration.h"
#include "runtime/controller.h"
#include "runtime/event_recorder.h"
#include "scheduling/well_known_labels.h"
#include "solver/scheduler.h"

namespace nodesmith::controllers {

struct ProvisionerOptions {
  core::Duration batch_idle_duration = std::chrono::seconds(1);
  core::Duration batch_max_duration = std::chrono::seconds(10);
  core::Duration pending_retry = std::chrono::seconds(10);
  // Label keys the solver treats as well-known (the catalog's); empty: Karpenter's default set.
  scheduling::LabelKeySet well_known_labels;
  solver::SchedulerOptions scheduler{.compute_lower_bound = false};
  // Where nominations are published for disruption to respect; null: kept to itself.
  std::shared_ptr<Nominations> nominations;
  // Karpenter's IsProvisionable: a pending pod counts only once a scheduler marked it
  // PodScheduled=False with reason Unschedulable — so nodesmith neither races kube-scheduler for
  // pods existing capacity can take nor provisions for pods of schedulers that never try. The
  // operator sets it; `plan` and the simulator read pods from files and worlds without it.
  bool require_unschedulable_condition = false;
};

// The field of the provisioner's debug line "N pod(s) unschedulable in this round's simulation",
// recorded when that number changes (a round with nothing pending makes it 0): the pods the
// solver could place nowhere, which Karpenter exports as karpenter_scheduler_unschedulable_pods_count
// and the operator sets from this field.
inline constexpr const char* kUnschedulablePodsField = "unschedulablePods";

class Provisioner : public runtime::Controller {
 public:
  // REQUIRES: every reference outlives the provisioner.
  Provisioner(const core::Clock& clock, cluster::ClusterApi& cluster, cloud::CloudProvider& cloud,
              runtime::EventRecorder& recorder, ProvisionerOptions options = {});

  std::string Name() const override;
  std::vector<cluster::Kind> Watches() const override;
  bool Singleton() const override { return true; }
  core::Result<runtime::ReconcileResult> Reconcile(const runtime::Request& request) override;

  // Whether `pod` is one this provisioner plans for (pending and, when required, marked
  // unschedulable by a scheduler).
  bool Provisionable(const api::Pod& pod) const;

  // How many batches were provisioned (solves run) so far.
  int solves() const { return solves_; }

 private:
  // What the batcher compares between reconciles.
  struct Observed {
    // Pod key -> the scheduler's verdict (the PodScheduled condition's reason, message and
    // transition time; empty when it has none).
    std::map<std::string, std::string> pending;
    std::set<std::string> live_claims;  // NodeClaims not being deleted
    std::string pools;                  // NodePool names, uids and generations
  };
  Observed Observe() const;
  // The pending pod `pod` is not nominated to capacity still coming up. `coming_up` caches the
  // answer per nomination target within one reconcile.
  bool WaitingOnNothing(const std::string& pod, std::map<std::string, bool>* coming_up) const;
  // Some pending pod is neither nominated to capacity still coming up nor new.
  bool AnyPodWaitingOnNothing(const Observed& observed) const;
  // Runs one provisioning pass over the current cluster.
  core::Status Provision();
  // The round's summary lines, as Karpenter's scheduler logs them: how many new NodeClaims for
  // how many pods, then how many pods go to nodes that exist (or are coming up).
  void ReportRound(const solver::Results& results);
  // Records kUnschedulablePodsField when `count` differs from the last one recorded (0 at start).
  void ReportUnschedulable(size_t count);
  core::Status CreateNodeClaim(const solver::NewNodeClaim& planned, const api::NodePool& pool);
  // `kind` is "nodeclaim" or "node"; one event per pod and target.
  void Nominate(const std::string& pod, const std::string& target, const std::string& kind);

  const core::Clock& clock_;
  cluster::ClusterApi& cluster_;
  cloud::CloudProvider& cloud_;
  runtime::EventRecorder& recorder_;
  ProvisionerOptions options_;

  Observed last_;
  std::optional<core::Time> batch_start_;
  core::Time last_arrival_;
  std::optional<core::Time> retry_at_;  // unschedulable pods remain: solve again then
  std::map<std::string, std::string> nominated_;            // pod key -> NodeClaim / node
  std::map<std::string, std::string> unschedulable_reason_;  // pod key -> last reason logged
  size_t unschedulable_reported_ = 0;  // the last kUnschedulablePodsField recorded
  int solves_ = 0;
};

}  // namespace nodesmith::controllers
