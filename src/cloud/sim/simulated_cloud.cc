#include "cloud/sim/simulated_cloud.h"

#include <algorithm>
#include <tuple>

#include "cloud/launch_offering.h"
#include "scheduling/requirements.h"
#include "scheduling/well_known_labels.h"

namespace nodesmith::cloud::sim {

namespace s = scheduling;

namespace {

core::Status FailedPrecondition(std::string message) {
  return core::Status(core::StatusCode::kFailedPrecondition, std::move(message));
}

// 192.168.0.0/16 (eksctl's default VPC), skipping the addresses EC2 reserves at a subnet's start.
std::string PrivateIp(uint64_t ordinal) {
  const uint64_t host = ordinal + 4;
  return "192.168." + std::to_string((host / 256) % 256) + "." + std::to_string(host % 256);
}

}  // namespace

SimulatedCloud::SimulatedCloud(const core::Clock& clock, Catalog catalog, CloudTimings timings,
                               uint64_t seed)
    : clock_(clock), catalog_(std::move(catalog)), timings_(timings), ids_(seed) {}

const s::LabelKeySet& SimulatedCloud::WellKnownLabels() const {
  return catalog_.well_known_labels.empty() ? s::WellKnownLabels() : catalog_.well_known_labels;
}

const InstanceType* SimulatedCloud::FindType(const std::string& name) const {
  for (const InstanceTypePtr& t : catalog_.instance_types) {
    if (t->name == name) return t.get();
  }
  return nullptr;
}

core::Result<api::NodeClaim> SimulatedCloud::Create(const api::NodeClaim& node_claim) {
  const core::Time now = clock_.Now();
  const s::Requirements reqs =
      s::Requirements::FromNodeSelectorRequirements(node_claim.spec.requirements);
  std::vector<OfferingRef> tried;
  const auto choice = ChooseLaunchOffering(
      catalog_.instance_types, node_claim,
      {&WellKnownLabels(),
       [&](const OfferingRef& ref) { return unavailable_.IsUnavailable(ref, now); },
       catalog_.source},
      &tried);
  last_unavailable_ = tried;
  if (!choice.ok()) return choice.status();
  const InstanceType* best_type = choice->type;
  const Offering* best = choice->offering;

  Entry entry;
  SimulatedInstance& inst = entry.instance;
  inst.instance_id = ids_.Next();
  inst.provider_id = FormatProviderId(best->zone, inst.instance_id);
  inst.private_ip = PrivateIp(ids_.count() - 1);
  inst.node_claim_name = node_claim.metadata.name;
  inst.instance_type = best_type->name;
  inst.zone = best->zone;
  inst.capacity_type = best->capacity_type;
  inst.price_per_hour = best->price;
  inst.launch_time = now;
  inst.running_time = now + timings_.launch_latency;

  api::NodeClaim launched = node_claim;
  for (auto& [key, value] : LaunchLabels(*best_type, *best, reqs, catalog_.region)) {
    launched.metadata.labels[key] = value;
  }
  launched.status.provider_id = inst.provider_id;
  launched.status.capacity = best_type->capacity;
  launched.status.allocatable = best_type->allocatable;
  inst.node_claim = launched;

  instances_.emplace(inst.provider_id, std::move(entry));
  return launched;
}

core::Result<SimulatedCloud::Entry*> SimulatedCloud::Live(const std::string& provider_id) {
  auto it = instances_.find(provider_id);
  if (it == instances_.end()) {
    return core::Status::NotFound("instance " + provider_id + " not found");
  }
  if (it->second.instance.StateAt(clock_.Now()) == InstanceState::kTerminated) {
    return core::Status::NotFound("instance " + provider_id + " is terminated");
  }
  return &it->second;
}

void SimulatedCloud::ShutDown(SimulatedInstance& instance, core::Time at, bool immediately) const {
  if (!instance.shutting_down_time || at < *instance.shutting_down_time) {
    instance.shutting_down_time = at;
  }
  const core::Time terminated_at =
      immediately ? *instance.shutting_down_time
                  : *instance.shutting_down_time + timings_.termination_latency;
  if (!instance.terminated_time || terminated_at < *instance.terminated_time) {
    instance.terminated_time = terminated_at;
  }
}

core::Status SimulatedCloud::Delete(const api::NodeClaim& node_claim) {
  auto entry = Live(node_claim.status.provider_id);
  if (!entry.ok()) return entry.status();
  SimulatedInstance& inst = (*entry)->instance;
  // Already shutting down: nothing more to do, and not yet gone (the caller keeps waiting for
  // NotFound, as Karpenter's termination controller does).
  if (inst.StateAt(clock_.Now()) == InstanceState::kShuttingDown) return core::Status::Ok();
  ShutDown(inst, clock_.Now(), /*immediately=*/false);
  return core::Status::Ok();
}

core::Result<api::NodeClaim> SimulatedCloud::Get(const std::string& provider_id) const {
  auto it = instances_.find(provider_id);
  const core::Time now = clock_.Now();
  if (it == instances_.end() || it->second.instance.StateAt(now) == InstanceState::kTerminated) {
    return core::Status::NotFound("instance " + provider_id + " not found");
  }
  const SimulatedInstance& inst = it->second.instance;
  api::NodeClaim out = inst.node_claim;
  // As the AWS provider: an instance on its way out reads as a NodeClaim being deleted.
  if (inst.StateAt(now) == InstanceState::kShuttingDown) {
    out.metadata.deletion_timestamp = inst.shutting_down_time;
  }
  return out;
}

std::vector<api::NodeClaim> SimulatedCloud::List() const {
  std::vector<api::NodeClaim> out;
  for (const auto& [provider_id, entry] : instances_) {
    auto claim = Get(provider_id);
    if (claim.ok()) out.push_back(std::move(claim).value());
  }
  return out;
}

core::Result<InstanceTypes> SimulatedCloud::GetInstanceTypes(const api::NodePool&) const {
  const core::Time now = clock_.Now();
  InstanceTypes out;
  out.reserve(catalog_.instance_types.size());
  for (const InstanceTypePtr& type : catalog_.instance_types) {
    if (!unavailable_.AnyUnavailable(type->name, now)) {
      out.push_back(type);
      continue;
    }
    std::vector<Offering> offerings = type->offerings;
    for (Offering& o : offerings) {
      if (unavailable_.IsUnavailable({type->name, o.zone, o.capacity_type}, now))
        o.available = false;
    }
    // NewInstanceType intersects the type's zone and capacity-type requirements with those of
    // the offerings still available, so the solver stops selecting the unavailable ones.
    out.push_back(NewInstanceType(type->name, type->requirements, type->capacity, type->overhead,
                                  std::move(offerings)));
  }
  return out;
}

DriftReason SimulatedCloud::IsDrifted(const api::NodeClaim& node_claim) const {
  std::string type_name;
  if (const SimulatedInstance* inst = FindInstance(node_claim.status.provider_id)) {
    if (!inst->drift_reason.empty()) return {inst->drift_reason};
    type_name = inst->instance_type;
  } else if (auto it = node_claim.metadata.labels.find(s::kLabelInstanceTypeStable);
             it != node_claim.metadata.labels.end()) {
    type_name = it->second;
  }
  if (!type_name.empty() && FindType(type_name) == nullptr) return {kDriftInstanceTypeNotFound};
  return {};
}

void SimulatedCloud::MarkUnavailable(const OfferingRef& offering, core::Time until) {
  unavailable_.Mark(offering, until);
}

core::Status SimulatedCloud::Interrupt(const std::string& provider_id, InterruptionKind kind) {
  auto entry = Live(provider_id);
  if (!entry.ok()) return entry.status();
  SimulatedInstance& inst = (*entry)->instance;
  const core::Time now = clock_.Now();
  if (inst.StateAt(now) == InstanceState::kShuttingDown) {
    return FailedPrecondition("instance " + provider_id + " is already shutting down");
  }
  InterruptionEvent notice{provider_id, kind, now, std::nullopt};
  switch (kind) {
    case InterruptionKind::kSpotInterruption:
      if (inst.capacity_type != kCapacityTypeSpot) {
        return FailedPrecondition("instance " + provider_id + " is " + inst.capacity_type +
                                  "; only spot instances receive spot interruption warnings");
      }
      if (inst.shutting_down_time) {
        return FailedPrecondition("instance " + provider_id +
                                  " already has a spot interruption pending");
      }
      notice.action_time = now + timings_.spot_interruption_warning;
      ShutDown(inst, *notice.action_time, /*immediately=*/false);
      break;
    case InterruptionKind::kScheduledChange:
      break;
    case InterruptionKind::kStopping:
      if (!inst.stopped_time || now < *inst.stopped_time) inst.stopped_time = now;
      break;
    case InterruptionKind::kTerminated:
      ShutDown(inst, now, /*immediately=*/true);
      break;
  }
  notices_.push_back(Notice{"notice-" + std::to_string(++notices_sent_), std::move(notice), now});
  return core::Status::Ok();
}

core::Status SimulatedCloud::Fail(const std::string& provider_id) {
  auto entry = Live(provider_id);
  if (!entry.ok()) return entry.status();
  ShutDown((*entry)->instance, clock_.Now(), /*immediately=*/true);
  return core::Status::Ok();
}

core::Status SimulatedCloud::SetDrift(const std::string& provider_id, std::string reason) {
  auto it = instances_.find(provider_id);
  if (it == instances_.end())
    return core::Status::NotFound("instance " + provider_id + " not found");
  it->second.instance.drift_reason = std::move(reason);
  return core::Status::Ok();
}

void SimulatedCloud::SetCatalog(Catalog catalog) { catalog_ = std::move(catalog); }

namespace {

InterruptionMessage MessageFor(const std::string& id, const InterruptionEvent& event) {
  InterruptionMessage m;
  m.id = id;
  auto parsed = ParseProviderId(event.provider_id);
  m.instance_id = parsed.ok() ? parsed->instance_id : event.provider_id;
  m.start_time = event.at;
  m.action_time = event.action_time;
  switch (event.kind) {
    case InterruptionKind::kSpotInterruption:
      m.kind = InterruptionMessageKind::kSpotInterruption;
      break;
    case InterruptionKind::kScheduledChange:
      m.kind = InterruptionMessageKind::kScheduledChange;
      break;
    case InterruptionKind::kStopping:
      m.kind = InterruptionMessageKind::kStateChange;
      m.state = kInstanceStateStopping;
      break;
    case InterruptionKind::kTerminated:
      m.kind = InterruptionMessageKind::kStateChange;
      m.state = kInstanceStateTerminated;
      break;
  }
  return m;
}

}  // namespace

core::Result<std::vector<InterruptionMessage>> SimulatedCloud::Receive(int max_messages) {
  if (max_messages < 1) {
    return core::Status::Invalid("receive: max_messages must be at least 1, got " +
                                 std::to_string(max_messages));
  }
  const core::Time now = clock_.Now();
  std::vector<InterruptionMessage> out;
  for (Notice& n : notices_) {
    if (static_cast<int>(out.size()) == max_messages) break;
    if (n.visible_at > now) continue;
    n.visible_at = now + kNoticeVisibilityTimeout;
    out.push_back(MessageFor(n.id, n.event));
  }
  return out;
}

core::Status SimulatedCloud::Delete(const InterruptionMessage& message) {
  std::erase_if(notices_, [&](const Notice& n) { return n.id == message.id; });
  return core::Status::Ok();
}

void SimulatedCloud::MarkOfferingUnavailable(const UnavailableOffering& offering) {
  unavailable_.Mark({offering.instance_type, offering.zone, offering.capacity_type},
                    clock_.Now() + offering.ttl);
}

std::vector<InterruptionEvent> SimulatedCloud::DrainInterruptionEvents() {
  std::vector<InterruptionEvent> out;
  for (Notice& n : notices_) out.push_back(std::move(n.event));
  notices_.clear();
  return out;
}

namespace {

constexpr InstanceState kReportedStates[] = {InstanceState::kRunning, InstanceState::kStopped,
                                             InstanceState::kShuttingDown,
                                             InstanceState::kTerminated};

}  // namespace

std::optional<core::Time> SimulatedCloud::NextTransitionTime() const {
  std::optional<core::Time> next;
  for (const auto& [provider_id, entry] : instances_) {
    for (InstanceState state : kReportedStates) {
      if (state <= entry.reported) continue;
      if (auto at = entry.instance.TimeOf(state)) {
        if (!next || *at < *next) next = at;
        break;  // later states never begin earlier
      }
    }
  }
  return next;
}

std::optional<core::Time> SimulatedCloud::NextAvailabilityChange() const {
  return unavailable_.NextExpiry(clock_.Now());
}

std::vector<InstanceTransition> SimulatedCloud::AdvanceTo(core::Time now) {
  std::vector<InstanceTransition> out;
  for (auto& [provider_id, entry] : instances_) {
    for (InstanceState state : kReportedStates) {
      if (state <= entry.reported) continue;
      auto at = entry.instance.TimeOf(state);
      if (!at) continue;  // skipped
      if (now < *at) break;
      out.push_back({*at, provider_id, state});
      entry.reported = state;
    }
  }
  std::sort(out.begin(), out.end(), [](const InstanceTransition& a, const InstanceTransition& b) {
    return std::tie(a.at, a.provider_id, a.state) < std::tie(b.at, b.provider_id, b.state);
  });
  return out;
}

double SimulatedCloud::CostSoFar(core::Time now) const {
  double total = 0;
  for (const auto& [provider_id, entry] : instances_) total += entry.instance.CostAt(now);
  return total;
}

double SimulatedCloud::NodeHours(core::Time now) const {
  double seconds = 0;
  for (const auto& [provider_id, entry] : instances_)
    seconds += entry.instance.RunningSecondsAt(now);
  return seconds / 3600.0;
}

std::vector<SimulatedInstance> SimulatedCloud::Instances() const {
  std::vector<SimulatedInstance> out;
  out.reserve(instances_.size());
  for (const auto& [provider_id, entry] : instances_) out.push_back(entry.instance);
  return out;
}

const SimulatedInstance* SimulatedCloud::FindInstance(const std::string& provider_id) const {
  auto it = instances_.find(provider_id);
  return it == instances_.end() ? nullptr : &it->second.instance;
}

}  // namespace nodesmith::cloud::sim
