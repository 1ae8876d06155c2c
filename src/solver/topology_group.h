// TopologyGroup: one topology constraint shared by all the pods that declare it, with its
// per-domain pod counts (SELECT COUNT(*) FROM pods WHERE selected GROUP BY node.labels[key]), as
// Karpenter's topologygroup.go. Types: topology spread, pod affinity, pod anti-affinity.
//
// Domains are kept in a std::map, so wherever upstream picks "any" domain this picks the first by
// name: solves are reproducible. Not thread-safe.
#pragma once

#include <cstdint>
#include <map>
#include <optional>
#include <set>
#include <string>
#include <vector>

#include "api/pod.h"
#include "api/selector.h"
#include "scheduling/label_selector.h"
#include "scheduling/requirement.h"
#include "scheduling/requirements.h"
#include "solver/topology_domain_group.h"
#include "solver/topology_node_filter.h"

namespace nodesmith::solver {

enum class TopologyType { kSpread, kPodAffinity, kPodAntiAffinity };

// "topology spread", "pod affinity", "pod anti-affinity".
const char* TopologyTypeName(TopologyType type);

class TopologyGroup {
 public:
  // `selector` absent (nullopt) or invalid selects no pod. `pod` supplies the tolerations used to
  // pick the reachable domains when the node filter honours taints. Domains of `domains` become
  // known with count 0.
  TopologyGroup(TopologyType type, std::string key, const api::Pod& pod,
                std::set<std::string> namespaces, std::optional<api::LabelSelector> selector,
                int max_skew, std::optional<int> min_domains, TopologyNodeFilter filter,
                const TopologyDomainGroup* domains);

  TopologyType type() const { return type_; }
  const std::string& key() const { return key_; }
  int max_skew() const { return max_skew_; }
  const TopologyNodeFilter& filter() const { return filter_; }

  // The domains P may take for this constraint, given what P itself requires of the key
  // (pod_domains) and what the candidate node offers (node_domains). An empty (DoesNotExist)
  // requirement means the constraint cannot be met on that node.
  scheduling::Requirement Get(const api::Pod& pod, const scheduling::Requirement& pod_domains,
                              const scheduling::Requirement& node_domains) const;

  // Counts one more selected pod in each of `domains` (registering unknown ones).
  void Record(const std::vector<std::string>& domains);
  void Record(const std::string& domain);
  // Makes `domain` known with count 0 if it is not known yet.
  void Register(const std::string& domain);

  // True when `pod` is selected (namespace and label selector).
  bool Selects(const api::Pod& pod) const;
  // The same for any pod of `namespace_` with `labels`.
  bool Selects(const std::string& namespace_, const api::Labels& labels) const;
  // True when `pod` landing on a node with `taints`/`requirements` counts for this group.
  bool Counts(const api::Pod& pod, const std::vector<api::Taint>& taints,
              const scheduling::Requirements& requirements) const;

  // A canonical text of the constraint (type, key, namespaces, selector, skew, minDomains,
  // filter): equal constraints share one group, so a Deployment's 100 replicas count once.
  const std::string& constraint_key() const { return constraint_key_; }
  // The constraint_key() a group built from these arguments would have, without building it.
  static std::string ConstraintKey(TopologyType type, const std::string& key,
                                   const std::set<std::string>& namespaces,
                                   const std::optional<api::LabelSelector>& selector, int max_skew,
                                   std::optional<int> min_domains, const TopologyNodeFilter& filter);

  // Count per known domain.
  const std::map<std::string, int>& counts() const { return counts_; }
  // "zone-a: 1, zone-b: 0" (at most 25 domains), for error messages.
  std::string CountsString() const;

 private:
  scheduling::Requirement NextDomainSpread(const api::Pod& pod,
                                           const scheduling::Requirement& pod_domains,
                                           const scheduling::Requirement& node_domains) const;
  scheduling::Requirement NextDomainAffinity(const api::Pod& pod,
                                             const scheduling::Requirement& pod_domains,
                                             const scheduling::Requirement& node_domains) const;
  scheduling::Requirement NextDomainAntiAffinity(const scheduling::Requirement& pod_domains,
                                                 const scheduling::Requirement& node_domains) const;
  int DomainMinCount(const scheduling::Requirement& pod_domains) const;
  bool AnyCompatiblePodDomain(const scheduling::Requirement& pod_domains) const;

  TopologyType type_;
  std::string key_;
  std::set<std::string> namespaces_;
  scheduling::Selector selector_;  // Nothing when absent or invalid, as upstream
  std::string constraint_key_;
  int max_skew_;
  std::optional<int> min_domains_;
  TopologyNodeFilter filter_;
  std::map<std::string, int> counts_;
  int empty_domains_ = 0;  // number of domains with count 0
};

}  // namespace nodesmith::solver
