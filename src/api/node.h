// Node (core/v1): the fields nodesmith reads and writes.
#pragma once

#include <string>
#include <vector>

#include "api/meta.h"
#include "api/resource_list.h"
#include "api/selector.h"

namespace nodesmith::api {

struct NodeSpec {
  std::string provider_id;
  std::vector<Taint> taints;
  bool unschedulable = false;
};

struct NodeStatus {
  ResourceList capacity;
  ResourceList allocatable;
  std::vector<Condition> conditions;
};

struct Node {
  ObjectMeta metadata;
  NodeSpec spec;
  NodeStatus status;
};

}  // namespace nodesmith::api
