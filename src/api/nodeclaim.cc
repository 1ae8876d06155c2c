#include "api/nodeclaim.h"

#include "api/conditions.h"

namespace nodesmith::api {

const Condition* NodeClaim::FindCondition(const std::string& type) const {
  return api::FindCondition(status.conditions, type);
}

bool NodeClaim::IsTrue(const std::string& type) const {
  return IsConditionTrue(status.conditions, type);
}

}  // namespace nodesmith::api
