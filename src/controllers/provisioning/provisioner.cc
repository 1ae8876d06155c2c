#include "controllers/provisioning/provisioner.h"

#include <algorithm>
#include <sstream>

#include "api/conditions.h"
#include "cluster/cluster_snapshot.h"
#include "controllers/common/karpenter.h"
#include "controllers/controllers.h"
#include "controllers/provisioning/nodeclaim_builder.h"
#include "solver/snapshot.h"

namespace nodesmith::controllers {
namespace {

constexpr const char* kLogger = "controller.provisioner";
constexpr size_t kLoggedInstanceTypes = 20;
constexpr size_t kLoggedPods = 5;  // Karpenter's "found provisionable pod(s)" names five

std::string JoinFirst(const std::vector<std::string>& names, size_t limit) {
  std::ostringstream out;
  out << "[";
  for (size_t i = 0; i < names.size() && i < limit; ++i) out << (i ? " " : "") << names[i];
  if (names.size() > limit) out << " and " << (names.size() - limit) << " other(s)";
  out << "]";
  return out.str();
}

std::string JoinAll(const std::vector<std::string>& items) {
  std::string out;
  for (const auto& s : items) out += (out.empty() ? "" : ",") + s;
  return out;
}

}  // namespace

Provisioner::Provisioner(const core::Clock& clock, cluster::ClusterApi& cluster,
                         cloud::CloudProvider& cloud, runtime::EventRecorder& recorder,
                         ProvisionerOptions options)
    : clock_(clock), cluster_(cluster), cloud_(cloud), recorder_(recorder),
      options_(std::move(options)) {}

std::string Provisioner::Name() const { return kProvisionerName; }

std::vector<cluster::Kind> Provisioner::Watches() const {
  return {cluster::Kind::kPod, cluster::Kind::kNode, cluster::Kind::kNodeClaim,
          cluster::Kind::kNodePool};
}

bool Provisioner::Provisionable(const api::Pod& pod) const {
  if (!solver::IsPending(pod)) return false;
  if (!options_.require_unschedulable_condition) return true;
  for (const auto& c : pod.status.conditions) {
    if (c.type == "PodScheduled" && c.reason == "Unschedulable") return true;
  }
  return false;
}

Provisioner::Observed Provisioner::Observe() const {
  Observed o;
  // A provisionable pod is bound to no node: the store's "" bucket (KubeCluster's index) holds
  // every one, and this runs on every pod, node and NodeClaim event.
  cluster_.ForEachPodOn("", [&](const api::Pod& pod) {
    if (!Provisionable(pod)) return;
    std::string verdict;
    if (const api::Condition* c = api::FindCondition(pod.status.conditions, "PodScheduled")) {
      verdict = c->reason + "\n" + c->message + "\n" +
                (c->last_transition_time ? core::FormatRfc3339(*c->last_transition_time) : "");
    }
    o.pending.emplace(solver::PodKey(pod), std::move(verdict));
  });
  cluster_.ForEachObject(cluster::Kind::kNodeClaim, [&](const cluster::Object& obj) {
    const auto& claim = std::get<api::NodeClaim>(obj);
    if (!claim.metadata.deletion_timestamp) o.live_claims.insert(claim.metadata.name);
  });
  cluster_.ForEachObject(cluster::Kind::kNodePool, [&](const cluster::Object& obj) {
    const auto& pool = std::get<api::NodePool>(obj);
    // The generation, not the resourceVersion: status and annotation writes (counts,
    // conditions, the hash) are no new NodePool to plan with.
    o.pools += pool.metadata.name + "/" + pool.metadata.uid + "@" +
               std::to_string(pool.metadata.generation) +
               (pool.metadata.deletion_timestamp ? "-" : "") + ";";
  });
  return o;
}

core::Result<runtime::ReconcileResult> Provisioner::Reconcile(const runtime::Request& request) {
  const core::Time now = clock_.Now();
  // A pod arrives when its change is observed: one that waited behind another reconcile on the
  // runtime's thread (a status write of tens of milliseconds) does not push its batch back. The
  // latest pod change is no earlier than the arrival this reconcile may find, so the idle window
  // never closes early; other kinds' changes (the waited-for writes) are not pods arriving.
  const auto pod_change = request.changed_at.find(cluster::Kind::kPod);
  const core::Time arrived =
      pod_change != request.changed_at.end() ? std::min(pod_change->second, now) : now;
  Observed current = Observe();

  // Forget bookkeeping for pods that are no longer pending.
  for (auto it = nominated_.begin(); it != nominated_.end();) {
    it = current.pending.count(it->first) ? std::next(it) : nominated_.erase(it);
  }
  for (auto it = unschedulable_reason_.begin(); it != unschedulable_reason_.end();) {
    it = current.pending.count(it->first) ? std::next(it) : unschedulable_reason_.erase(it);
  }

  if (options_.nominations) options_.nominations->Publish(nominated_);

  bool arrival = false;
  std::map<std::string, bool> coming_up;
  for (const auto& [key, verdict] : current.pending) {
    auto before = last_.pending.find(key);
    // A new verdict matters for a pod planned onto capacity that is now up: the scheduler
    // tried it there and it did not fit. (Pods not yet planned are in a batch already, or the
    // solver found no room for them and they wait for the retry.)
    if (before == last_.pending.end() ||
        (before->second != verdict && nominated_.count(key) && WaitingOnNothing(key, &coming_up))) {
      arrival = true;
    }
  }
  for (const auto& name : last_.live_claims) {
    if (!current.live_claims.count(name)) arrival = true;
  }
  if (current.pools != last_.pools) arrival = true;
  if (retry_at_ && now >= *retry_at_) {
    arrival = true;
    retry_at_.reset();
  }
  last_ = current;

  if (current.pending.empty()) {
    batch_start_.reset();
    retry_at_.reset();
    ReportUnschedulable(0);
    return runtime::ReconcileResult::Done();
  }
  if (arrival) {
    if (!batch_start_) {
      batch_start_ = arrived;
      Emit(recorder_, runtime::LogLevel::kDebug, kLogger, "Waiting to batch additional pods");
    }
    last_arrival_ = std::max(last_arrival_, arrived);
  }
  if (!batch_start_ && !retry_at_ && AnyPodWaitingOnNothing(current)) {
    retry_at_ = now + options_.pending_retry;
  }
  if (!batch_start_) {
    if (retry_at_) return runtime::ReconcileResult::RequeueAfter(*retry_at_ - now);
    return runtime::ReconcileResult::Done();
  }

  const core::Time idle_end = last_arrival_ + options_.batch_idle_duration;
  const core::Time max_end = *batch_start_ + options_.batch_max_duration;
  if (now < idle_end && now < max_end) {
    return runtime::ReconcileResult::RequeueAfter(std::min(idle_end, max_end) - now);
  }

  batch_start_.reset();
  core::Status st = Provision();
  if (options_.nominations) options_.nominations->Publish(nominated_);
  // What this pass created is already accounted for: do not let it open the next batch.
  last_ = Observe();
  if (!st.ok()) return st;
  if (retry_at_) return runtime::ReconcileResult::RequeueAfter(*retry_at_ - now);
  return runtime::ReconcileResult::Done();
}

bool Provisioner::WaitingOnNothing(const std::string& pod,
                                   std::map<std::string, bool>* coming_up) const {
  auto nominated = nominated_.find(pod);
  if (nominated == nominated_.end()) return true;
  auto known = coming_up->find(nominated->second);
  if (known == coming_up->end()) {
    bool still_coming = false;
    if (auto claim = cluster_.Get<api::NodeClaim>("", nominated->second); claim.ok()) {
      still_coming = !claim->metadata.deletion_timestamp && !claim->IsTrue(kConditionInitialized);
    } else if (auto node = cluster_.Get<api::Node>("", nominated->second); node.ok()) {
      still_coming = !api::IsNodeReady(*node);
    }
    known = coming_up->emplace(nominated->second, still_coming).first;
  }
  return !known->second;
}

bool Provisioner::AnyPodWaitingOnNothing(const Observed& observed) const {
  std::map<std::string, bool> coming_up;
  for (const auto& [pod, verdict] : observed.pending) {
    if (WaitingOnNothing(pod, &coming_up)) return true;
  }
  return false;
}

core::Status Provisioner::Provision() {
  ++solves_;
  api::ObjectSet objects = cluster::Snapshot(cluster_);
  if (options_.require_unschedulable_condition) {
    // Pods no scheduler has given up on are not this pass's to plan (bound pods stay: they
    // fill their nodes).
    std::erase_if(objects.pods, [&](const auto& sp) {
      return solver::IsPending(sp.object) && !Provisionable(sp.object);
    });
  }
  std::vector<api::NodePool> pools;
  for (const auto& p : objects.node_pools) {
    if (!p.object.metadata.deletion_timestamp) pools.push_back(p.object);
  }

  // Instance types per NodePool; today every pool's come from the same catalog, so the union by
  // name is what the solver gets.
  cloud::InstanceTypes types;
  std::set<std::string> seen_types;
  for (const auto& pool : pools) {
    auto r = cloud_.GetInstanceTypes(pool);
    if (!r.ok()) return r.status().WithPrefix("listing instance types for nodepool " + pool.metadata.name);
    for (const auto& t : *r) {
      if (seen_types.insert(t->name).second) types.push_back(t);
    }
  }
  const scheduling::LabelKeySet& well_known = options_.well_known_labels.empty()
                                                  ? scheduling::WellKnownLabels()
                                                  : options_.well_known_labels;
  // Moved, not copied: with 150,000 pods a copy of the object set is ~0.4 s and ~300 MiB.
  auto snapshot = solver::BuildSnapshot(std::move(objects), {}, std::move(types), well_known);
  if (!snapshot.ok()) return snapshot.status().WithPrefix("building the provisioning snapshot");
  if (snapshot->pending_pods.empty()) {
    ReportUnschedulable(0);
    return core::Status::Ok();
  }
  {
    // The first few by name, as Karpenter's line lists them; the count says how many in all.
    std::string first;
    for (size_t i = 0; i < snapshot->pending_pods.size() && i < kLoggedPods; ++i) {
      first += (i == 0 ? "" : ",") + solver::PodKey(snapshot->pending_pods[i]);
    }
    const std::string count = std::to_string(snapshot->pending_pods.size());
    Emit(recorder_, runtime::LogLevel::kInfo, kLogger, "Found " + count + " provisionable pods",
         "", {{"pods", count}, {"firstPods", first}});
  }
  // The snapshot leaves them out; say so, as Karpenter's provisioner does.
  for (const auto& pool : pools) {
    const api::Condition* ready = api::FindCondition(pool.conditions, api::kNodePoolConditionReady);
    if (ready != nullptr && ready->status != "True") {
      Emit(recorder_, runtime::LogLevel::kError, kLogger, "ignoring nodepool, not ready", "",
           {{"NodePool", pool.metadata.name}, {"reason", ready->reason}});
    }
  }
  if (pools.empty()) {
    Emit(recorder_, runtime::LogLevel::kWarn, kLogger,
         "No nodepools found; cannot provision " + std::to_string(snapshot->pending_pods.size()) +
             " pod(s)");
    return core::Status::Ok();
  }

  auto results = solver::Solve(*snapshot, options_.scheduler);
  if (!results.ok()) return results.status().WithPrefix("scheduling pending pods");

  ReportRound(*results);
  ReportUnschedulable(results->unschedulable.size());
  std::map<std::string, const api::NodePool*> pool_by_name;
  for (const auto& p : pools) pool_by_name[p.metadata.name] = &p;
  for (const auto& planned : results->new_node_claims) {
    auto pool = pool_by_name.find(planned.node_pool);
    if (pool == pool_by_name.end()) {
      return core::Status::Internal("solver planned a nodeclaim for unknown nodepool " +
                                    planned.node_pool);
    }
    Emit(recorder_, runtime::LogLevel::kInfo, kLogger,
         "Computed packing for " + std::to_string(planned.pods.size()) +
             " pod(s) with instance type option(s) " +
             JoinFirst(planned.instance_type_options, kLoggedInstanceTypes));
    NS_RETURN_IF_ERROR(CreateNodeClaim(planned, *pool->second));
  }
  for (const auto& placement : results->existing_nodes) {
    // Pods headed for capacity that is still coming up are nominated to it; those the solver
    // put on working nodes are simply the world's scheduler's to bind.
    bool coming_up = placement.in_flight;
    if (!coming_up) {
      auto node = cluster_.Get<api::Node>("", placement.name);
      coming_up = !node.ok() || !api::IsNodeReady(*node);
    }
    if (!coming_up) continue;
    for (const auto& pod : placement.pods) {
      Nominate(pod, placement.name, placement.in_flight ? "nodeclaim" : "node");
    }
  }

  retry_at_.reset();
  for (const auto& u : results->unschedulable) {
    retry_at_ = clock_.Now() + options_.pending_retry;
    auto& last = unschedulable_reason_[u.pod];
    if (last == u.reason) continue;
    last = u.reason;
    Emit(recorder_, runtime::LogLevel::kWarn, kLogger,
         "Could not schedule pod " + u.pod + ": " + u.reason, "PodUnschedulable",
         {{"pod", u.pod}, {"reason", u.reason}});
  }
  return core::Status::Ok();
}

void Provisioner::ReportUnschedulable(size_t count) {
  if (count == unschedulable_reported_) return;
  unschedulable_reported_ = count;
  Emit(recorder_, runtime::LogLevel::kDebug, kLogger,
       std::to_string(count) + " pod(s) unschedulable in this round's simulation", "",
       {{kUnschedulablePodsField, std::to_string(count)}});
}

void Provisioner::ReportRound(const solver::Results& results) {
  size_t new_pods = 0;
  for (const auto& planned : results.new_node_claims) new_pods += planned.pods.size();
  // Karpenter's scheduler says nothing of a round that needs no new capacity (log spam).
  if (new_pods == 0) return;
  const std::string claims = std::to_string(results.new_node_claims.size());
  Emit(recorder_, runtime::LogLevel::kInfo, kLogger,
       "Computed " + claims + " new nodeclaim(s) to fit " + std::to_string(new_pods) + " pod(s)",
       "", {{"nodeclaims", claims}, {"pods", std::to_string(new_pods)}});
  size_t nodes = 0;
  size_t existing_pods = 0;
  for (const auto& placement : results.existing_nodes) {
    if (placement.pods.empty()) continue;
    ++nodes;
    existing_pods += placement.pods.size();
  }
  if (existing_pods == 0) return;
  Emit(recorder_, runtime::LogLevel::kInfo, kLogger,
       "Computed " + std::to_string(nodes) + " existing node(s) will fit " +
           std::to_string(existing_pods) + " pod(s)",
       "", {{"nodes", std::to_string(nodes)}, {"pods", std::to_string(existing_pods)}});
}

core::Status Provisioner::CreateNodeClaim(const solver::NewNodeClaim& planned,
                                          const api::NodePool& pool) {
  api::NodeClaim claim = BuildNodeClaim(planned, pool);
  auto created = cluster_.Create(std::move(claim));
  if (!created.ok()) return created.status().WithPrefix("creating nodeclaim for nodepool " + pool.metadata.name);
  const std::string& name = created->metadata.name;
  Emit(recorder_, runtime::LogLevel::kInfo, kLogger, "Created nodeclaim " + name,
       "NodeClaimCreated",
       {{"nodeClaim", name},
        {"nodePool", pool.metadata.name},
        {"instanceTypes", std::to_string(planned.instance_type_options.size())},
        {"pods", JoinAll(planned.pods)}});
  for (const auto& pod : planned.pods) Nominate(pod, name, "nodeclaim");
  return core::Status::Ok();
}

void Provisioner::Nominate(const std::string& pod, const std::string& target,
                           const std::string& kind) {
  auto& current = nominated_[pod];
  if (current == target) return;
  current = target;
  Emit(recorder_, runtime::LogLevel::kInfo, kLogger,
       "Nominated pod " + pod + " to " + kind + " " + target, "PodNominated",
       {{"pod", pod}, {kind == "node" ? "node" : "nodeClaim", target}});
}

}  // namespace nodesmith::controllers
