// Questions every layer asks about a Node's status: its conditions and whether it is Ready.
// Kept beside pod_status.h so controllers, the cluster model and the simulator agree on what a
// Ready node is.
#pragma once

#include <string>

#include "api/meta.h"
#include "api/node.h"

namespace nodesmith::api {

inline constexpr const char* kNodeConditionReady = "Ready";

// The node's condition of `type`, or nullptr. The pointer is into `node`.
const Condition* FindNodeCondition(const Node& node, const std::string& type);

// The node's Ready condition is True. A node that has not reported Ready yet is not Ready.
bool IsNodeReady(const Node& node);

}  // namespace nodesmith::api
