#include "sim/kube_scheduler.h"

#include <algorithm>
#include <memory>
#include <optional>
#include <set>
#include <vector>

#include "api/node_status.h"
#include "api/pod_status.h"
#include "scheduling/node_selector.h"
#include "scheduling/pod_requests.h"
#include "scheduling/taints.h"
#include "scheduling/requirements.h"
#include "scheduling/well_known_labels.h"
#include "solver/topology.h"

namespace nodesmith::sim {
namespace {

constexpr const char* kLogger = "kube-scheduler";

// Whether placing `pod` depends on where other pods are: spread, pod affinity or anti-affinity.
bool HasPodTopology(const api::Pod& pod) {
  if (!pod.spec.topology_spread_constraints.empty()) return true;
  const auto& a = pod.spec.affinity;
  return a && ((a->pod_affinity && (!a->pod_affinity->required.empty() ||
                                    !a->pod_affinity->preferred.empty())) ||
               (a->pod_anti_affinity && (!a->pod_anti_affinity->required.empty() ||
                                         !a->pod_anti_affinity->preferred.empty())));
}

// A node's labels as requirements, with its hostname, as the topology counts domains.
scheduling::Requirements NodeRequirements(const api::Node& node) {
  api::Labels labels = node.metadata.labels;
  labels.emplace(scheduling::kLabelHostname, node.metadata.name);
  return scheduling::Requirements::FromLabels(labels);
}

// The share of cpu and memory left free, averaged: higher is less allocated.
double FreeShare(const api::ResourceList& allocatable, const api::ResourceList& used) {
  double score = 0;
  int n = 0;
  for (const char* r : {api::kResourceCpu, api::kResourceMemory}) {
    double cap = allocatable.Get(r).AsDouble();
    if (cap <= 0) continue;
    score += (cap - used.Get(r).AsDouble()) / cap;
    ++n;
  }
  return n ? score / n : 0;
}

// A key shared by pods made from the same template: when one of them fits nowhere in a pass,
// none of the others will (capacity only shrinks within a pass).
std::string TemplateKey(const api::Pod& pod) {
  for (const auto& ref : pod.metadata.owner_references) {
    if (ref.controller) return pod.metadata.namespace_ + "/" + ref.kind + "/" + ref.name;
  }
  return "";
}

}  // namespace

KubeScheduler::KubeScheduler(runtime::EventLoop& loop, cluster::ClusterApi& cluster,
                             runtime::EventRecorder& recorder)
    : cluster_(cluster), recorder_(recorder), task_(loop, [this] { Schedule(); }) {}

void KubeScheduler::Start() {
  cluster_.Watch(cluster::Kind::kPod, [this](const cluster::WatchEvent& e) {
    if (e.type == cluster::WatchEventType::kDeleted) {
      if (e.object) requests_.erase(cluster::MetaOf(*e.object).uid);
      nominated_.erase(e.namespace_ + "/" + e.name);
      task_.Request();
      return;
    }
    if (e.object && std::get<api::Pod>(*e.object).spec.node_name.empty()) task_.Request();
  });
  cluster_.Watch(cluster::Kind::kNode, [this](const cluster::WatchEvent&) { task_.Request(); });
  task_.Request();
}

void KubeScheduler::Nominate(const std::string& pod, const std::string& target) {
  nominated_[pod] = target;
  task_.Request();
}

const api::ResourceList& KubeScheduler::RequestsOf(const api::Pod& pod) {
  auto it = requests_.find(pod.metadata.uid);
  if (it == requests_.end()) {
    it = requests_.emplace(pod.metadata.uid, scheduling::PodRequests(pod)).first;
  }
  return it->second;
}

void KubeScheduler::Schedule() {
  struct Candidate {
    api::Node node;
    api::ResourceList used;
  };
  std::vector<Candidate> candidates;
  std::map<std::string, size_t> index;  // node name -> candidates index
  cluster_.ForEachObject(cluster::Kind::kNode, [&](const cluster::Object& o) {
    const auto& node = std::get<api::Node>(o);
    if (node.metadata.deletion_timestamp || node.spec.unschedulable || !api::IsNodeReady(node)) return;
    index[node.metadata.name] = candidates.size();
    candidates.push_back({node, {}});
  });

  std::vector<api::Pod> pending;
  bool any_topology = false;
  cluster_.ForEachObject(cluster::Kind::kPod, [&](const cluster::Object& o) {
    const auto& pod = std::get<api::Pod>(o);
    if (!api::IsActive(pod)) return;
    any_topology = any_topology || HasPodTopology(pod);
    if (pod.spec.node_name.empty()) {
      pending.push_back(pod);
      return;
    }
    auto it = index.find(pod.spec.node_name);
    if (it != index.end()) candidates[it->second].used.Add(RequestsOf(pod));
  });
  if (pending.empty()) return;

  // Where each nomination points now: a node name (NodeClaims resolve to their node).
  std::map<std::string, std::string> claim_node;
  cluster_.ForEachObject(cluster::Kind::kNodeClaim, [&](const cluster::Object& o) {
    const auto& claim = std::get<api::NodeClaim>(o);
    if (!claim.status.node_name.empty()) claim_node[claim.metadata.name] = claim.status.node_name;
  });
  auto nominated_candidate = [&](const api::Pod& pod) -> std::optional<size_t> {
    auto it = nominated_.find(pod.metadata.Key());
    if (it == nominated_.end()) return std::nullopt;
    std::string node = it->second;
    if (auto c = claim_node.find(node); c != claim_node.end()) node = c->second;
    auto n = index.find(node);
    if (n == index.end()) return std::nullopt;
    return n->second;
  };

  std::vector<std::pair<std::optional<size_t>, api::Pod>> queue;
  for (auto& p : pending) {
    auto nominee = nominated_candidate(p);
    queue.emplace_back(nominee, std::move(p));
  }
  std::stable_sort(queue.begin(), queue.end(), [](const auto& a, const auto& b) {
    if (a.first.has_value() != b.first.has_value()) return a.first.has_value();
    int pa = a.second.spec.priority.value_or(0), pb = b.second.spec.priority.value_or(0);
    if (pa != pb) return pa > pb;
    auto ta = a.second.metadata.creation_timestamp.value_or(core::Time{});
    auto tb = b.second.metadata.creation_timestamp.value_or(core::Time{});
    if (ta != tb) return ta < tb;
    return a.second.metadata.Key() < b.second.metadata.Key();
  });

  // Spread, pod affinity and anti-affinity are checked with the solver's own Topology, over
  // the pods bound now; only built when some pod declares them (the common case skips it).
  std::unique_ptr<solver::Topology> topology;
  std::vector<api::Pod> bound;
  if (any_topology) {
    solver::TopologyCluster topology_cluster;
    std::set<std::string> node_names;
    for (auto& node : cluster_.List<api::Node>()) {
      node_names.insert(node.metadata.name);
      topology_cluster.nodes.push_back(solver::TopologyNode{
          node.metadata.name, node.metadata.labels, node.spec.taints, false});
    }
    for (auto& pod : cluster_.List<api::Pod>()) {
      if (api::IsActive(pod) && node_names.count(pod.spec.node_name)) bound.push_back(std::move(pod));
    }
    for (const auto& pod : bound) topology_cluster.bound_pods.push_back(&pod);
    std::vector<const api::Pod*> pending_pods;
    for (const auto& entry : queue) pending_pods.push_back(&entry.second);
    auto created = solver::Topology::Create(topology_cluster, solver::BuildDomainGroups({}),
                                            pending_pods);
    if (created.ok()) topology = std::move(created).value();
  }

  std::set<std::string> failed_templates;
  for (auto& [nominee, pod] : queue) {
    const bool constrained = topology && topology->MayConstrain(pod);
    const scheduling::Requirements pod_requirements =
        constrained ? scheduling::Requirements::FromPodStrict(pod) : scheduling::Requirements();
    std::string tkey = TemplateKey(pod);
    bool skip = !nominee && !tkey.empty() && !constrained && failed_templates.count(tkey);
    std::optional<size_t> chosen;
    if (!skip && !candidates.empty()) {
      const api::ResourceList& requests = RequestsOf(pod);
      scheduling::RequiredNodeAffinity affinity(pod);
      // `pod` is a structured binding, which clang before 16 cannot capture implicitly.
      auto fits = [&, &pod = pod](const Candidate& c) {
        if (scheduling::FindUntoleratedTaint(pod.spec.tolerations, c.node.spec.taints,
                                             scheduling::kSchedulingEffects)) {
          return false;
        }
        if (!affinity.Matches(c.node)) return false;
        if (!api::ResourceList::Sum(c.used, requests).Fits(c.node.status.allocatable)) return false;
        if (!constrained) return true;
        scheduling::Requirements node_requirements = NodeRequirements(c.node);
        auto narrowed = topology->TryAddRequirements(pod, c.node.spec.taints, pod_requirements,
                                                     node_requirements);
        return narrowed && node_requirements.IsCompatible(*narrowed);
      };
      if (nominee && fits(candidates[*nominee])) {
        chosen = nominee;
      } else {
        double best = 0;
        for (size_t i = 0; i < candidates.size(); ++i) {
          if (!fits(candidates[i])) continue;
          double score = FreeShare(candidates[i].node.status.allocatable,
                                   api::ResourceList::Sum(candidates[i].used, requests));
          if (!chosen || score > best) {  // candidates are in name order: ties keep the first
            chosen = i;
            best = score;
          }
        }
      }
    }
    std::string key = pod.metadata.Key();
    if (!chosen) {
      if (!tkey.empty() && !nominee && !constrained) failed_templates.insert(tkey);
      bool marked = false;
      for (const auto& c : pod.status.conditions) {
        marked = marked || (c.type == "PodScheduled" && c.status == "False");
      }
      if (!marked) {
        pod.status.conditions.push_back(api::Condition{"PodScheduled", "False", "Unschedulable",
                                                       "no node has room for the pod", {}});
        (void)cluster_.Update(pod);
      }
      continue;
    }
    Candidate& c = candidates[*chosen];
    if (!cluster_.Bind(pod.metadata.namespace_, pod.metadata.name, c.node.metadata.name).ok()) {
      continue;
    }
    c.used.Add(RequestsOf(pod));
    if (topology && topology->Counts(pod)) {
      topology->Record(pod, c.node.spec.taints, NodeRequirements(c.node));
    }
    nominated_.erase(key);
    recorder_.Record({runtime::LogLevel::kInfo, kLogger,
                      "Bound pod " + key + " to node " + c.node.metadata.name, "PodBound",
                      {{"pod", key}, {"node", c.node.metadata.name}}});
  }
}

}  // namespace nodesmith::sim
