// Results: what one provisioning solve decided, as plain data in output order.
#pragma once

#include <string>
#include <vector>

#include "api/resource_list.h"
#include "api/selector.h"
#include "scheduling/requirements.h"

namespace nodesmith::solver {

// What the cloud would start for a new NodeClaim.
struct Launch {
  std::string instance_type;
  std::string zone;
  std::string capacity_type;
  double price_per_hour = 0;
};

struct NewNodeClaim {
  std::string name;       // "<nodepool>-<5 chars>", a hash of its contents
  std::string node_pool;
  std::vector<std::string> instance_type_options;  // cheapest first, at most 60
  Launch launch;
  api::Labels labels;
  std::vector<api::Taint> taints;
  api::ResourceList requests;      // DaemonSet overhead + pods
  std::vector<std::string> pods;   // "namespace/name", in placement order
  scheduling::Requirements requirements;  // final, without the placeholder hostname
};

// Pending pods placed on a Node or an in-flight NodeClaim.
struct ExistingNodePlacement {
  std::string name;
  bool in_flight = false;
  std::vector<std::string> pods;
};

struct UnschedulablePod {
  std::string pod;     // "namespace/name"
  std::string reason;  // "incompatible with nodepool a: ...; incompatible with nodepool b: ..."
};

struct Results {
  std::vector<NewNodeClaim> new_node_claims;        // creation order
  std::vector<ExistingNodePlacement> existing_nodes;  // only those receiving pods, snapshot order
  std::vector<UnschedulablePod> unschedulable;      // pending-pod input order
  int pending_pods = 0;
  int scheduled = 0;
  double price_per_hour = 0;        // sum of launch prices
  double lower_bound_per_hour = 0;  // see lower_bound.h
};

}  // namespace nodesmith::solver
