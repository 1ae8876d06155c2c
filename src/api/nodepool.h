// NodePool (karpenter.sh/v1): a template for the nodes nodesmith may launch, how it may
// disrupt them, and how much it may launch. Legacy Provisioner and v1beta1 NodePool documents
// are converted into this type on load (api/legacy.h).
#pragma once

#include <optional>
#include <string>
#include <vector>

#include "api/meta.h"
#include "api/resource_list.h"
#include "api/selector.h"
#include "core/duration.h"

namespace nodesmith::api {

// spec.template.spec.nodeClassRef: {group, kind, name}.
struct NodeClassReference {
  std::string group;  // karpenter.k8s.aws
  std::string kind;   // EC2NodeClass
  std::string name;
};

// The part of a NodePool that becomes each NodeClaim's spec.
struct NodeClaimTemplateSpec {
  std::vector<Taint> taints;
  std::vector<Taint> startup_taints;
  std::vector<NodeSelectorRequirement> requirements;  // with minValues
  NodeClassReference node_class_ref;
  core::NillableDuration expire_after{core::Duration(std::chrono::hours(720))};
  std::optional<core::Duration> termination_grace_period;
};

struct NodeClaimTemplate {
  Labels labels;
  std::map<std::string, std::string> annotations;
  NodeClaimTemplateSpec spec;
};

// A disruption budget: at most `nodes` ("10%" or "5") disrupted at once, for the listed
// reasons (all when empty), optionally only during a cron `schedule` window of `duration`.
struct Budget {
  std::string nodes = "10%";
  std::optional<std::string> schedule;
  std::optional<core::Duration> duration;
  std::vector<std::string> reasons;  // Underutilized, Empty, Drifted
};

struct Disruption {
  std::string consolidation_policy = "WhenEmptyOrUnderutilized";  // or WhenEmpty
  core::NillableDuration consolidate_after{core::Duration(0)};
  std::vector<Budget> budgets{Budget{}};
};

// The NodePool's summary condition: True when it may launch nodes. The provisioner passes over a
// NodePool that carries it with any other status.
inline constexpr const char* kNodePoolConditionReady = "Ready";

struct NodePool {
  ObjectMeta metadata;
  NodeClaimTemplate template_;
  Disruption disruption;
  ResourceList limits;  // empty: unlimited
  std::optional<int> weight;  // 1..100, higher tried first
  // status: what the NodePool's nodes add up to (Karpenter's counter controller), and how it is.
  ResourceList resources;          // status.resources: summed node capacity
  std::optional<int64_t> nodes;    // status.nodes; nullopt until first counted
  std::vector<Condition> conditions;  // status.conditions
};

}  // namespace nodesmith::api
