// SimulatedCloud: a CloudProvider that launches make-believe EC2 instances in virtual time, for
// the simulator (and for controller tests that want a cloud with behaviour rather than a mock).
//
// What it models, all driven by the injected Clock and the Scenario's events:
//   - launch: among the NodeClaim's compatible instance types and offerings, the cheapest
//     available one (ties: instance-type name, then zone, then capacity type), as the CLI
//     contract's `launch` rule; offerings inside an insufficient-capacity window are skipped;
//   - a lifecycle per instance (pending -> running -> [stopped] -> shutting-down -> terminated,
//     see instance.h) with the latencies of CloudTimings;
//   - per-second billing at the offering's price, and node-hours;
//   - interruptions (spot warnings with a reclaim 2 minutes later, scheduled changes, stops,
//     terminations) queued as notices, which the interruption controller reads through the
//     InterruptionQueue interface (SQS semantics: received notices stay queued, invisible for
//     kNoticeVisibilityTimeout, until deleted), and silent failures;
//   - the unavailable-offerings cache the interruption controller marks after a spot
//     interruption (UnavailableOfferingsSink): the same insufficient-capacity windows as the
//     Scenario's `unavailable` event, so the offering is neither launched nor offered;
//   - drift: an instance whose type left the catalog, or one marked by SetDrift.
//
// The simulated cloud never schedules anything itself: states are functions of Clock::Now(), and
// the event loop asks NextTransitionTime() when something next changes and AdvanceTo(now) what
// changed, to record events. It does not depend on the runtime.
//
// Deterministic: the same catalog, seed and sequence of calls at the same virtual times give the
// same instance ids, choices and bills. Not thread-safe. REQUIRES: `clock` outlives the cloud.
#pragma once

#include <cstdint>
#include <map>
#include <optional>
#include <string>
#include <vector>

#include "cloud/catalog.h"
#include "cloud/cloud_provider.h"
#include "cloud/interruption_queue.h"
#include "cloud/sim/cloud_timings.h"
#include "cloud/sim/instance.h"
#include "cloud/sim/interruption.h"
#include "cloud/sim/provider_id.h"
#include "cloud/sim/unavailable_offerings.h"
#include "core/clock.h"

namespace nodesmith::cloud::sim {

// An instance entered `state` at `at` (reported by AdvanceTo).
struct InstanceTransition {
  core::Time at;
  std::string provider_id;
  InstanceState state = InstanceState::kRunning;

