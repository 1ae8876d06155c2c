#include "controllers/disruption/simulation.h"

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
    if (!IsReschedulable(p.object) || IsTerminating(p.object)) return true;
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

void SchedulingSimulator::Reset() {
  base_.reset();
  instance_types_.clear();
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
  base_ = std::move(objects);
  return core::Status::Ok();
}

core::Result<SimulationResult> SchedulingSimulator::Simulate(
    const std::vector<Candidate>& candidates) {
  NS_RETURN_IF_ERROR(EnsureSnapshot());
  api::ObjectSet objects = *base_;
  std::set<std::string> names;
  for (const auto& c : candidates) names.insert(c.name());
  SimulationResult out;
  out.candidate_pods = RemoveNodes(objects, names);
  const std::set<std::string> candidate_pods(out.candidate_pods.begin(), out.candidate_pods.end());

  const scheduling::LabelKeySet& well_known = options_.well_known_labels.empty()
                                                  ? scheduling::WellKnownLabels()
                                                  : options_.well_known_labels;
  auto snapshot = solver::BuildSnapshot(std::move(objects), {}, instance_types_, well_known);
  if (!snapshot.ok()) return snapshot.status().WithPrefix("building the disruption snapshot");
  ++solves_;
  auto results = solver::Solve(*snapshot, options_.scheduler);
  if (!results.ok()) return results.status().WithPrefix("simulating rescheduling");

  for (const auto& claim : results->new_node_claims) {
    for (const auto& pod : claim.pods) {
      if (candidate_pods.count(pod)) {
        out.replacements.push_back(claim);
        break;
      }
    }
  }
  for (const auto& u : results->unschedulable) {
    if (candidate_pods.count(u.pod)) out.unschedulable.push_back(u);
  }
  out.results = std::move(*results);
  return out;
}

}  // namespace nodesmith::controllers
