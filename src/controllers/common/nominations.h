// Nominations: which NodeClaims and Nodes pending pods are waiting for, shared between the
// provisioner (which nominates) and disruption (which must not take away capacity that pods are
// about to land on, as Karpenter's cluster state marks nominated nodes).
//
// A nomination lasts as long as the provisioner sees the pod pending and planned onto that
// target; the provisioner republishes the whole set after each reconcile. A stale read can only
// hold a disruption back, never cause one. Not thread-safe.
#pragma once

#include <map>
#include <string>

namespace nodesmith::controllers {

class Nominations {
 public:
  // Replaces the nominations: pod key -> NodeClaim or Node name.
  void Publish(const std::map<std::string, std::string>& pod_to_target) {
    pods_per_target_.clear();
    for (const auto& [pod, target] : pod_to_target) ++pods_per_target_[target];
  }
  // True when some pending pod is nominated to the NodeClaim or Node of this name.
  bool IsNominated(const std::string& name) const { return pods_per_target_.count(name) != 0; }
  size_t size() const { return pods_per_target_.size(); }

 private:
  std::map<std::string, int> pods_per_target_;
};

}  // namespace nodesmith::controllers
