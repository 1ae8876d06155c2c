#include "solver/topology_domain_group.h"

#include "scheduling/requirements.h"
#include "scheduling/taints.h"

namespace nodesmith::solver {

void TopologyDomainGroup::Insert(const std::string& domain, const std::vector<api::Taint>& taints) {
  auto it = domains_.find(domain);
  if (it == domains_.end() || taints.empty()) {
    domains_[domain] = {taints};
    return;
  }
  // Already reachable without taints: every pod may use it, nothing more to track.
  if (it->second.front().empty()) return;
  it->second.push_back(taints);
}

void TopologyDomainGroup::ForEachDomain(const api::Pod& pod, bool honor_taints,
                                        const std::function<void(const std::string&)>& f) const {
  for (const auto& [domain, taint_sets] : domains_) {
    if (!honor_taints) {
      f(domain);
      continue;
    }
    for (const auto& taints : taint_sets) {
      if (scheduling::FindUntoleratedTaint(pod.spec.tolerations, taints) == nullptr) {
        f(domain);
        break;
      }
    }
  }
}

DomainGroups BuildDomainGroups(const std::vector<DomainSource>& sources) {
  DomainGroups groups;
  for (const DomainSource& source : sources) {
    const api::NodePool& pool = *source.node_pool;
    const auto& taints = pool.template_.spec.taints;
    scheduling::Requirements pool_reqs =
        scheduling::Requirements::FromNodeSelectorRequirements(pool.template_.spec.requirements);
    pool_reqs.Add(scheduling::Requirements::FromLabels(pool.template_.labels));
    if (source.instance_types != nullptr) {
      for (const auto& it : *source.instance_types) {
        // Intersected with the pool, so an instance type's zones never widen the pool's.
        scheduling::Requirements reqs = pool_reqs;
        reqs.Add(it->requirements);
        for (const auto& r : reqs) {
          // Only finite sets name domains; a complement's values are exclusions.
          if (r.complement()) continue;
          for (const auto& domain : r.Values()) groups[r.key()].Insert(domain, taints);
        }
      }
    }
    for (const auto& r : pool_reqs) {
      if (r.op() != scheduling::Operator::kIn) continue;
      for (const auto& domain : r.Values()) groups[r.key()].Insert(domain, taints);
    }
  }
  return groups;
}

}  // namespace nodesmith::solver
