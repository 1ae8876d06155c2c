// TopologyDomainGroup: the universe of domains of one topology key (e.g. every zone a NodePool
// could launch into), each with the taint sets of the NodePools that provide it, as Karpenter's
// topologydomaingroup.go. A spread constraint with nodeTaintsPolicy Honor only considers the
// domains some NodePool provides with taints the pod tolerates.
//
// DomainGroups maps topology key -> TopologyDomainGroup and is built once per solve by
// BuildDomainGroups. Value types; iteration is in domain-name order.
#pragma once

#include <functional>
#include <map>
#include <string>
#include <vector>

#include "api/nodepool.h"
#include "api/pod.h"
#include "api/selector.h"
#include "cloud/instance_type.h"

namespace nodesmith::solver {

class TopologyDomainGroup {
 public:
  // Adds `domain`, reachable through a node with `taints`. An untainted source makes the domain
  // reachable by every pod, after which further taint sets are not tracked.
  void Insert(const std::string& domain, const std::vector<api::Taint>& taints);

  // Calls f(domain) for every domain, or, when `honor_taints`, for the domains reachable through
  // at least one taint set the pod tolerates.
  void ForEachDomain(const api::Pod& pod, bool honor_taints,
                     const std::function<void(const std::string&)>& f) const;

  bool Has(const std::string& domain) const { return domains_.count(domain) > 0; }
  size_t size() const { return domains_.size(); }

 private:
  std::map<std::string, std::vector<std::vector<api::Taint>>> domains_;
};

using DomainGroups = std::map<std::string, TopologyDomainGroup>;

// One NodePool and the instance types it may launch (already filtered for the pool).
struct DomainSource {
  const api::NodePool* node_pool = nullptr;
  const cloud::InstanceTypes* instance_types = nullptr;
};

// Karpenter's buildDomainGroups: for each pool, for each of its instance types, every value of
// every key in (pool requirements ∩ pool template labels ∩ instance type requirements); plus
// every value of the pool's own In requirements and labels. Each domain carries the pool's
// taints. Existing nodes add their domains later, per group (Topology counts them).
DomainGroups BuildDomainGroups(const std::vector<DomainSource>& sources);

}  // namespace nodesmith::solver
