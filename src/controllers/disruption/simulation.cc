#include "controllers/disruption/simulation.h"

#include <map>
#include <set>
#include <utility>

#include "cluster/cluster_snapshot.h"
#include "controllers/common/karpenter.h"
#include "controllers/disruption/candidates.h"
#include "scheduling/taints.h"
#include "solver/snapshot.h"

namespace nodesmith::controllers {
namespace {

bool HasDisruptedTaint(const api::Node& node) {
  for (const auto& t : node.spec.taints) {
    if (t.key == scheduling::kTaintDisrupted) return true;
  }
  return false;
}

// Removes the named Nodes and the NodeClaims behind them from `objects`, and turns the
// reschedulable pods bound to them pending (their other pods, DaemonSet and static ones, go
// with the node). Returns the keys of the pods turned pending, in list order.
std::vector<std::string> RemoveNodes(api::ObjectSet& objects, const std::set<std::string>& nodes) {
  std::set<std::string> provider_ids;
  std::erase_if(objects.nodes, [&](const api::Sourced<api::Node>& n) {
    if (!nodes.count(n.object.metadata.name)) return false;
    if (!n.object.spec.provider_id.empty()) provider_ids.insert(n.object.spec.provider_id);
    return true;
  });
  std::erase_if(objects.node_claims, [&](const api::Sourced<api::NodeClaim>& c) {
    return nodes.count(c.object.status.node_name) ||
           (!c.object.status.provider_id.empty() && provider_ids.count(c.object.status.provider_id));
  });
  std::vector<std::string> moved;
  std::erase_if(objects.pods, [&](api::Sourced<api::Pod>& p) {
    if (!nodes.count(p.object.spec.node_name)) return false;
    if (!IsReschedulable(p.object)) return true;
    p.object.spec.node_name.clear();
    p.object.status.nominated_node_name.clear();
    moved.push_back(solver::PodKey(p.object));
    return false;
  });
  return moved;
}

}  // namespace

double SimulationResult::ReplacementPricePerHour() const {
  double sum = 0;
  for (const auto& r : replacements) sum += r.launch.price_per_hour;
  return sum;
}

SchedulingSimulator::SchedulingSimulator(const cluster::ClusterApi& cluster,
                                         const cloud::CloudProvider& cloud,
                                         SimulatorOptions options)
    : cluster_(cluster), cloud_(cloud), options_(std::move(options)) {}

void SchedulingSimulator::Reset(int64_t work_limit) {
  base_.reset();
  instance_types_.clear();
  work_ = 0;
  work_limit_ = work_limit;
}

core::Status SchedulingSimulator::EnsureSnapshot() {
  if (base_) return core::Status::Ok();
  api::ObjectSet objects = cluster::Snapshot(cluster_);
  // Capacity that is going away is no capacity: nodes being deleted or already in a disruption
  // command, and NodeClaims being deleted.
  std::set<std::string> leaving;
  for (const auto& n : objects.nodes) {
    if (n.object.metadata.deletion_timestamp || HasDisruptedTaint(n.object)) {
      leaving.insert(n.object.metadata.name);
    }
  }
  for (const auto& c : objects.node_claims) {
    if (c.object.metadata.deletion_timestamp && !c.object.status.node_name.empty()) {
      leaving.insert(c.object.status.node_name);
    }
  }
  RemoveNodes(objects, leaving);
  std::erase_if(objects.node_claims, [](const api::Sourced<api::NodeClaim>& c) {
    return c.object.metadata.deletion_timestamp.has_value();
  });
  std::erase_if(objects.node_pools, [](const api::Sourced<api::NodePool>& p) {
    return p.object.metadata.deletion_timestamp.has_value();
  });

  // Instance types per NodePool; every pool's come from the same catalog today, so the union by
  // name is what the solver gets (as the provisioner does).
  std::set<std::string> seen;
  for (const auto& pool : objects.node_pools) {
    auto types = cloud_.GetInstanceTypes(pool.object);
    if (!types.ok()) {
      return types.status().WithPrefix("listing instance types for nodepool " +
                                       pool.object.metadata.name);
    }
    for (const auto& t : *types) {
      if (seen.insert(t->name).second) instance_types_.push_back(t);
    }
  }
  const scheduling::LabelKeySet& well_known = options_.well_known_labels.empty()
                                                  ? scheduling::WellKnownLabels()
                                                  : options_.well_known_labels;
  auto snapshot = solver::BuildSnapshot(std::move(objects), {}, instance_types_, well_known);
  if (!snapshot.ok()) return snapshot.status().WithPrefix("building the disruption snapshot");
  base_ = std::move(*snapshot);
  return core::Status::Ok();
}

core::Result<SimulationResult> SchedulingSimulator::Simulate(
    const std::vector<Candidate>& candidates) {
  NS_RETURN_IF_ERROR(EnsureSnapshot());
  solver::Snapshot& snapshot = *base_;
  std::set<std::string> names;
  for (const auto& c : candidates) names.insert(c.name());

  // Take the candidates' nodes out (remembering where they stood) and make their reschedulable
  // pods pending. Their bound pods stay in snapshot.bound_pods: the solver ignores pods on nodes
  // it does not know, and does not count pods being scheduled where they were.
  SimulationResult out;
  const size_t pending_before = snapshot.pending_pods.size();
  std::vector<std::pair<size_t, solver::ExistingCapacity>> removed;
  for (size_t i = 0; i < snapshot.existing.size(); ++i) {
    const solver::ExistingCapacity& e = snapshot.existing[i];
    if (e.in_flight || !names.count(e.name)) continue;
    for (int b : e.bound_pods) {
      const api::Pod& bound = snapshot.bound_pods[b];
      if (!IsReschedulable(bound)) continue;
      api::Pod pod = bound;
      pod.spec.node_name.clear();
      pod.status.nominated_node_name.clear();
      out.candidate_pods.push_back(solver::PodKey(pod));
      snapshot.pending_pods.push_back(std::move(pod));
    }
  }
  for (size_t i = snapshot.existing.size(); i-- > 0;) {
    if (snapshot.existing[i].in_flight || !names.count(snapshot.existing[i].name)) continue;
    removed.emplace_back(i, std::move(snapshot.existing[i]));
    snapshot.existing.erase(snapshot.existing.begin() + static_cast<std::ptrdiff_t>(i));
  }

  ++solves_;
  work_ += static_cast<int64_t>(snapshot.pending_pods.size() + snapshot.existing.size());
  auto results = solver::Solve(snapshot, options_.scheduler);

  // Put the snapshot back as the pass found it, whatever the solve said.
  snapshot.pending_pods.resize(pending_before);
  for (auto it = removed.rbegin(); it != removed.rend(); ++it) {
    snapshot.existing.insert(snapshot.existing.begin() + static_cast<std::ptrdiff_t>(it->first),
                             std::move(it->second));
  }
  if (!results.ok()) return results.status().WithPrefix("simulating rescheduling");

  const std::set<std::string> candidate_pods(out.candidate_pods.begin(), out.candidate_pods.end());
  // Every NodeClaim the solve opens counts, also one opened only for pods that were already
  // pending: the candidates' pods fit only because that node is assumed to come, so it is part of
  // the price of removing them (consolidation.go computeConsolidation).
  out.replacements = results->new_node_claims;
  for (const auto& u : results->unschedulable) {
    if (candidate_pods.count(u.pod)) out.unschedulable.push_back(u);
  }
  // A candidate's pod may not rely on capacity that is not initialized yet: the node may never
  // come up, and removing the candidate would leave the pod nowhere (helpers.go
  // SimulateScheduling, UninitializedNodeError). Pods of nodes already being deleted are not
  // candidates' pods, so they may.
  std::map<std::string, const solver::ExistingCapacity*> existing;
  for (const auto& e : snapshot.existing) existing.emplace(e.name, &e);
  for (const auto& placement : results->existing_nodes) {
    auto e = existing.find(placement.name);
    if (e == existing.end() || e->second->initialized) continue;
    const std::string what = (placement.in_flight ? "nodeclaim/" : "node/") + placement.name;
    for (const auto& pod : placement.pods) {
      if (candidate_pods.count(pod)) {
        out.unschedulable.push_back({pod, "would schedule against uninitialized " + what});
        ++out.waiting_for_capacity;
      }
    }
  }
  out.results = std::move(*results);
  return out;
}

}  // namespace nodesmith::controllers
