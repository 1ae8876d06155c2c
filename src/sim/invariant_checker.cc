#include "sim/invariant_checker.h"

#include <algorithm>
#include <utility>

#include "api/pod_status.h"
#include "cluster/disruption_budget.h"
#include "controllers/nodeclaim/garbage_collection.h"
#include "core/time.h"
#include "scheduling/taints.h"

namespace nodesmith::sim {
namespace {

constexpr const char* kBudgetInvariant = "PodDisruptionBudget";
constexpr const char* kOrphanInvariant = "OrphanInstance";
constexpr const char* kLostPodsInvariant = "LostPods";

bool IsReplicatedKind(const std::string& kind) {
  return kind == "Deployment" || kind == "ReplicaSet" || kind == "StatefulSet";
}

// "<deployment>-<hash>": the ReplicaSet a Deployment made (as the workload controllers read it).
bool IsReplicaSetOf(const std::string& rs, const std::string& deployment) {
  if (rs.size() <= deployment.size() + 1 || rs.compare(0, deployment.size() + 1, deployment + "-") != 0) {
    return false;
  }
  return rs.find('-', deployment.size() + 1) == std::string::npos;
}

std::string Seconds(core::Duration d) {
  return core::FormatDuration(std::chrono::duration_cast<std::chrono::seconds>(d));
}

// When the instance stopped running by `now` (stopped, shutting down or terminated), if it has.
std::optional<core::Time> LostAt(const cloud::sim::SimulatedInstance& inst, core::Time now) {
  std::optional<core::Time> lost;
  for (const auto& t : {inst.stopped_time, inst.shutting_down_time, inst.terminated_time}) {
    if (t && *t <= now && (!lost || *t < *lost)) lost = t;
  }
  return lost;
}

}  // namespace

InvariantOptions DefaultInvariantOptions(const cloud::sim::CloudTimings& timings) {
  controllers::GarbageCollectionOptions gc;
  InvariantOptions options;
  // An instance orphaned right after a collection pass waits one interval for the next; one
  // younger than min_age at that pass waits one more; then the cloud takes its time to end it.
  options.orphan_grace = gc.interval + gc.min_age + timings.termination_latency;
  return options;
}

InvariantChecker::InvariantChecker(const core::Clock& clock, cluster::ClusterApi& cluster,
                                   const cloud::sim::SimulatedCloud& cloud,
                                   InvariantOptions options)
    : clock_(clock),
      cluster_(cluster),
      cloud_(cloud),
      options_(options),
      churn_(clock, cluster, [this](std::string invariant, std::string message) {
        Report(std::move(invariant), std::move(message));
      }) {}

void InvariantChecker::Start() {
  churn_.Start();
  cluster_.ForEachObject(cluster::Kind::kNode, [&](const cluster::Object& o) {
    const auto& node = std::get<api::Node>(o);
    if (!node.spec.provider_id.empty()) node_provider_ids_[node.metadata.name] = node.spec.provider_id;
  });
  for (const auto& claim : cluster_.List<api::NodeClaim>()) {
    cluster::WatchEvent e{cluster::WatchEventType::kAdded, cluster::Kind::kNodeClaim, "",
                          claim.metadata.name, std::make_shared<const cluster::Object>(claim)};
    OnNodeClaimEvent(e);
  }
  cluster_.ForEachObject(cluster::Kind::kPod, [&](const cluster::Object& o) {
    const auto& pod = std::get<api::Pod>(o);
    if (!api::IsActive(pod)) return;
    if (auto key = WorkloadOf(pod)) {
      counted_pods_[pod.metadata.uid] = *key;
      ++live_pods_[*key];
    }
  });
  workloads_dirty_ = true;

  cluster_.Watch(cluster::Kind::kPod, [this](const cluster::WatchEvent& e) { OnPodEvent(e); });
  cluster_.Watch(cluster::Kind::kNodeClaim,
                 [this](const cluster::WatchEvent& e) { OnNodeClaimEvent(e); });
  cluster_.Watch(cluster::Kind::kNode, [this](const cluster::WatchEvent& e) {
    if (e.type == cluster::WatchEventType::kDeleted || !e.object) return;
    const auto& node = std::get<api::Node>(*e.object);
    // Kept after the Node goes: its pods may be collected after it.
    if (!node.spec.provider_id.empty()) node_provider_ids_[node.metadata.name] = node.spec.provider_id;
  });
  cluster_.Watch(cluster::Kind::kReplicatedWorkload, [this](const cluster::WatchEvent& e) {
    workloads_dirty_ = true;
    if (!e.object) return;
    const auto& w = std::get<api::ReplicatedWorkload>(*e.object);
    mismatched_since_.emplace(WorkloadKey{w.kind, w.metadata.namespace_, w.metadata.name},
                              clock_.Now());
  });
}

void InvariantChecker::NoteInvoluntaryLoss(const std::string& provider_id, core::Time at) {
  auto [it, inserted] = involuntary_losses_.emplace(provider_id, at);
  if (!inserted) it->second = std::min(it->second, at);
}

void InvariantChecker::NoteInstance(const std::string& provider_id) {
  if (live_instances_.insert(provider_id).second) instances_dirty_ = true;
}

void InvariantChecker::Report(std::string invariant, std::string message) {
  violations_.push_back({clock_.Now(), std::move(invariant), std::move(message)});
}

// --- Workload bookkeeping and the budget rule ---

std::optional<InvariantChecker::WorkloadKey> InvariantChecker::WorkloadOf(const api::Pod& pod) const {
  // The controller reference, else the first owner reference, as the workload controllers read it.
  const api::OwnerReference* ref = api::ControllerOf(pod.metadata);
  if (!ref && !pod.metadata.owner_references.empty()) ref = &pod.metadata.owner_references[0];
  if (!ref || !IsReplicatedKind(ref->kind)) return std::nullopt;
  const std::string& ns = pod.metadata.namespace_;
  if (ref->kind == "ReplicaSet" &&
      !cluster_.Get<api::ReplicatedWorkload>(ns, "ReplicaSet/" + ref->name).ok()) {
    // A pod listed as kubectl prints it: owned by its Deployment's ReplicaSet.
    std::optional<WorkloadKey> deployment;
    cluster_.ForEachObject(cluster::Kind::kReplicatedWorkload, [&](const cluster::Object& o) {
      const auto& w = std::get<api::ReplicatedWorkload>(o);
      if (!deployment && w.kind == "Deployment" && w.metadata.namespace_ == ns &&
          IsReplicaSetOf(ref->name, w.metadata.name)) {
        deployment = WorkloadKey{"Deployment", ns, w.metadata.name};
      }
    });
    if (deployment) return deployment;
  }
  return WorkloadKey{ref->kind, ns, ref->name};
}

void InvariantChecker::OnPodEvent(const cluster::WatchEvent& e) {
  if (!e.object) return;
  const auto& pod = std::get<api::Pod>(*e.object);
  auto counted = counted_pods_.find(pod.metadata.uid);
  const bool counts = e.type != cluster::WatchEventType::kDeleted && api::IsActive(pod);
  if (counted != counted_pods_.end() && !counts) {
    --live_pods_[counted->second];
    // A possible mismatch starts now (the next check clears it if the count is right).
    mismatched_since_.emplace(counted->second, clock_.Now());
    counted_pods_.erase(counted);
    workloads_dirty_ = true;
  } else if (counted == counted_pods_.end() && counts) {
    if (auto key = WorkloadOf(pod)) {
      counted_pods_.emplace(pod.metadata.uid, *key);
      ++live_pods_[*key];
      mismatched_since_.emplace(*key, clock_.Now());
      workloads_dirty_ = true;
    }
  }
  if (e.type == cluster::WatchEventType::kDeleted) JudgePodDeletion(pod);
}

std::string InvariantChecker::Excuse(const api::Pod& pod) const {
  const core::Time now = clock_.Now();
  const std::string& node_name = pod.spec.node_name;
  auto pid_it = node_provider_ids_.find(node_name);
  if (pid_it == node_provider_ids_.end()) return "its node is not one nodesmith launched";
  const std::string& provider_id = pid_it->second;

  if (auto loss = involuntary_losses_.find(provider_id);
      loss != involuntary_losses_.end() && loss->second <= now) {
    return "its instance was lost involuntarily";
  }
  std::optional<api::NodeClaim> claim;
  if (auto c = provider_claims_.find(provider_id); c != provider_claims_.end()) {
    auto got = cluster_.Get<api::NodeClaim>("", c->second);
    if (got.ok()) claim = std::move(got).value();
  }
  const cloud::sim::SimulatedInstance* inst = cloud_.FindInstance(provider_id);
  std::optional<core::Time> lost_at = inst ? LostAt(*inst, now) : std::nullopt;
  if (lost_at && (!claim || !claim->metadata.deletion_timestamp ||
                  *lost_at < *claim->metadata.deletion_timestamp)) {
    return "its instance went down before nodesmith took its NodeClaim";
  }
  const bool claim_deleting = claim && claim->metadata.deletion_timestamp;
  if (claim_deleting && claim->spec.termination_grace_period &&
      now >= *claim->metadata.deletion_timestamp + *claim->spec.termination_grace_period) {
    return "its NodeClaim's terminationGracePeriod elapsed";
  }
  if (auto key = WorkloadOf(pod)) {
    auto w = cluster_.Get<api::ReplicatedWorkload>(std::get<1>(*key),
                                                   std::get<0>(*key) + "/" + std::get<2>(*key));
    if (!w.ok() || w->metadata.deletion_timestamp) return "its workload was deleted";
    auto live = live_pods_.find(*key);
    if (live != live_pods_.end() && live->second >= w->replicas) return "its workload scaled down";
  }
  if (!claim_deleting && !lost_at) {
    auto node = cluster_.Get<api::Node>("", node_name);
    if (node.ok() && !node->metadata.deletion_timestamp) {
      bool disrupted = std::any_of(node->spec.taints.begin(), node->spec.taints.end(),
                                   [](const api::Taint& t) { return t.key == scheduling::kTaintDisrupted; });
      if (!disrupted) return "its node is not being disrupted";
    }
  }
  return "";
}

void InvariantChecker::JudgePodDeletion(const api::Pod& pod) {
  if (pod.spec.node_name.empty() || pod.metadata.deletion_timestamp || !api::IsPodReady(pod)) {
    return;  // not counted healthy by any budget
  }
  std::vector<api::PodDisruptionBudget> budgets = cluster::DisruptionBudgetsFor(cluster_, pod);
  if (budgets.empty() || !Excuse(pod).empty()) return;
  for (const auto& pdb : budgets) {
    cluster::DisruptionBudgetStatus status = cluster::ComputeDisruptionBudgetStatus(cluster_, pdb);
    if (!status.error.empty()) continue;
    // Before this pod went the budget counted it healthy: it allowed a disruption only if one
    // healthy pod above desiredHealthy was left over.
    if (status.current_healthy + 1 > status.desired_healthy) continue;
    std::string claim;
    if (auto pid = node_provider_ids_.find(pod.spec.node_name); pid != node_provider_ids_.end()) {
      if (auto c = provider_claims_.find(pid->second); c != provider_claims_.end()) {
        claim = " (NodeClaim " + c->second + ")";
      }
    }
    Report(kBudgetInvariant,
           "pod " + api::PodKey(pod) + " was taken from node " + pod.spec.node_name + claim +
               " while PodDisruptionBudget " + pdb.metadata.Key() +
               " allowed no disruption: " + std::to_string(status.current_healthy) +
               " healthy pods left, " + std::to_string(status.desired_healthy) + " desired");
  }
}

// --- Instances ---

void InvariantChecker::OnNodeClaimEvent(const cluster::WatchEvent& e) {
  const core::Time now = clock_.Now();
  std::string provider_id;
  if (e.type != cluster::WatchEventType::kDeleted && e.object) {
    provider_id = std::get<api::NodeClaim>(*e.object).status.provider_id;
  }
  // A NodeClaim that goes may leave an instance behind even if it never named one.
  if (e.type == cluster::WatchEventType::kDeleted) instances_dirty_ = true;
  auto known = claim_provider_ids_.find(e.name);
  std::string previous = known == claim_provider_ids_.end() ? "" : known->second;
  if (e.type == cluster::WatchEventType::kDeleted) {
    if (known != claim_provider_ids_.end()) claim_provider_ids_.erase(known);
  } else {
    claim_provider_ids_[e.name] = provider_id;
  }
  if (previous == provider_id) return;
  if (!previous.empty()) {
    auto owner = provider_claims_.find(previous);
    if (owner != provider_claims_.end() && owner->second == e.name) {
      provider_claims_.erase(owner);
      unclaimed_since_.emplace(previous, now);
    }
  }
  if (!provider_id.empty()) {
    provider_claims_[provider_id] = e.name;
    live_instances_.insert(provider_id);
  }
  instances_dirty_ = true;
}

void InvariantChecker::CheckInstances() {
  const core::Time now = clock_.Now();
  instance_deadline_.reset();
  for (auto it = live_instances_.begin(); it != live_instances_.end();) {
    const std::string& provider_id = *it;
    const cloud::sim::SimulatedInstance* inst = cloud_.FindInstance(provider_id);
    if (!inst || inst->StateAt(now) == cloud::sim::InstanceState::kTerminated) {
      unclaimed_since_.erase(provider_id);
      it = live_instances_.erase(it);
      continue;
    }
    bool owned = provider_claims_.count(provider_id) > 0;
    if (!owned) {
      // Still launching: its NodeClaim exists and has not been given the providerID yet.
      auto claim = claim_provider_ids_.find(inst->node_claim_name);
      owned = claim != claim_provider_ids_.end() && claim->second.empty();
    }
    if (owned) {
      unclaimed_since_.erase(provider_id);
      ++it;
      continue;
    }
    core::Time since = unclaimed_since_.emplace(provider_id, now).first->second;
    if (now - since > options_.orphan_grace) {
      if (reported_instances_.insert(provider_id).second) {
        Report(kOrphanInvariant,
               "instance " + inst->instance_id + " (" + inst->instance_type + ", launched for NodeClaim " +
                   inst->node_claim_name + ") has been " +
                   std::string(cloud::sim::InstanceStateName(inst->StateAt(now))) +
                   " without a NodeClaim since " + core::FormatRfc3339(since) + ", " +
                   Seconds(now - since) + " (garbage collection should end it within " +
                   Seconds(options_.orphan_grace) + ")");
      }
    } else {
      core::Time due = since + options_.orphan_grace + core::Duration(1);
      if (!instance_deadline_ || due < *instance_deadline_) instance_deadline_ = due;
    }
    ++it;
  }
}

// --- Workloads ---

void InvariantChecker::CheckWorkloads() {
  const core::Time now = clock_.Now();
  workload_deadline_.reset();
  std::set<WorkloadKey> present;
  cluster_.ForEachObject(cluster::Kind::kReplicatedWorkload, [&](const cluster::Object& o) {
    const auto& w = std::get<api::ReplicatedWorkload>(o);
    if (w.metadata.deletion_timestamp) return;
    WorkloadKey key{w.kind, w.metadata.namespace_, w.metadata.name};
    present.insert(key);
    auto live_it = live_pods_.find(key);
    int live = live_it == live_pods_.end() ? 0 : live_it->second;
    if (live == w.replicas) {
      mismatched_since_.erase(key);
      reported_workloads_.erase(key);
      return;
    }
    core::Time since = mismatched_since_.emplace(key, now).first->second;
    if (now - since > options_.replica_grace) {
      if (reported_workloads_.insert(key).second) {
        Report(kLostPodsInvariant,
               w.kind + " " + w.metadata.Key() + " has " + std::to_string(live) +
                   " live pods for " + std::to_string(w.replicas) + " replicas since " +
                   core::FormatRfc3339(since) + " (" + Seconds(now - since) + ")");
      }
    } else {
      core::Time due = since + options_.replica_grace + core::Duration(1);
      if (!workload_deadline_ || due < *workload_deadline_) workload_deadline_ = due;
    }
  });
  for (auto it = mismatched_since_.begin(); it != mismatched_since_.end();) {
    if (present.count(it->first)) {
      ++it;
    } else {
      reported_workloads_.erase(it->first);
      it = mismatched_since_.erase(it);
    }
  }
}

void InvariantChecker::Check() {
  const core::Time now = clock_.Now();
  if (instances_dirty_ || (instance_deadline_ && now >= *instance_deadline_)) {
    instances_dirty_ = false;
    CheckInstances();
  }
  if (workloads_dirty_ || (workload_deadline_ && now >= *workload_deadline_)) {
    workloads_dirty_ = false;
    CheckWorkloads();
  }
}

}  // namespace nodesmith::sim
