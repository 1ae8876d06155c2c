// NodeClaim (karpenter.sh/v1): one request for one node, and what became of it. Legacy
// Machine and v1beta1 NodeClaim documents are converted into this type on load.
#pragma once

#include <optional>
#include <string>
#include <vector>

#include "api/meta.h"
#include "api/nodepool.h"
#include "api/resource_list.h"

namespace nodesmith::api {

struct NodeClaimSpec {
  std::vector<Taint> taints;
  std::vector<Taint> startup_taints;
  std::vector<NodeSelectorRequirement> requirements;
  ResourceList resource_requests;  // spec.resources.requests
  NodeClassReference node_class_ref;
  core::NillableDuration expire_after{core::Duration(std::chrono::hours(720))};
  std::optional<core::Duration> termination_grace_period;
};

struct NodeClaimStatus {
  std::string node_name;
  std::string provider_id;
  std::string image_id;
  ResourceList capacity;
  ResourceList allocatable;
  std::vector<Condition> conditions;  // Launched, Registered, Initialized, Drifted, Consolidatable, ...
  std::optional<core::Time> last_pod_event_time;
};

struct NodeClaim {
  ObjectMeta metadata;
  NodeClaimSpec spec;
  NodeClaimStatus status;

  // The condition of this type, or nullptr.
  const Condition* FindCondition(const std::string& type) const;
  bool IsTrue(const std::string& type) const;
};

}  // namespace nodesmith::api