  bool operator==(const InstanceTransition&) const = default;
};

// The drift reason for an instance whose type is no longer in the catalog (karpenter-core's
// InstanceTypeNotFound).
inline constexpr const char* kDriftInstanceTypeNotFound = "InstanceTypeNotFound";

// How long a received notice stays invisible to Receive unless deleted (SQS's default).
inline constexpr core::Duration kNoticeVisibilityTimeout = std::chrono::seconds(30);

class SimulatedCloud : public CloudProvider,
                       public InterruptionQueue,
                       public UnavailableOfferingsSink {
 public:
  SimulatedCloud(const core::Clock& clock, Catalog catalog, CloudTimings timings = {},
                 uint64_t seed = 0);

  // --- CloudProvider ---

  // Launches the cheapest available compatible offering. The requirements considered are the
  // NodeClaim's spec.requirements (node.kubernetes.io/instance-type In [...] carries its options;
  // without it every catalog type is an option); a type must also fit spec.resources.requests in
  // its allocatable. Returns the NodeClaim with status.providerID, capacity and allocatable set
  // and its labels merged with the launched type's (instance-type, zone, region, capacity-type,
  // arch, os and the type's single-valued labels). kUnavailable ("insufficient capacity: ...")
  // when nothing can launch; LastUnavailableOfferings() then lists the offerings tried.
  core::Result<api::NodeClaim> Create(const api::NodeClaim& node_claim) override;
  // Starts shutting the instance down at Now(): billing stops, and it is terminated after
  // CloudTimings::termination_latency. OK again while it is shutting down (as EC2's
  // TerminateInstances); NotFound when the provider id is unknown or the instance terminated.
  core::Status Delete(const api::NodeClaim& node_claim) override;
  // The instance as a NodeClaim (deletionTimestamp set once shutting down); NotFound when
  // unknown or terminated.
  core::Result<api::NodeClaim> Get(const std::string& provider_id) const override;
  // Instances not yet terminated at Now(), sorted by provider id.
  std::vector<api::NodeClaim> List() const override;
  // The catalog's types whatever the NodePool, with each offering's `available` cleared while
  // an insufficient-capacity window covers it (and the type's zone / capacity-type requirements
  // narrowed to match). Types without open windows are shared with the catalog, not copied.
  core::Result<InstanceTypes> GetInstanceTypes(const api::NodePool& node_pool) const override;
  // The reason given to SetDrift, else kDriftInstanceTypeNotFound when the instance's type (or,
  // for an unknown provider id, the NodeClaim's instance-type label) is not in the catalog.
  DriftReason IsDrifted(const api::NodeClaim& node_claim) const override;
  std::string Name() const override { return "simulated"; }

  // --- Scenario events ---

  // Insufficient capacity for the offering until `until` (the `unavailable` event).
  void MarkUnavailable(const OfferingRef& offering, core::Time until);
  // Sends an interruption notice for the instance at Now(), with its effect:
  //   kSpotInterruption  the instance shuts down at Now() + spot_interruption_warning;
  //   kScheduledChange   none (the notice asks Karpenter to replace the node);
  //   kStopping          the instance is stopped at Now() (billing stops);
  //   kTerminated        the instance is terminated at Now().
  // NotFound for an unknown or terminated instance; FailedPrecondition for a spot interruption
  // of a non-spot instance, a second spot interruption, or an instance already shutting down.
  core::Status Interrupt(const std::string& provider_id, InterruptionKind kind);
  // The instance fails: terminated at Now() without a notice (a crashed host, a failed launch).
  // NotFound for an unknown or terminated instance.
  core::Status Fail(const std::string& provider_id);
  // IsDrifted reports `reason` for the instance from now on ("" clears it). NotFound if unknown.
  core::Status SetDrift(const std::string& provider_id, std::string reason);
  // Replaces the catalog (a changed price list or a retired type); running instances keep the
  // type and price they launched with.
  void SetCatalog(Catalog catalog);

  // --- For controllers ---

  // InterruptionQueue: the notices not yet deleted whose visibility timeout has passed, oldest
  // first, up to `max_messages` (InvalidArgument when < 1), as messages with id "notice-<n>" and
  // the instance id of the provider id; each is then invisible until Now() +
  // kNoticeVisibilityTimeout. Spot notices carry action_time; stops and terminations are
  // kStateChange with state "stopping" / "terminated".
  core::Result<std::vector<InterruptionMessage>> Receive(int max_messages) override;
  // Removes the notice; OK when it is already gone.
  core::Status Delete(const InterruptionMessage& message) override;
  std::string QueueName() const override { return "simulated"; }
  // UnavailableOfferingsSink: an insufficient-capacity window from Now() for offering.ttl.
  void MarkOfferingUnavailable(const UnavailableOffering& offering) override;

  // Notices not yet deleted, in the order sent, whether received or not; the queue is emptied.
  std::vector<InterruptionEvent> DrainInterruptionEvents();
  // Notices not yet deleted (received or not).
  size_t QueuedNotices() const { return notices_.size(); }
  // Compatible offerings the last Create skipped because they were unavailable (catalog flag or
  // an open insufficient-capacity window), sorted. When Create returned kUnavailable, these are
  // every offering it tried (empty when no instance type was compatible at all).
  const std::vector<OfferingRef>& LastUnavailableOfferings() const { return last_unavailable_; }

  // --- For the event loop ---

  // The earliest instance transition not yet reported by AdvanceTo (it may be <= Now() when a
  // call just caused one), or nullopt when no instance will change state by itself.
  std::optional<core::Time> NextTransitionTime() const;
  // The earliest end of an open insufficient-capacity window after Now(): when
  // GetInstanceTypes' answer next changes. nullopt when none is open.
  std::optional<core::Time> NextAvailabilityChange() const;
  // Every transition at or before `now` not reported before, sorted by (time, provider id,
  // state). Pending is never reported: Create's return says it.
  std::vector<InstanceTransition> AdvanceTo(core::Time now);

  // --- Accounting ---

  // USD billed across all instances up to `now`.
  double CostSoFar(core::Time now) const;
  // Hours instances have been running (billable) up to `now`, summed.
  double NodeHours(core::Time now) const;
  // Every instance ever launched, terminated ones included, sorted by provider id.
  std::vector<SimulatedInstance> Instances() const;
  // The instance with that provider id (terminated ones included), or nullptr.
  const SimulatedInstance* FindInstance(const std::string& provider_id) const;

  const CloudTimings& timings() const { return timings_; }
  const Catalog& catalog() const { return catalog_; }

 private:
  struct Entry {
    SimulatedInstance instance;
    InstanceState reported = InstanceState::kPending;  // the last state AdvanceTo reported
  };

  // The entry for a provider id whose instance is not terminated at Now(), else NotFound.
  core::Result<Entry*> Live(const std::string& provider_id);
  const scheduling::LabelKeySet& WellKnownLabels() const;
  const InstanceType* FindType(const std::string& name) const;
  // Shuts the instance down at `at` (if not already earlier) and terminates it after the
  // termination latency, or at `at` exactly when `immediately`.
  void ShutDown(SimulatedInstance& instance, core::Time at, bool immediately) const;

  const core::Clock& clock_;
  Catalog catalog_;
  CloudTimings timings_;
  InstanceIdGenerator ids_;
  UnavailableOfferings unavailable_;
  std::map<std::string, Entry> instances_;  // by provider id
  struct Notice {
    std::string id;  // "notice-<n>"
    InterruptionEvent event;
    core::Time visible_at;  // Receive skips it before then
  };
  std::vector<Notice> notices_;  // in the order sent
  uint64_t notices_sent_ = 0;
  std::vector<OfferingRef> last_unavailable_;
};

}  // namespace nodesmith::cloud::sim
