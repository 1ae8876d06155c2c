#include "solver/topology.h"

#include <algorithm>
#include <limits>
#include <utility>

#include "scheduling/label_selector.h"
#include "scheduling/well_known_labels.h"

namespace nodesmith::solver {
namespace {

constexpr const char* kNamespaceNameLabel = "kubernetes.io/metadata.name";

bool HasRequiredAntiAffinity(const api::Pod& pod) {
  return pod.spec.affinity && pod.spec.affinity->pod_anti_affinity &&
         !pod.spec.affinity->pod_anti_affinity->required.empty();
}

// The term's label selector with matchLabelKeys (key In [the pod's value]) and mismatchLabelKeys
// (key NotIn [the pod's value]) merged in, as the API server does when it admits the pod.
std::optional<api::LabelSelector> MergedSelector(const std::optional<api::LabelSelector>& selector,
                                                 const api::Labels& pod_labels,
                                                 const std::vector<std::string>& match_keys,
                                                 const std::vector<std::string>& mismatch_keys) {
  // Validation forbids the keys without a selector; an absent selector still selects nothing.
  if (!selector) return selector;
  api::LabelSelector merged = *selector;
  for (const auto& key : match_keys) {
    auto it = pod_labels.find(key);
    if (it != pod_labels.end()) merged.match_expressions.push_back({key, "In", {it->second}});
  }
  for (const auto& key : mismatch_keys) {
    auto it = pod_labels.find(key);
    if (it != pod_labels.end()) merged.match_expressions.push_back({key, "NotIn", {it->second}});
  }
  return merged;
}

}  // namespace

std::string PodIdentity(const api::Pod& pod) {
  if (!pod.metadata.uid.empty()) return pod.metadata.uid;
  return pod.metadata.namespace_ + "/" + pod.metadata.name;
}

bool IgnoredForTopology(const api::Pod& pod) {
  return pod.spec.node_name.empty() || pod.status.phase == "Succeeded" ||
         pod.status.phase == "Failed" || pod.metadata.deletion_timestamp.has_value();
}

Topology::Topology(DomainGroups domains, std::map<std::string, api::Labels> namespace_labels)
    : domains_(std::move(domains)), namespace_labels_(std::move(namespace_labels)) {}

core::Result<std::unique_ptr<Topology>> Topology::Create(
    const TopologyCluster& cluster, DomainGroups domains,
    const std::vector<const api::Pod*>& pending) {
  std::unique_ptr<Topology> t(new Topology(std::move(domains), cluster.namespace_labels));
  t->nodes_ = cluster.nodes;
  for (size_t i = 0; i < t->nodes_.size(); ++i) t->node_index_[t->nodes_[i].name] = i;
  // The pods being scheduled are not counted where they are now: they are moving.
  for (const api::Pod* p : pending) t->excluded_.insert(PodIdentity(*p));
  for (const api::Pod* p : cluster.bound_pods) {
    if (IgnoredForTopology(*p) || t->excluded_.count(PodIdentity(*p)) > 0) continue;
    if (t->node_index_.count(p->spec.node_name) == 0) continue;  // leaked on a deleted node
    t->bound_pods_.push_back(*p);
  }
  // Every namespace a pod lives in exists, even if the input does not list it.
  for (const auto& p : t->bound_pods_) t->namespace_labels_.try_emplace(p.metadata.namespace_);
  for (const api::Pod* p : pending) t->namespace_labels_.try_emplace(p->metadata.namespace_);
  for (auto& [name, labels] : t->namespace_labels_) labels[kNamespaceNameLabel] = name;

  for (const api::Pod& p : t->bound_pods_) {
    if (!HasRequiredAntiAffinity(p)) continue;
    const TopologyNode& node = t->nodes_[t->node_index_.at(p.spec.node_name)];
    NS_RETURN_IF_ERROR(t->AddInverseAntiAffinity(p, &node).WithPrefix(
        "tracking existing pod anti-affinity of " + p.metadata.Key()));
  }
  for (const api::Pod* p : pending) {
    NS_RETURN_IF_ERROR(t->Update(*p).WithPrefix("pod " + p->metadata.Key()));
  }
  return t;
}

core::Result<std::set<std::string>> Topology::NamespacesFor(
    const api::Pod& pod, const api::PodAffinityTerm& term) const {
  if (term.namespaces.empty() && !term.namespace_selector) {
    return std::set<std::string>{pod.metadata.namespace_};
  }
  std::set<std::string> out(term.namespaces.begin(), term.namespaces.end());
  if (term.namespace_selector) {
    auto selector = scheduling::Selector::FromApi(term.namespace_selector);
    if (!selector.ok()) return selector.status().WithPrefix("parsing selector");
    for (const auto& [name, labels] : namespace_labels_) {
      if (selector->Matches(labels)) out.insert(name);
    }
  }
  return out;
}

TopologyGroup* Topology::Intern(std::vector<std::unique_ptr<TopologyGroup>>& groups,
                                std::map<std::string, TopologyGroup*>& index,
                                std::unique_ptr<TopologyGroup> group, bool count_existing) {
  auto it = index.find(group->constraint_key());
  if (it != index.end()) return it->second;
  // Count the cluster only once per distinct constraint.
  if (count_existing) CountExisting(*group);
  TopologyGroup* g = group.get();
  index.emplace(g->constraint_key(), g);
  groups.push_back(std::move(group));
  return g;
}

const TopologyDomainGroup* Topology::DomainsFor(const std::string& key) const {
  auto it = domains_.find(key);
  return it == domains_.end() ? nullptr : &it->second;
}

core::Status Topology::AddInverseAntiAffinity(const api::Pod& pod, const TopologyNode* node) {
  // Only required terms: preferred anti-affinity of other pods is not enforced, as upstream.
  for (const auto& term : pod.spec.affinity->pod_anti_affinity->required) {
    auto namespaces = NamespacesFor(pod, term);
    if (!namespaces.ok()) return namespaces.status();
    auto group = std::make_unique<TopologyGroup>(
        TopologyType::kPodAntiAffinity, term.topology_key, pod, std::move(*namespaces),
        MergedSelector(term.label_selector, pod.metadata.labels, term.match_label_keys,
                       term.mismatch_label_keys),
        std::numeric_limits<int>::max(), std::nullopt, TopologyNodeFilter(),
        DomainsFor(term.topology_key));
    TopologyGroup* tg = Intern(inverse_groups_, inverse_index_, std::move(group),
                               /*count_existing=*/false);
    if (node != nullptr) {
      auto it = node->labels.find(tg->key());
      if (it != node->labels.end()) {
        tg->Record(it->second);
      } else if (tg->key() == scheduling::kLabelHostname) {
        tg->Record(node->name);
      }
    }
    tg->AddOwner(PodIdentity(pod));
  }
  return core::Status::Ok();
}

core::Status Topology::Update(const api::Pod& pod) {
  const std::string id = PodIdentity(pod);
  for (auto& g : groups_) g->RemoveOwner(id);

  if (HasRequiredAntiAffinity(pod)) {
    NS_RETURN_IF_ERROR(
        AddInverseAntiAffinity(pod, nullptr).WithPrefix("updating inverse anti-affinities"));
  }

  std::vector<std::unique_ptr<TopologyGroup>> wanted;
  for (const auto& tsc : pod.spec.topology_spread_constraints) {
    const bool honor_taints = tsc.node_taints_policy == "Honor";
    const bool honor_affinity = tsc.node_affinity_policy != "Ignore";
    wanted.push_back(std::make_unique<TopologyGroup>(
        TopologyType::kSpread, tsc.topology_key, pod,
        std::set<std::string>{pod.metadata.namespace_},
        MergedSelector(tsc.label_selector, pod.metadata.labels, tsc.match_label_keys, {}),
        tsc.max_skew, tsc.min_domains, TopologyNodeFilter(pod, honor_taints, honor_affinity),
        DomainsFor(tsc.topology_key)));
  }
  auto add_terms = [&](TopologyType type, const api::PodAffinity& affinity) -> core::Status {
    std::vector<const api::PodAffinityTerm*> terms;
    for (const auto& term : affinity.required) terms.push_back(&term);
    for (const auto& weighted : affinity.preferred) terms.push_back(&weighted.term);
    for (const api::PodAffinityTerm* term : terms) {
      auto namespaces = NamespacesFor(pod, *term);
      if (!namespaces.ok()) return namespaces.status().WithPrefix("updating affinities");
      wanted.push_back(std::make_unique<TopologyGroup>(
          type, term->topology_key, pod, std::move(*namespaces),
          MergedSelector(term->label_selector, pod.metadata.labels, term->match_label_keys,
                         term->mismatch_label_keys),
          std::numeric_limits<int>::max(), std::nullopt, TopologyNodeFilter(),
          DomainsFor(term->topology_key)));
    }
    return core::Status::Ok();
  };
  if (pod.spec.affinity && pod.spec.affinity->pod_affinity) {
    NS_RETURN_IF_ERROR(add_terms(TopologyType::kPodAffinity, *pod.spec.affinity->pod_affinity));
  }
  if (pod.spec.affinity && pod.spec.affinity->pod_anti_affinity) {
    NS_RETURN_IF_ERROR(
        add_terms(TopologyType::kPodAntiAffinity, *pod.spec.affinity->pod_anti_affinity));
  }

  for (auto& group : wanted) {
    Intern(groups_, group_index_, std::move(group), /*count_existing=*/true)->AddOwner(id);
  }
  return core::Status::Ok();
}

void Topology::CountExisting(TopologyGroup& group) const {
  // Domains of existing nodes the constraint considers, even if no selected pod runs there yet.
  for (const TopologyNode& node : nodes_) {
    if (node.in_flight) continue;
    auto it = node.labels.find(group.key());
    if (it == node.labels.end()) continue;
    if (!group.filter().Matches(node.taints, scheduling::Requirements::FromLabels(node.labels))) {
      continue;
    }
    group.Register(it->second);
  }
  for (const api::Pod& p : bound_pods_) {
    if (!group.Selects(p)) continue;
    const TopologyNode& node = nodes_[node_index_.at(p.spec.node_name)];
    std::string domain;
    auto it = node.labels.find(group.key());
    if (it != node.labels.end()) {
      domain = it->second;
    } else if (group.key() == scheduling::kLabelHostname) {
      // The kubelet may not have labelled the node yet; its name stands in for the hostname so
      // the pod still counts somewhere (self-affinity needs that).
      domain = node.name;
    } else {
      continue;  // nodes without the key are not part of the topology
    }
    if (!group.filter().Matches(node.taints, scheduling::Requirements::FromLabels(node.labels))) {
      continue;
    }
    group.Record(domain);
  }
}

core::Result<scheduling::Requirements> Topology::AddRequirements(
    const api::Pod& pod, const std::vector<api::Taint>& taints,
    const scheduling::Requirements& pod_requirements,
    const scheduling::Requirements& node_requirements) const {
  const std::string id = PodIdentity(pod);
  scheduling::Requirements requirements = node_requirements;
  auto apply = [&](const TopologyGroup& group) -> core::Status {
    scheduling::Requirement pod_domains = pod_requirements.Get(group.key());
    scheduling::Requirement node_domains = node_requirements.Get(group.key());
    scheduling::Requirement domains = group.Get(pod, pod_domains, node_domains);
    if (domains.Len() == 0) {
      return core::Status(
          core::StatusCode::kFailedPrecondition,
          std::string("unsatisfiable topology constraint for ") + TopologyTypeName(group.type()) +
              ", key=" + group.key() + " (counts = " + group.CountsString() + ", podDomains = " +
              pod_domains.String() + ", nodeDomains = " + node_domains.String() + ")");
    }
    requirements.Add(domains);
    return core::Status::Ok();
  };
  for (const auto& g : groups_) {
    if (g->IsOwnedBy(id)) NS_RETURN_IF_ERROR(apply(*g));
  }
  // Other pods' required anti-affinity that selects this pod keeps it out of their domains.
  for (const auto& g : inverse_groups_) {
    if (g->Counts(pod, taints, node_requirements)) NS_RETURN_IF_ERROR(apply(*g));
  }
  return requirements;
}

void Topology::Record(const api::Pod& pod, const std::vector<api::Taint>& taints,
                      const scheduling::Requirements& requirements) {
  for (auto& g : groups_) {
    if (!g->Counts(pod, taints, requirements)) continue;
    scheduling::Requirement domains = requirements.Get(g->key());
    if (g->type() == TopologyType::kPodAntiAffinity) {
      // Block every domain the pod may still land in.
      g->Record(domains.complement() ? std::vector<std::string>{} : domains.Values());
    } else if (!domains.complement() && domains.Values().size() == 1) {
      // Spread and affinity can only count a domain that is known for sure.
      g->Record(domains.Values().front());
    }
  }
  // The pod's own required anti-affinity: remember where it may be, even if not yet decided.
  const std::string id = PodIdentity(pod);
  for (auto& g : inverse_groups_) {
    if (!g->IsOwnedBy(id)) continue;
    scheduling::Requirement domains = requirements.Get(g->key());
    if (!domains.complement()) g->Record(domains.Values());
  }
}

void Topology::Register(const std::string& topology_key, const std::string& domain) {
  for (auto& g : groups_) {
    if (g->key() == topology_key) g->Register(domain);
  }
  for (auto& g : inverse_groups_) {
    if (g->key() == topology_key) g->Register(domain);
  }
}

bool Topology::MayConstrain(const api::Pod& pod) const {
  const std::string id = PodIdentity(pod);
  for (const auto& g : groups_) {
    if (g->IsOwnedBy(id)) return true;
  }
  for (const auto& g : inverse_groups_) {
    if (g->Selects(pod)) return true;
  }
  return false;
}

bool Topology::Counts(const api::Pod& pod) const {
  for (const auto& g : groups_) {
    if (g->Selects(pod)) return true;
  }
  const std::string id = PodIdentity(pod);
  for (const auto& g : inverse_groups_) {
    if (g->IsOwnedBy(id)) return true;
  }
  return false;
}

std::vector<const TopologyGroup*> Topology::GroupsOwnedBy(const api::Pod& pod) const {
  std::vector<const TopologyGroup*> out;
  const std::string id = PodIdentity(pod);
  for (const auto& g : groups_) {
    if (g->IsOwnedBy(id)) out.push_back(g.get());
  }
  return out;
}

}  // namespace nodesmith::solver
