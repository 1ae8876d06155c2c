#include "api/nodeclaim.h"

namespace nodesmith::api {

const Condition* NodeClaim::FindCondition(const std::string& type) const {
  for (const Condition& c : status.conditions) {
    if (c.type == type) return &c;
  }
  return nullptr;
}

bool NodeClaim::IsTrue(const std::string& type) const {
  const Condition* c = FindCondition(type);
  return c != nullptr && c->status == "True";
}

}  // namespace nodesmith::api
