#include "api/node_status.h"

#include "api/conditions.h"

namespace nodesmith::api {

const Condition* FindNodeCondition(const Node& node, const std::string& type) {
  return FindCondition(node.status.conditions, type);
}

bool IsNodeReady(const Node& node) { return IsConditionTrue(node.status.conditions, kNodeConditionReady); }

}  // namespace nodesmith::api
