#include "sim/workload_controllers.h"

#include <algorithm>
#include <optional>

#include "api/pod_status.h"
#include "scheduling/node_selector.h"
#include "scheduling/taints.h"

namespace nodesmith::sim {
namespace {

constexpr const char* kLogger = "kube-controller-manager";

// The controller reference, or else the first owner reference: hand-written scenario pods often
// omit controller: true, and the simulated controllers still treat them as theirs.
const api::OwnerReference* ControllerRef(const api::Pod& pod) {
  if (const api::OwnerReference* ref = api::ControllerOf(pod.metadata)) return ref;
  return pod.metadata.owner_references.empty() ? nullptr : &pod.metadata.owner_references[0];
}

// "<deployment>-<hash>" with no further dash in the hash.
bool IsReplicaSetOf(const std::string& rs, const std::string& deployment) {
  if (rs.size() <= deployment.size() + 1 || rs.compare(0, deployment.size() + 1, deployment + "-") != 0) {
    return false;
  }
  return rs.find('-', deployment.size() + 1) == std::string::npos;
}

// Taints every DaemonSet pod tolerates (the DaemonSet controller adds these tolerations).
bool DaemonSetToleratesAutomatically(const api::Taint& taint) {
  static const char* const kKeys[] = {
      "node.kubernetes.io/not-ready",      "node.kubernetes.io/unreachable",
      "node.kubernetes.io/disk-pressure",  "node.kubernetes.io/memory-pressure",
      "node.kubernetes.io/pid-pressure",   "node.kubernetes.io/unschedulable",
      "node.kubernetes.io/network-unavailable"};
  for (const char* k : kKeys) {
    if (taint.key == k) return true;
  }
  return false;
}

// Newer-and-less-advanced pods go first when scaling down, as the ReplicaSet controller ranks
// them: unbound, then not running, then the most recently created.
bool DeleteBefore(const WorkloadControllers::PodView& a, const WorkloadControllers::PodView& b) {
  bool a_bound = !a.node.empty(), b_bound = !b.node.empty();
  if (a_bound != b_bound) return !a_bound;
  if (a.running != b.running) return !a.running;
  if (a.created != b.created) return a.created > b.created;
  if (a.name.size() != b.name.size()) return a.name.size() > b.name.size();
  return a.name > b.name;
}

}  // namespace

WorkloadControllers::WorkloadControllers(runtime::EventLoop& loop, cluster::ClusterApi& cluster,
                                         runtime::EventRecorder& recorder)
    : cluster_(cluster), recorder_(recorder), task_(loop, [this] { Sync(); }) {}

void WorkloadControllers::Start() {
  auto on_workload = [this](const cluster::WatchEvent& e) {
    if (e.type == cluster::WatchEventType::kDeleted && e.object) {
      std::string kind = cluster::KindName(e.kind);
      std::string name = e.name;
      if (e.kind == cluster::Kind::kReplicatedWorkload) {
        const auto& w = std::get<api::ReplicatedWorkload>(*e.object);
        kind = w.kind;
        name = w.metadata.name;
      }
      deleted_.insert({kind, e.namespace_, name});
    }
    task_.Request();
  };
  cluster_.Watch(cluster::Kind::kReplicatedWorkload, on_workload);
  cluster_.Watch(cluster::Kind::kJob, on_workload);
  cluster_.Watch(cluster::Kind::kDaemonSet, on_workload);
  cluster_.Watch(cluster::Kind::kNode, [this](const cluster::WatchEvent&) { task_.Request(); });
  cluster_.Watch(cluster::Kind::kPod, [this](const cluster::WatchEvent& e) {
    if (e.type == cluster::WatchEventType::kDeleted) task_.Request();
  });
  task_.Request();
}

void WorkloadControllers::Sync() {
  auto workloads = cluster_.List<api::ReplicatedWorkload>();
  auto jobs = cluster_.List<api::Job>();

  std::set<std::pair<std::string, std::string>> replica_sets, deployments;
  for (const auto& w : workloads) {
    if (w.kind == "ReplicaSet") replica_sets.insert({w.metadata.namespace_, w.metadata.name});
    if (w.kind == "Deployment") deployments.insert({w.metadata.namespace_, w.metadata.name});
  }
  // The workload a pod belongs to.
  auto owner_of = [&](const api::Pod& pod) -> std::optional<WorkloadKey> {
    const api::OwnerReference* ref = ControllerRef(pod);
    if (!ref) return std::nullopt;
    const std::string& ns = pod.metadata.namespace_;
    if (ref->kind == "ReplicaSet" && !replica_sets.count({ns, ref->name})) {
      for (const auto& [dns, d] : deployments) {
        if (dns == ns && IsReplicaSetOf(ref->name, d)) return WorkloadKey{"Deployment", ns, d};
      }
    }
    return WorkloadKey{ref->kind, ns, ref->name};
  };

  // One pass over the pods, keeping only what the controllers compare (a pod copy per live
  // pod would dominate a large simulation).
  std::set<std::string> taken;
  std::map<WorkloadKey, std::vector<PodView>> live;
  std::vector<std::pair<std::string, std::string>> orphans;
  std::vector<PodView> daemon_pods;
  cluster_.ForEachObject(cluster::Kind::kPod, [&](const cluster::Object& o) {
    const auto& p = std::get<api::Pod>(o);
    taken.insert(p.metadata.Key());
    auto owner = owner_of(p);
    if (!owner) return;
    if (deleted_.count(*owner)) {
      orphans.emplace_back(p.metadata.namespace_, p.metadata.name);
      return;
    }
    if (!api::IsActive(p)) return;
    PodView v{p.metadata.namespace_, p.metadata.name, p.spec.node_name,
              p.status.phase == "Running",
              p.metadata.creation_timestamp.value_or(core::Time{}), std::get<1>(*owner) + "/" +
              std::get<2>(*owner)};
    if (std::get<0>(*owner) == "DaemonSet") {
      daemon_pods.push_back(std::move(v));
    } else {
      live[*owner].push_back(std::move(v));
    }
  });
  // Cascading delete (background propagation): the owner is gone, so are its pods.
  for (const auto& [ns, name] : orphans) (void)cluster_.Delete<api::Pod>(ns, name);
  deleted_.clear();

  for (const auto& w : workloads) {
    WorkloadKey key{w.kind, w.metadata.namespace_, w.metadata.name};
    if (w.metadata.deletion_timestamp) continue;
    SyncReplicas(key, w.metadata, w.template_, w.replicas, std::move(live[key]), taken);
  }
  for (const auto& j : jobs) {
    WorkloadKey key{"Job", j.metadata.namespace_, j.metadata.name};
    if (j.metadata.deletion_timestamp) continue;
    int desired = j.parallelism;
    if (j.completions) desired = std::min(desired, *j.completions);
    SyncReplicas(key, j.metadata, j.template_, desired, std::move(live[key]), taken);
  }
  SyncDaemonSets(daemon_pods);
}

void WorkloadControllers::SyncReplicas(const WorkloadKey& key, const api::ObjectMeta& meta,
                                       const api::PodTemplateSpec& tmpl, int desired,
                                       std::vector<PodView> live,
                                       const std::set<std::string>& taken) {
  const auto& [kind, ns, name] = key;
  int have = static_cast<int>(live.size());
  std::string what = kind + " " + ns + "/" + name;
  if (have < desired) {
    int& next = next_index_.try_emplace(key, 1).first->second;
    int created = 0;
    for (int i = have; i < desired; ++i) {
      api::Pod pod;
      do {
        pod.metadata.name = name + "-" + std::to_string(next++);
      } while (taken.count(ns + "/" + pod.metadata.name));
      pod.metadata.namespace_ = ns;
      pod.metadata.labels = tmpl.metadata.labels;
      pod.metadata.annotations = tmpl.metadata.annotations;
      pod.metadata.owner_references.push_back(api::OwnerReference{
          kind == "Job" ? "batch/v1" : "apps/v1", kind, name, meta.uid, true});
      pod.spec = tmpl.spec;
      pod.spec.node_name.clear();
      pod.status.phase = "Pending";
      if (cluster_.Create(std::move(pod)).ok()) ++created;
    }
    recorder_.Record({runtime::LogLevel::kInfo, kLogger,
                      what + ": created " + std::to_string(created) + " pods (" +
                          std::to_string(desired) + " desired)",
                      "", {{"workload", what}}});
  } else if (have > desired) {
    std::sort(live.begin(), live.end(), DeleteBefore);
    for (int i = 0; i < have - desired; ++i) {
      (void)cluster_.Delete<api::Pod>(ns, live[i].name);
    }
    recorder_.Record({runtime::LogLevel::kInfo, kLogger,
                      what + ": deleted " + std::to_string(have - desired) + " pods (" +
                          std::to_string(desired) + " desired)",
                      "", {{"workload", what}}});
  }
}

void WorkloadControllers::SyncDaemonSets(const std::vector<PodView>& pods) {
  auto daemon_sets = cluster_.List<api::DaemonSet>();
  auto nodes = cluster_.List<api::Node>();
  std::set<std::string> node_names;
  for (const auto& n : nodes) node_names.insert(n.metadata.name);
  // (namespace/daemonset, node) that already have a live pod.
  std::set<std::pair<std::string, std::string>> have;
  for (const auto& p : pods) {
    if (p.node.empty()) continue;
    if (!node_names.count(p.node)) {
      (void)cluster_.Delete<api::Pod>(p.namespace_, p.name);
      continue;
    }
    have.insert({p.owner, p.node});
  }
  for (const auto& ds : daemon_sets) {
    if (ds.metadata.deletion_timestamp) continue;
    api::Pod probe;
    probe.spec = ds.template_.spec;
    scheduling::RequiredNodeAffinity affinity(probe);
    for (const auto& node : nodes) {
      if (node.metadata.deletion_timestamp) continue;
      if (have.count({ds.metadata.namespace_ + "/" + ds.metadata.name, node.metadata.name})) continue;
      if (!affinity.Matches(node)) continue;
      std::vector<api::Taint> taints;
      for (const auto& t : node.spec.taints) {
        if (!DaemonSetToleratesAutomatically(t)) taints.push_back(t);
      }
      if (scheduling::FindUntoleratedTaint(ds.template_.spec.tolerations, taints,
                                           scheduling::kSchedulingEffects)) {
        continue;
      }
      api::Pod pod;
      pod.metadata.name = ds.metadata.name + "-" + node.metadata.name;
      pod.metadata.namespace_ = ds.metadata.namespace_;
      pod.metadata.labels = ds.template_.metadata.labels;
      pod.metadata.annotations = ds.template_.metadata.annotations;
      pod.metadata.owner_references.push_back(
          api::OwnerReference{"apps/v1", "DaemonSet", ds.metadata.name, ds.metadata.uid, true});
      pod.spec = ds.template_.spec;
      pod.spec.node_name = node.metadata.name;
      pod.status.phase = "Pending";
      std::string key = pod.metadata.Key();
      // A finished pod of the same name may still be there; it is replaced.
      (void)cluster_.Delete<api::Pod>(pod.metadata.namespace_, pod.metadata.name);
      if (cluster_.Create(std::move(pod)).ok()) {
        recorder_.Record({runtime::LogLevel::kInfo, kLogger,
                          "DaemonSet " + ds.metadata.namespace_ + "/" + ds.metadata.name +
                              ": created pod " + key + " on node " + node.metadata.name,
                          "PodBound", {{"pod", key}, {"node", node.metadata.name}}});
      }
    }
  }
}

}  // namespace nodesmith::sim
