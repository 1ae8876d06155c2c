// Instance-type filtering and ordering for NodeClaims, as Karpenter's nodeclaim.go
// (filterInstanceTypesByRequirements) and InstanceTypes.OrderByPrice / Truncate.
//
// Pure functions over cloud::InstanceType; the scheduler keeps its own dense copies of the
// resource checks, these carry the requirement and offering rules.
#pragma once

#include <limits>
#include <string>
#include <utility>
#include <vector>

#include "cloud/instance_type.h"
#include "scheduling/requirements.h"

namespace nodesmith::solver {

// Karpenter's "has offering": an available offering compatible with `reqs` (zone and capacity
// type may be left undefined by `reqs`).
bool HasCompatibleOffering(const cloud::InstanceType& type, const scheduling::Requirements& reqs,
                           const scheduling::CompatibilityOptions& options);

// Price of the cheapest available offering compatible with `reqs`; +infinity when none.
double CheapestPrice(const cloud::InstanceType& type, const scheduling::Requirements& reqs,
                     const scheduling::CompatibilityOptions& options);

// One requirement with minValues that the options cannot satisfy.
struct MinValuesShortfall {
  std::string key;
  int required = 0;
  int available = 0;  // distinct values among the options
};

// For each requirement of `reqs` with minValues: the number of distinct values of that key
// among `types` (values the requirement admits). Returns the keys that fall short.
std::vector<MinValuesShortfall> CheckMinValues(const std::vector<const cloud::InstanceType*>& types,
                                               const scheduling::Requirements& reqs);

// Lowers each short requirement's minValues to what is available (none when nothing is): what
// the BestEffort policy does when the options cannot satisfy them.
void RelaxMinValues(const std::vector<MinValuesShortfall>& shortfalls, scheduling::Requirements& reqs);

// Orders `types` by their cheapest compatible offering (ties: name) and keeps at most
// `max_types`, choosing the cheapest types first but, when the cheapest `max_types` would not
// satisfy a minValues requirement, swapping in the cheapest types that add missing values.
// The result is sorted cheapest first. `shortfalls` receives what is still unsatisfied.
std::vector<const cloud::InstanceType*> OrderAndTruncate(
    std::vector<const cloud::InstanceType*> types, const scheduling::Requirements& reqs,
    const scheduling::CompatibilityOptions& options, size_t max_types,
    std::vector<MinValuesShortfall>* shortfalls);
// The same, with each type's cheapest compatible offering price already known (callers that
// order many type lists under the same requirements compute it once per type).
std::vector<const cloud::InstanceType*> OrderAndTruncate(
    std::vector<std::pair<double, const cloud::InstanceType*>> priced,
    const scheduling::Requirements& reqs, size_t max_types,
    std::vector<MinValuesShortfall>* shortfalls);

inline constexpr size_t kMaxInstanceTypes = 60;

}  // namespace nodesmith::solver
