#include "solver/topology.h"

#include <algorithm>
#include <limits>
#include <string_view>
#include <utility>

#include "scheduling/label_selector.h"
#include "scheduling/well_known_labels.h"

namespace nodesmith::solver {
namespace {

constexpr const char* kNamespaceNameLabel = "kubernetes.io/metadata.name";

// Orders CountedPods keys by namespace, then by the labels themselves (not their address).
struct CountedKeyLess {
  bool operator()(const std::pair<std::string_view, const api::Labels*>& a,
                  const std::pair<std::string_view, const api::Labels*>& b) const {
    if (a.first != b.first) return a.first < b.first;
    return *a.second < *b.second;
  }
};

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

// Adds `value` to the sorted, duplicate-free `v`.
void InsertSorted(std::vector<size_t>& v, size_t value) {
  auto it = std::lower_bound(v.begin(), v.end(), value);
  if (it == v.end() || *it != value) v.insert(it, value);
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
  std::set<std::string> excluded;  // their identities; only needed when pods are bound
  if (!cluster.bound_pods.empty()) {
    for (const api::Pod* p : pending) excluded.insert(PodIdentity(*p));
  }
  t->node_requirements_.resize(t->nodes_.size());
  std::vector<std::pair<const api::Pod*, size_t>> counted;  // pod, nodes_ index
  std::map<std::pair<std::string_view, const api::Labels*>, size_t, CountedKeyLess> alike;
  for (const api::Pod* p : cluster.bound_pods) {
    if (IgnoredForTopology(*p) || excluded.count(PodIdentity(*p)) > 0) continue;
    auto node = t->node_index_.find(p->spec.node_name);
    if (node == t->node_index_.end()) continue;  // leaked on a deleted node
    counted.emplace_back(p, node->second);
    auto [it, added] =
        alike.try_emplace({p->metadata.namespace_, &p->metadata.labels}, t->counted_.size());
    if (added) t->counted_.push_back({p->metadata.namespace_, p->metadata.labels, {}});
    t->counted_[it->second].nodes.push_back(node->second);
  }
  // Every namespace a pod lives in exists, even if the input does not list it.
  for (const auto& c : t->counted_) t->namespace_labels_.try_emplace(c.namespace_);
  for (const api::Pod* p : pending) t->namespace_labels_.try_emplace(p->metadata.namespace_);
  for (auto& [name, labels] : t->namespace_labels_) labels[kNamespaceNameLabel] = name;

  for (const auto& [p, node] : counted) {
    if (!HasRequiredAntiAffinity(*p)) continue;
    NS_RETURN_IF_ERROR(t->AddInverseAntiAffinity(*p, &t->nodes_[node]).WithPrefix(
        "tracking existing pod anti-affinity of " + p->metadata.Key()));
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
  position_.emplace(g, groups.size());
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
    std::optional<api::LabelSelector> selector = MergedSelector(
        term.label_selector, pod.metadata.labels, term.match_label_keys, term.mismatch_label_keys);
    // Built only when no group has this constraint yet.
    const std::string constraint = TopologyGroup::ConstraintKey(
        TopologyType::kPodAntiAffinity, term.topology_key, *namespaces, selector,
        std::numeric_limits<int>::max(), std::nullopt, TopologyNodeFilter());
    TopologyGroup* tg = nullptr;
    if (auto it = inverse_index_.find(constraint); it != inverse_index_.end()) {
      tg = it->second;
    } else {
      tg = Intern(inverse_groups_, inverse_index_,
                  std::make_unique<TopologyGroup>(
                      TopologyType::kPodAntiAffinity, term.topology_key, pod, std::move(*namespaces),
                      std::move(selector), std::numeric_limits<int>::max(), std::nullopt,
                      TopologyNodeFilter(), DomainsFor(term.topology_key)),
                  /*count_existing=*/false);
    }
    if (node != nullptr) {
      auto it = node->labels.find(tg->key());
      if (it != node->labels.end()) {
        tg->Record(it->second);
      } else if (tg->key() == scheduling::kLabelHostname) {
        tg->Record(node->name);
      }
    }
    last_owned_pod_ = nullptr;  // owned_ may gain an entry
    InsertSorted(owned_[PodIdentity(pod)].inverse, position_.at(tg));
  }
  return core::Status::Ok();
}

core::Status Topology::Update(const api::Pod& pod) {
  const std::string id = PodIdentity(pod);
  last_owned_pod_ = nullptr;  // owned_ may gain an entry
  // The groups it owns are derived afresh below (its constraints may have been relaxed).
  if (auto it = owned_.find(id); it != owned_.end()) {
    it->second.groups.clear();
  }

  if (HasRequiredAntiAffinity(pod)) {
    NS_RETURN_IF_ERROR(
        AddInverseAntiAffinity(pod, nullptr).WithPrefix("updating inverse anti-affinities"));
  }

  // The pod's constraints, all derived before any joins a group (a failure leaves none).
  struct Wanted {
    TopologyType type;
    std::string key;
    std::set<std::string> namespaces;
    std::optional<api::LabelSelector> selector;
    int max_skew;
    std::optional<int> min_domains;
    TopologyNodeFilter filter;
  };
  std::vector<Wanted> wanted;
  for (const auto& tsc : pod.spec.topology_spread_constraints) {
    const bool honor_taints = tsc.node_taints_policy == "Honor";
    const bool honor_affinity = tsc.node_affinity_policy != "Ignore";
    wanted.push_back(Wanted{
        TopologyType::kSpread, tsc.topology_key, std::set<std::string>{pod.metadata.namespace_},
        MergedSelector(tsc.label_selector, pod.metadata.labels, tsc.match_label_keys, {}),
        tsc.max_skew, tsc.min_domains, TopologyNodeFilter(pod, honor_taints, honor_affinity)});
  }
  auto add_terms = [&](TopologyType type, const api::PodAffinity& affinity) -> core::Status {
    std::vector<const api::PodAffinityTerm*> terms;
    for (const auto& term : affinity.required) terms.push_back(&term);
    for (const auto& weighted : affinity.preferred) terms.push_back(&weighted.term);
    for (const api::PodAffinityTerm* term : terms) {
      auto namespaces = NamespacesFor(pod, *term);
      if (!namespaces.ok()) return namespaces.status().WithPrefix("updating affinities");
      wanted.push_back(Wanted{type, term->topology_key, std::move(*namespaces),
                              MergedSelector(term->label_selector, pod.metadata.labels,
                                             term->match_label_keys, term->mismatch_label_keys),
                              std::numeric_limits<int>::max(), std::nullopt, TopologyNodeFilter()});
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

  // Each joins the group with its constraint key; a group is built only for a key not seen
  // yet (a Deployment's replicas mostly find theirs).
  for (Wanted& w : wanted) {
    const std::string constraint = TopologyGroup::ConstraintKey(
        w.type, w.key, w.namespaces, w.selector, w.max_skew, w.min_domains, w.filter);
    TopologyGroup* g = nullptr;
    if (auto it = group_index_.find(constraint); it != group_index_.end()) {
      g = it->second;
    } else {
      g = Intern(groups_, group_index_,
                 std::make_unique<TopologyGroup>(w.type, w.key, pod, std::move(w.namespaces),
                                                 std::move(w.selector), w.max_skew, w.min_domains,
                                                 std::move(w.filter), DomainsFor(w.key)),
                 /*count_existing=*/true);
    }
    InsertSorted(owned_[id].groups, position_.at(g));
  }
  return core::Status::Ok();
}

void Topology::CountExisting(TopologyGroup& group) const {
  // Domains of existing nodes the constraint considers, even if no selected pod runs there yet.
  for (size_t n = 0; n < nodes_.size(); ++n) {
    const TopologyNode& node = nodes_[n];
    if (node.in_flight) continue;
    auto it = node.labels.find(group.key());
    if (it == node.labels.end()) continue;
    if (!group.filter().Matches(node.taints, NodeRequirements(n))) continue;
    group.Register(it->second);
  }
  for (const CountedPods& pods : counted_) {
    if (!group.Selects(pods.namespace_, pods.labels)) continue;
    for (size_t n : pods.nodes) {
      const TopologyNode& node = nodes_[n];
      const std::string* domain;
      auto it = node.labels.find(group.key());
      if (it != node.labels.end()) {
        domain = &it->second;
      } else if (group.key() == scheduling::kLabelHostname) {
        // The kubelet may not have labelled the node yet; its name stands in for the hostname
        // so the pod still counts somewhere (self-affinity needs that).
        domain = &node.name;
      } else {
        continue;  // nodes without the key are not part of the topology
      }
      if (!group.filter().Matches(node.taints, NodeRequirements(n))) continue;
      group.Record(*domain);
    }
  }
}

const scheduling::Requirements& Topology::NodeRequirements(size_t i) const {
  std::optional<scheduling::Requirements>& r = node_requirements_[i];
  if (!r) r = scheduling::Requirements::FromLabels(nodes_[i].labels);
  return *r;
}

const Topology::Owned* Topology::OwnedBy(const api::Pod& pod) const {
  // The scheduler asks about one pod for many candidates in a row: remember the last answer
  // (map nodes are stable, and an entry's contents are updated in place).
  if (last_owned_pod_ == &pod && last_owned_uid_ == pod.metadata.uid && !pod.metadata.uid.empty()) {
    return last_owned_;
  }
  // A uid is the identity itself: look it up without building a string.
  auto it = pod.metadata.uid.empty() ? owned_.find(PodIdentity(pod))
                                     : owned_.find(std::string_view(pod.metadata.uid));
  const Owned* owned = it == owned_.end() ? nullptr : &it->second;
  if (!pod.metadata.uid.empty()) {
    last_owned_pod_ = &pod;
    last_owned_uid_ = pod.metadata.uid;
    last_owned_ = owned;
  }
  return owned;
}

bool Topology::Narrow(const api::Pod& pod, const std::vector<api::Taint>& taints,
                      const scheduling::Requirements& pod_requirements,
                      const scheduling::Requirements& node_requirements,
                      scheduling::Requirements& out, const TopologyGroup** failed) const {
  // Every group answers from node_requirements as given, so the answers are collected first
  // and applied to a copy only when all of them leave a domain: most calls fail, and copy
  // nothing.
  std::vector<scheduling::Requirement>& narrowing = narrowing_;
  narrowing.clear();
  auto apply = [&](const TopologyGroup& group) {
    scheduling::Requirement domains = group.Get(pod, pod_requirements.Get(group.key()),
                                                node_requirements.Get(group.key()));
    if (domains.Len() == 0) {
      *failed = &group;
      return false;
    }
    narrowing.push_back(std::move(domains));
    return true;
  };
  if (const Owned* owned = OwnedBy(pod)) {
    for (size_t i : owned->groups) {
      if (!apply(*groups_[i])) return false;
    }
  }
  // Other pods' required anti-affinity that selects this pod keeps it out of their domains.
  for (const auto& g : inverse_groups_) {
    if (g->Counts(pod, taints, node_requirements) && !apply(*g)) return false;
  }
  out = node_requirements;
  for (const scheduling::Requirement& r : narrowing) out.Add(r);
  return true;
}

core::Result<scheduling::Requirements> Topology::AddRequirements(
    const api::Pod& pod, const std::vector<api::Taint>& taints,
    const scheduling::Requirements& pod_requirements,
    const scheduling::Requirements& node_requirements) const {
  scheduling::Requirements requirements;
  const TopologyGroup* failed = nullptr;
  if (Narrow(pod, taints, pod_requirements, node_requirements, requirements, &failed)) {
    return requirements;
  }
  const TopologyGroup& group = *failed;
  return core::Status(
      core::StatusCode::kFailedPrecondition,
      std::string("unsatisfiable topology constraint for ") + TopologyTypeName(group.type()) +
          ", key=" + group.key() + " (counts = " + group.CountsString() + ", podDomains = " +
          pod_requirements.Get(group.key()).String() +
          ", nodeDomains = " + node_requirements.Get(group.key()).String() + ")");
}

std::optional<scheduling::Requirements> Topology::TryAddRequirements(
    const api::Pod& pod, const std::vector<api::Taint>& taints,
    const scheduling::Requirements& pod_requirements,
    const scheduling::Requirements& node_requirements) const {
  std::optional<scheduling::Requirements> out(std::in_place);
  const TopologyGroup* failed = nullptr;
  if (!Narrow(pod, taints, pod_requirements, node_requirements, *out, &failed)) return std::nullopt;
  return out;
}

bool Topology::HostExcluded(const api::Pod& pod, const std::string& host) const {
  const Owned* owned = OwnedBy(pod);
  if (owned == nullptr) return false;
  for (size_t i : owned->groups) {
    const TopologyGroup& g = *groups_[i];
    if (g.key() != scheduling::kLabelHostname) continue;
    auto it = g.counts().find(host);
    const int count = it == g.counts().end() ? 0 : it->second;
    // As TopologyGroup::Get on a node whose hostname domain is {host} (or narrower).
    if (g.type() == TopologyType::kPodAntiAffinity && count > 0) return true;
    if (g.type() == TopologyType::kSpread &&
        static_cast<int64_t>(count) + (g.Selects(pod) ? 1 : 0) > g.max_skew()) {
      return true;
    }
  }
  return false;
}

std::vector<std::string> Topology::ConstraintKeys(const api::Pod& pod) const {
  std::vector<std::string> keys;
  if (const Owned* owned = OwnedBy(pod)) {
    for (size_t i : owned->groups) keys.push_back(groups_[i]->key());
  }
  // Inverse groups carry the default node filter (AddInverseAntiAffinity), which matches every
  // node, so whether they apply depends on the pod alone.
  for (const auto& g : inverse_groups_) {
    if (g->Selects(pod)) keys.push_back(g->key());
  }
  std::sort(keys.begin(), keys.end());
  keys.erase(std::unique(keys.begin(), keys.end()), keys.end());
  return keys;
}

std::vector<std::string> Topology::InvolvedKeys(const api::Pod& pod) const {
  std::vector<std::string> keys = ConstraintKeys(pod);
  for (const auto& g : groups_) {
    if (g->Selects(pod)) keys.push_back(g->key());
  }
  if (const Owned* owned = OwnedBy(pod)) {
    for (size_t i : owned->inverse) keys.push_back(inverse_groups_[i]->key());
  }
  std::sort(keys.begin(), keys.end());
  keys.erase(std::unique(keys.begin(), keys.end()), keys.end());
  return keys;
}

std::vector<int64_t> Topology::HostExclusionKey(const api::Pod& pod) const {
  std::vector<int64_t> key;
  const Owned* owned = OwnedBy(pod);
  if (owned == nullptr) return key;
  for (size_t i : owned->groups) {
    const TopologyGroup& g = *groups_[i];
    if (g.key() != scheduling::kLabelHostname) continue;
    if (g.type() == TopologyType::kPodAntiAffinity) key.push_back(static_cast<int64_t>(i) * 2);
    if (g.type() == TopologyType::kSpread) {
      key.push_back(static_cast<int64_t>(i) * 2 + (g.Selects(pod) ? 1 : 0));
    }
  }
  return key;
}

std::vector<size_t> Topology::SelectingGroups(const api::Pod& pod) const {
  std::vector<size_t> out;
  for (size_t i = 0; i < groups_.size(); ++i) {
    if (groups_[i]->Selects(pod)) out.push_back(i);
  }
  return out;
}

void Topology::Record(const api::Pod& pod, const std::vector<api::Taint>& taints,
                      const scheduling::Requirements& requirements) {
  Record(pod, taints, requirements, SelectingGroups(pod));
}

void Topology::Record(const api::Pod& pod, const std::vector<api::Taint>& taints,
                      const scheduling::Requirements& requirements,
                      const std::vector<size_t>& selecting) {
  // In groups_ order, as TopologyGroup::Counts over every group would take them.
  for (size_t i : selecting) {
    TopologyGroup* g = groups_[i].get();
    if (!g->filter().Matches(taints, requirements)) continue;
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
  const Owned* owned = OwnedBy(pod);
  if (owned == nullptr) return;
  for (size_t i : owned->inverse) {
    TopologyGroup* g = inverse_groups_[i].get();
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
  const Owned* owned = OwnedBy(pod);
  if (owned != nullptr && !owned->groups.empty()) return true;
  for (const auto& g : inverse_groups_) {
    if (g->Selects(pod)) return true;
  }
  return false;
}

bool Topology::Counts(const api::Pod& pod) const {
  for (const auto& g : groups_) {
    if (g->Selects(pod)) return true;
  }
  const Owned* owned = OwnedBy(pod);
  return owned != nullptr && !owned->inverse.empty();
}

std::vector<const TopologyGroup*> Topology::GroupsOwnedBy(const api::Pod& pod) const {
  std::vector<const TopologyGroup*> out;
  if (const Owned* owned = OwnedBy(pod)) {
    for (size_t i : owned->groups) out.push_back(groups_[i].get());
  }
  return out;
}

}  // namespace nodesmith::solver
