#include "solver/topology_group.h"

#include <algorithm>
#include <cstdint>
#include <limits>
#include <utility>

#include "scheduling/well_known_labels.h"

namespace nodesmith::solver {
namespace {

using scheduling::Operator;
using scheduling::Requirement;

Requirement Options(const std::string& key, std::vector<std::string> values) {
  if (values.empty()) return Requirement::DoesNotExist(key);
  return Requirement::In(key, std::move(values));
}

// A canonical text of a selector: match labels in key order, expressions sorted (they are ANDed,
// so their order does not change the meaning), values sorted.
std::string SelectorFingerprint(const std::optional<api::LabelSelector>& selector) {
  if (!selector) return "<none>";
  std::string out = "{";
  for (const auto& [k, v] : selector->match_labels) out += k + "=" + v + ",";
  std::vector<std::string> exprs;
  for (const auto& e : selector->match_expressions) {
    std::vector<std::string> values = e.values;
    std::sort(values.begin(), values.end());
    std::string s = e.key + " " + e.op + " [";
    for (const auto& v : values) s += v + ",";
    exprs.push_back(s + "]");
  }
  std::sort(exprs.begin(), exprs.end());
  exprs.erase(std::unique(exprs.begin(), exprs.end()), exprs.end());
  for (const auto& e : exprs) out += e + ";";
  return out + "}";
}

}  // namespace

const char* TopologyTypeName(TopologyType type) {
  switch (type) {
    case TopologyType::kSpread:
      return "topology spread";
    case TopologyType::kPodAffinity:
      return "pod affinity";
    case TopologyType::kPodAntiAffinity:
      return "pod anti-affinity";
  }
  return "";
}

TopologyGroup::TopologyGroup(TopologyType type, std::string key, const api::Pod& pod,
                             std::set<std::string> namespaces,
                             std::optional<api::LabelSelector> selector, int max_skew,
                             std::optional<int> min_domains, TopologyNodeFilter filter,
                             const TopologyDomainGroup* domains)
    : type_(type),
      key_(std::move(key)),
      namespaces_(std::move(namespaces)),
      selector_(scheduling::Selector::Nothing()),
      max_skew_(max_skew),
      min_domains_(min_domains),
      filter_(std::move(filter)) {
  if (auto compiled = scheduling::Selector::FromApi(selector); compiled.ok()) {
    selector_ = std::move(*compiled);
  }
  constraint_key_ =
      ConstraintKey(type_, key_, namespaces_, selector, max_skew_, min_domains_, filter_);
  if (domains != nullptr) {
    domains->ForEachDomain(pod, filter_.honor_taints(),
                           [this](const std::string& domain) { counts_.emplace(domain, 0); });
  }
  empty_domains_ = static_cast<int>(counts_.size());
}

std::string TopologyGroup::ConstraintKey(TopologyType type, const std::string& key,
                                         const std::set<std::string>& namespaces,
                                         const std::optional<api::LabelSelector>& selector,
                                         int max_skew, std::optional<int> min_domains,
                                         const TopologyNodeFilter& filter) {
  std::string out = std::string(TopologyTypeName(type)) + "|" + key + "|ns:";
  for (const auto& ns : namespaces) out += ns + ",";
  out += "|sel:" + SelectorFingerprint(selector);
  out += "|skew:" + std::to_string(max_skew);
  out += "|min:" + (min_domains ? std::to_string(*min_domains) : std::string("-"));
  out += "|filter:" + filter.Fingerprint();
  return out;
}

scheduling::Requirement TopologyGroup::Get(const api::Pod& pod,
                                           const scheduling::Requirement& pod_domains,
                                           const scheduling::Requirement& node_domains) const {
  switch (type_) {
    case TopologyType::kSpread:
      return NextDomainSpread(pod, pod_domains, node_domains);
    case TopologyType::kPodAffinity:
      return NextDomainAffinity(pod, pod_domains, node_domains);
    case TopologyType::kPodAntiAffinity:
      return NextDomainAntiAffinity(pod_domains, node_domains);
  }
  return Requirement::DoesNotExist(key_);
}

void TopologyGroup::Record(const std::vector<std::string>& domains) {
  for (const auto& domain : domains) Record(domain);
}

void TopologyGroup::Record(const std::string& domain) {
  auto [it, inserted] = counts_.emplace(domain, 0);
  // A domain first seen here never counted as empty.
  if (!inserted && it->second == 0) --empty_domains_;
  ++it->second;
}

void TopologyGroup::Register(const std::string& domain) {
  if (counts_.emplace(domain, 0).second) ++empty_domains_;
}

bool TopologyGroup::Selects(const api::Pod& pod) const {
  return Selects(pod.metadata.namespace_, pod.metadata.labels);
}

bool TopologyGroup::Selects(const std::string& namespace_, const api::Labels& labels) const {
  return namespaces_.count(namespace_) > 0 && selector_.Matches(labels);
}

bool TopologyGroup::Counts(const api::Pod& pod, const std::vector<api::Taint>& taints,
                           const scheduling::Requirements& requirements) const {
  return Selects(pod) && filter_.Matches(taints, requirements);
}

std::string TopologyGroup::CountsString() const {
  constexpr size_t kMaxShown = 25;
  std::string out = "{";
  size_t shown = 0;
  for (const auto& [domain, count] : counts_) {
    if (shown == kMaxShown) break;
    if (shown > 0) out += ", ";
    out += domain + ": " + std::to_string(count);
    ++shown;
  }
  out += "}";
  if (counts_.size() > kMaxShown) {
    out += " and " + std::to_string(counts_.size() - kMaxShown) + " other(s)";
  }
  return out;
}

int TopologyGroup::DomainMinCount(const scheduling::Requirement& pod_domains) const {
  // A new node is always possible, so a hostname domain with zero pods always exists.
  if (key_ == scheduling::kLabelHostname) return 0;
  int min = std::numeric_limits<int>::max();
  int supported = 0;
  for (const auto& [domain, count] : counts_) {
    if (!pod_domains.Has(domain)) continue;
    ++supported;
    min = std::min(min, count);
  }
  // Fewer eligible domains than minDomains: kube-scheduler treats the global minimum as 0.
  if (min_domains_ && supported < *min_domains_) min = 0;
  return min;
}

scheduling::Requirement TopologyGroup::NextDomainSpread(
    const api::Pod& pod, const scheduling::Requirement& pod_domains,
    const scheduling::Requirement& node_domains) const {
  const int64_t self = Selects(pod) ? 1 : 0;

  // A new NodeClaim's hostname is not registered until it is added, and a new node can always
  // be made, so the global minimum is 0 and the node only has to stay within maxSkew.
  if (key_ == scheduling::kLabelHostname && node_domains.op() == Operator::kIn &&
      node_domains.Values().size() == 1) {
    const std::string& host = node_domains.Values().front();
    auto it = counts_.find(host);
    int64_t count = (it == counts_.end() ? 0 : it->second) + self;
    if (count <= max_skew_) return Requirement::In(key_, {host});
    return Requirement::DoesNotExist(key_);
  }

  const int64_t min = DomainMinCount(pod_domains);
  std::string min_domain;
  int64_t min_count = std::numeric_limits<int64_t>::max();
  auto consider = [&](const std::string& domain, int count) {
    // kube-scheduler: 'existing matching num' + 'if self-match (1 or 0)' - 'global min matching
    // num' <= 'maxSkew'. Ties go to the first domain by name.
    int64_t c = count + self;
    if (c - min <= max_skew_ && c < min_count) {
      min_domain = domain;
      min_count = c;
    }
  };
  if (node_domains.op() == Operator::kIn) {
    for (const auto& domain : node_domains.Values()) {  // sorted
      auto it = counts_.find(domain);
      if (it != counts_.end()) consider(domain, it->second);
    }
  } else {
    for (const auto& [domain, count] : counts_) {
      if (node_domains.Has(domain)) consider(domain, count);
    }
  }
  if (min_domain.empty()) return Requirement::DoesNotExist(key_);
  return Requirement::In(key_, {min_domain});
}

bool TopologyGroup::AnyCompatiblePodDomain(const scheduling::Requirement& pod_domains) const {
  for (const auto& [domain, count] : counts_) {
    if (count > 0 && pod_domains.Has(domain)) return true;
  }
  return false;
}

scheduling::Requirement TopologyGroup::NextDomainAffinity(
    const api::Pod& pod, const scheduling::Requirement& pod_domains,
    const scheduling::Requirement& node_domains) const {
  const bool all_empty = empty_domains_ == static_cast<int>(counts_.size());
  // A self-selecting pod may start the group somewhere when no selected pod exists yet, or when
  // none of the existing ones is in a domain it could join.
  auto may_bootstrap = [&] {
    return Selects(pod) && (all_empty || !AnyCompatiblePodDomain(pod_domains));
  };

  if (key_ == scheduling::kLabelHostname && node_domains.op() == Operator::kIn &&
      node_domains.Values().size() == 1) {
    const std::string& host = node_domains.Values().front();
    if (!pod_domains.Has(host)) return Requirement::DoesNotExist(key_);
    auto it = counts_.find(host);
    if (it != counts_.end() && it->second > 0) return Requirement::In(key_, {host});
    if (may_bootstrap()) return Requirement::In(key_, {host});
    return Requirement::DoesNotExist(key_);
  }

  std::vector<std::string> options;
  if (node_domains.op() == Operator::kIn) {
    for (const auto& domain : node_domains.Values()) {
      auto it = counts_.find(domain);
      if (it != counts_.end() && it->second > 0 && pod_domains.Has(domain)) {
        options.push_back(domain);
      }
    }
  } else {
    for (const auto& [domain, count] : counts_) {
      if (count > 0 && pod_domains.Has(domain) && node_domains.Has(domain)) {
        options.push_back(domain);
      }
    }
  }
  if (!options.empty()) return Options(key_, std::move(options));

  if (may_bootstrap()) {
    // Prefer a domain the candidate node already offers (an in-flight node keeps its zone);
    // upstream also adds the first domain the pod allows at all.
    Requirement both = pod_domains.Intersection(node_domains);
    for (const auto& [domain, count] : counts_) {
      if (both.Has(domain)) {
        options.push_back(domain);
        break;
      }
    }
    for (const auto& [domain, count] : counts_) {
      if (pod_domains.Has(domain)) {
        if (std::find(options.begin(), options.end(), domain) == options.end()) {
          options.push_back(domain);
        }
        break;
      }
    }
  }
  return Options(key_, std::move(options));
}

scheduling::Requirement TopologyGroup::NextDomainAntiAffinity(
    const scheduling::Requirement& pod_domains, const scheduling::Requirement& node_domains) const {
  if (key_ == scheduling::kLabelHostname && node_domains.op() == Operator::kIn &&
      node_domains.Values().size() == 1) {
    const std::string& host = node_domains.Values().front();
    auto it = counts_.find(host);
    if (it == counts_.end() || it->second == 0) return Requirement::In(key_, {host});
    return Requirement::DoesNotExist(key_);
  }
  // Only domains where none of the selected pods runs (or may run) are allowed.
  std::vector<std::string> options;
  if (empty_domains_ == 0) return Requirement::DoesNotExist(key_);
  for (const auto& [domain, count] : counts_) {
    if (count == 0 && node_domains.Has(domain) && pod_domains.Has(domain)) {
      options.push_back(domain);
    }
  }
  return Options(key_, std::move(options));
}

}  // namespace nodesmith::solver
