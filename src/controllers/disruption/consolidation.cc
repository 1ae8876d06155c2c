#include "controllers/disruption/consolidation.h"

#include <algorithm>
#include <limits>
#include <map>
#include <utility>

#include "cloud/instance_type.h"
#include "scheduling/requirements.h"
#include "scheduling/well_known_labels.h"
#include "solver/instance_type_filter.h"

namespace nodesmith::controllers {
namespace {

namespace s = scheduling;

const s::CompatibilityOptions& OfferingCompatibility() {
  static const s::CompatibilityOptions kOptions = s::AllowUndefinedWellKnownLabels();
  return kOptions;
}

// The instance type named `name` among `types` (sorted by name, as every catalog returns them).
const cloud::InstanceType* FindType(const cloud::InstanceTypes& types, const std::string& name) {
  auto it = std::lower_bound(types.begin(), types.end(), name,
                             [](const cloud::InstanceTypePtr& t, const std::string& n) {
                               return t->name < n;
                             });
  if (it != types.end() && (*it)->name == name) return it->get();
  for (const auto& t : types) {  // not sorted after all: still answer correctly
    if (t->name == name) return t.get();
  }
  return nullptr;
}

}  // namespace

bool Consolidation::ShouldDisrupt(const Candidate& c) const {
  if (!c.blocked.empty()) return false;
  const api::Disruption& d = c.node_pool.disruption;
  if (d.consolidation_policy != "WhenEmptyOrUnderutilized") return false;
  if (d.consolidate_after.never()) return false;
  if (clock_.Now() < c.last_activity + *d.consolidate_after.value) return false;
  // An instance type the cloud no longer offers cannot be priced, so no replacement can be shown
  // to be cheaper (Karpenter: "unable to determine offering").
  return c.price_per_hour > 0;
}

std::vector<Candidate> Consolidation::WithinBudgets(const BudgetMapping& budgets,
                                                    const std::vector<Candidate>& candidates,
                                                    int limit, bool together) {
  std::map<std::string, int> remaining(budgets.begin(), budgets.end());
  std::vector<Candidate> out;
  for (const Candidate& c : candidates) {
    if (limit >= 0 && static_cast<int>(out.size()) >= limit) break;
    // A pool whose Empty budget kept an empty node must not lose it here.
    if (c.reschedulable_pods.empty()) continue;
    auto budget = remaining.find(c.node_pool_name());
    if (budget == remaining.end() || budget->second <= 0) continue;
    if (together) --budget->second;
    out.push_back(c);
  }
  return out;
}

double WorstLaunchPrice(const cloud::InstanceType& type, const s::Requirements& reqs) {
  // Karpenter prices a replacement type by what launching it could cost at worst: among the
  // available offerings the requirements admit, those of the capacity type the launch would
  // prefer (reserved, then spot, then on-demand), the most expensive.
  for (const char* capacity_type :
       {cloud::kCapacityTypeReserved, cloud::kCapacityTypeSpot, cloud::kCapacityTypeOnDemand}) {
    double worst = -1;
    for (const cloud::Offering& o : type.offerings) {
      if (!o.available || o.capacity_type != capacity_type) continue;
      if (!reqs.IsCompatible(o.requirements, OfferingCompatibility())) continue;
      worst = std::max(worst, o.price);
    }
    if (worst >= 0) return worst;
  }
  return std::numeric_limits<double>::infinity();
}

bool Consolidation::KeepOptionsCheaperThan(solver::NewNodeClaim& replacement,
                                           double max_price) const {
  const cloud::InstanceTypes& types = simulator_.instance_types();
  std::vector<std::string> kept;
  std::vector<const cloud::InstanceType*> kept_types;
  for (const std::string& name : replacement.instance_type_options) {
    const cloud::InstanceType* t = FindType(types, name);
    if (t == nullptr || !(WorstLaunchPrice(*t, replacement.requirements) < max_price)) continue;
    kept.push_back(name);
    kept_types.push_back(t);
  }
  replacement.instance_type_options = std::move(kept);
  if (replacement.instance_type_options.empty()) return false;
  // Fewer options may no longer offer the variety a minValues requirement asks for.
  return !replacement.requirements.HasMinValues() ||
         solver::CheckMinValues(kept_types, replacement.requirements).empty();
}

bool Consolidation::Relaunch(Command& command) const {
  solver::NewNodeClaim& r = command.replacements.front();
  const cloud::InstanceTypes& types = simulator_.instance_types();
  // Options cheapest first, by their cheapest offering under the (possibly narrowed)
  // requirements; types with no such offering cannot be launched and are dropped.
  std::vector<std::pair<double, const cloud::InstanceType*>> priced;
  for (const std::string& name : r.instance_type_options) {
    const cloud::InstanceType* t = FindType(types, name);
    if (t == nullptr) continue;
    const double price = solver::CheapestPrice(*t, r.requirements, OfferingCompatibility());
    if (price == std::numeric_limits<double>::infinity()) continue;
    priced.emplace_back(price, t);
  }
  if (priced.empty()) return false;
  std::stable_sort(priced.begin(), priced.end(),
                   [](const auto& a, const auto& b) { return a.first < b.first; });
  r.instance_type_options.clear();
  for (const auto& [price, t] : priced) r.instance_type_options.push_back(t->name);

  const cloud::InstanceType* launch_type = priced.front().second;
  const cloud::Offering* launch = launch_type->CheapestOffering(r.requirements);
  if (launch == nullptr) return false;
  // The labels describe the launch: forget the old type's, take the new one's.
  if (const cloud::InstanceType* old = FindType(types, r.launch.instance_type)) {
    for (const auto& [k, v] : old->requirements.SingleValuedLabels()) r.labels.erase(k);
  }
  for (const auto& [k, v] : r.requirements.SingleValuedLabels()) r.labels[k] = v;
  for (const auto& [k, v] : launch_type->requirements.SingleValuedLabels()) r.labels[k] = v;
  r.labels[s::kLabelTopologyZone] = launch->zone;
  r.labels[s::kLabelCapacityType] = launch->capacity_type;
  r.launch = solver::Launch{launch_type->name, launch->zone, launch->capacity_type, launch->price};

  double candidates_price = 0;
  for (const Candidate& c : command.candidates) candidates_price += c.price_per_hour;
  command.savings_per_hour = candidates_price - r.launch.price_per_hour;
  return command.savings_per_hour > 0;
}

double Consolidation::ReplacementCeiling(const solver::NewNodeClaim&,
                                         const std::vector<Candidate>&) const {
  return std::numeric_limits<double>::infinity();
}

core::Result<std::optional<Command>> Consolidation::ComputeConsolidation(
    const std::vector<Candidate>& candidates) {
  auto simulated = simulator_.Simulate(candidates);
  if (!simulated.ok()) return simulated.status();
  SimulationResult& sim = *simulated;
  if (!sim.AllCandidatePodsScheduled()) return std::optional<Command>();

  Command cmd;
  cmd.method = Name();
  cmd.reason = Reason();
  cmd.candidates = candidates;
  double candidates_price = 0;
  for (const Candidate& c : candidates) candidates_price += c.price_per_hour;

  if (sim.replacements.empty()) {  // everything fits on the rest of the cluster
    cmd.savings_per_hour = candidates_price;
    return std::optional<Command>(std::move(cmd));
  }
  // Consolidation never turns nodes into more than one new node.
  if (sim.replacements.size() != 1) return std::optional<Command>();
  solver::NewNodeClaim replacement = std::move(sim.replacements.front());

  const bool all_spot =
      std::all_of(candidates.begin(), candidates.end(),
                  [](const Candidate& c) { return c.capacity_type == cloud::kCapacityTypeSpot; });
  const s::Requirement capacity = replacement.requirements.Get(s::kLabelCapacityType);
  const s::Requirement only_spot = s::Requirement::In(s::kLabelCapacityType, {cloud::kCapacityTypeSpot});

  // The options cheaper than the candidates, then under the method's own ceiling: both judged
  // before a capacity type is chosen, on every option the simulation offered (Karpenter's
  // RemoveInstanceTypeOptionsByPriceAndMinValues, then filterOutSameInstanceType).
  auto keep_cheaper = [&]() {
    return KeepOptionsCheaperThan(replacement, candidates_price) &&
           KeepOptionsCheaperThan(replacement, ReplacementCeiling(replacement, candidates));
  };
  if (all_spot && capacity.Has(cloud::kCapacityTypeSpot)) {
    // Spot to spot: the cheapest spot type is not necessarily the one launched (availability
    // decides), so without care consolidation would chase ever cheaper types.
    if (!options_.spot_to_spot_consolidation) return std::optional<Command>();
    replacement.requirements.Add(only_spot);
    if (!keep_cheaper()) return std::optional<Command>();
    cmd.replacements.push_back(std::move(replacement));
    if (!Relaunch(cmd)) return std::optional<Command>();
    if (candidates.size() == 1) {
      // At least 15 cheaper types means the candidate's own type is not among the 15 cheapest;
      // launching only from those 15 lands on one of them, so the next pass has nothing cheaper
      // to chase.
      std::vector<std::string>& options = cmd.replacements.front().instance_type_options;
      if (options.size() < static_cast<size_t>(kMinInstanceTypesForSpotToSpot)) {
        return std::optional<Command>();
      }
      options.resize(kMinInstanceTypesForSpotToSpot);
    }
    return std::optional<Command>(std::move(cmd));
  }

  if (!keep_cheaper()) return std::optional<Command>();
  // Prices were judged assuming spot launches where spot is allowed; should spot capacity run
  // out, the launch must fail rather than fall back to a dearer on-demand node.
  if (capacity.Has(cloud::kCapacityTypeSpot) && capacity.Has(cloud::kCapacityTypeOnDemand)) {
    replacement.requirements.Add(only_spot);
  }
  cmd.replacements.push_back(std::move(replacement));
  if (!Relaunch(cmd)) return std::optional<Command>();
  return std::optional<Command>(std::move(cmd));
}

}  // namespace nodesmith::controllers
