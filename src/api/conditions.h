// Lookup and update of status conditions (metav1.Condition, NodeCondition, PodCondition all share
// api::Condition). Every object kind keeps its conditions in a plain vector; these functions are
// the one place that knows how a condition is found and how its transition time moves.
#pragma once

#include <string>
#include <vector>

#include "api/meta.h"
#include "core/time.h"

namespace nodesmith::api {

// The first condition of `type`, or nullptr. The pointer is into `conditions` and lives as long
// as the vector is not resized.
const Condition* FindCondition(const std::vector<Condition>& conditions, const std::string& type);

// The condition of `type` is present with status "True".
bool IsConditionTrue(const std::vector<Condition>& conditions, const std::string& type);

// Sets (or appends) the condition `type` to `status`, `reason` and `message`. lastTransitionTime
// moves to `now` only when the status changes, as metav1 conditions. Returns true when anything
// changed.
bool SetCondition(std::vector<Condition>& conditions, const std::string& type,
                  const std::string& status, const std::string& reason, core::Time now,
                  const std::string& message = "");

// As above for a metav1.Condition of an object at `generation`: also sets observedGeneration,
// which alone changing is a change too (lastTransitionTime stays).
bool SetCondition(std::vector<Condition>& conditions, const std::string& type,
                  const std::string& status, const std::string& reason, core::Time now,
                  const std::string& message, int64_t generation);

// Removes the condition of `type`; true when there was one.
bool ClearCondition(std::vector<Condition>& conditions, const std::string& type);

}  // namespace nodesmith::api
