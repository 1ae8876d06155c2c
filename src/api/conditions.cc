#include "api/conditions.h"

namespace nodesmith::api {

const Condition* FindCondition(const std::vector<Condition>& conditions, const std::string& type) {
  for (const Condition& c : conditions) {
    if (c.type == type) return &c;
  }
  return nullptr;
}

bool IsConditionTrue(const std::vector<Condition>& conditions, const std::string& type) {
  const Condition* c = FindCondition(conditions, type);
  return c != nullptr && c->status == "True";
}

bool SetCondition(std::vector<Condition>& conditions, const std::string& type,
                  const std::string& status, const std::string& reason, core::Time now,
                  const std::string& message) {
  for (Condition& c : conditions) {
    if (c.type != type) continue;
    if (c.status == status && c.reason == reason && c.message == message) return false;
    if (c.status != status) c.last_transition_time = now;
    c.status = status;
    c.reason = reason;
    c.message = message;
    return true;
  }
  conditions.push_back(Condition{type, status, reason, message, now});
  return true;
}

bool SetCondition(std::vector<Condition>& conditions, const std::string& type,
                  const std::string& status, const std::string& reason, core::Time now,
                  const std::string& message, int64_t generation) {
  bool changed = SetCondition(conditions, type, status, reason, now, message);
  for (Condition& c : conditions) {
    if (c.type != type || c.observed_generation == generation) continue;
    c.observed_generation = generation;
    changed = true;
  }
  return changed;
}

bool ClearCondition(std::vector<Condition>& conditions, const std::string& type) {
  return std::erase_if(conditions, [&](const Condition& c) { return c.type == type; }) > 0;
}

}  // namespace nodesmith::api
