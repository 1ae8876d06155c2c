#include "solver/instance_type_filter.h"

#include <algorithm>
#include <map>
#include <optional>
#include <set>

namespace nodesmith::solver {

bool HasCompatibleOffering(const cloud::InstanceType& type, const scheduling::Requirements& reqs,
                           const scheduling::CompatibilityOptions& options) {
  for (const auto& o : type.offerings) {
    if (o.available && reqs.IsCompatible(o.requirements, options)) return true;
  }
  return false;
}

double CheapestPrice(const cloud::InstanceType& type, const scheduling::Requirements& reqs,
                     const scheduling::CompatibilityOptions& options) {
  double best = std::numeric_limits<double>::infinity();
  for (const auto& o : type.offerings) {
    if (o.available && o.price < best && reqs.IsCompatible(o.requirements, options)) best = o.price;
  }
  return best;
}

namespace {

// The values of `key` a type contributes towards minValues: its own values that `req` admits.
void Contribute(const cloud::InstanceType& type, const scheduling::Requirement& req,
                std::set<std::string>& out) {
  const scheduling::Requirement* own = type.requirements.Find(req.key());
  if (own == nullptr || own->complement()) return;
  for (const auto& v : own->Values()) {
    if (req.Has(v)) out.insert(v);
  }
}

}  // namespace

void RelaxMinValues(const std::vector<MinValuesShortfall>& shortfalls, scheduling::Requirements& reqs) {
  for (const auto& f : shortfalls) {
    scheduling::Requirement r = *reqs.Find(f.key);
    r.set_min_values(f.available > 0 ? std::optional<int>(f.available) : std::nullopt);
    reqs.Remove(f.key);
    reqs.Add(r);
  }
}

std::vector<MinValuesShortfall> CheckMinValues(const std::vector<const cloud::InstanceType*>& types,
                                               const scheduling::Requirements& reqs) {
  std::vector<MinValuesShortfall> out;
  for (const auto& req : reqs) {
    if (!req.min_values().has_value()) continue;
    std::set<std::string> values;
    for (const auto* t : types) Contribute(*t, req, values);
    if (static_cast<int>(values.size()) < *req.min_values()) {
      out.push_back({req.key(), *req.min_values(), static_cast<int>(values.size())});
    }
  }
  return out;
}

std::vector<const cloud::InstanceType*> OrderAndTruncate(
    std::vector<const cloud::InstanceType*> types, const scheduling::Requirements& reqs,
    const scheduling::CompatibilityOptions& options, size_t max_types,
    std::vector<MinValuesShortfall>* shortfalls) {
  std::vector<std::pair<double, const cloud::InstanceType*>> priced;
  priced.reserve(types.size());
  for (const auto* t : types) priced.emplace_back(CheapestPrice(*t, reqs, options), t);
  return OrderAndTruncate(std::move(priced), reqs, max_types, shortfalls);
}

std::vector<const cloud::InstanceType*> OrderAndTruncate(
    std::vector<std::pair<double, const cloud::InstanceType*>> priced,
    const scheduling::Requirements& reqs, size_t max_types,
    std::vector<MinValuesShortfall>* shortfalls) {
  auto cheaper = [](const auto& a, const auto& b) {
    if (a.first != b.first) return a.first < b.first;
    return a.second->name < b.second->name;
  };
  // Callers may hand lists over already ordered (the scheduler does for long ones).
  if (!std::is_sorted(priced.begin(), priced.end(), cheaper)) {
    std::sort(priced.begin(), priced.end(), cheaper);
  }
  std::vector<const cloud::InstanceType*> ordered;
  ordered.reserve(priced.size());
  for (const auto& p : priced) ordered.push_back(p.second);

  std::vector<const cloud::InstanceType*> kept;
  if (ordered.size() <= max_types) {
    kept = ordered;
  } else {
    // First the cheapest types that add a value some minValues requirement still needs, then
    // the cheapest of the rest; finally back into price order.
    std::vector<bool> taken(ordered.size(), false);
    for (const auto& req : reqs) {
      if (!req.min_values().has_value()) continue;
      std::set<std::string> have;
      for (size_t i = 0; i < ordered.size(); ++i) {
        if (taken[i]) Contribute(*ordered[i], req, have);
      }
      for (size_t i = 0; i < ordered.size() && static_cast<int>(have.size()) < *req.min_values(); ++i) {
        if (taken[i] || kept.size() >= max_types) continue;
        std::set<std::string> mine;
        Contribute(*ordered[i], req, mine);
        bool adds = false;
        for (const auto& v : mine) adds = adds || !have.count(v);
        if (!adds) continue;
        taken[i] = true;
        kept.push_back(ordered[i]);
        have.insert(mine.begin(), mine.end());
      }
    }
    for (size_t i = 0; i < ordered.size() && kept.size() < max_types; ++i) {
      if (!taken[i]) {
        taken[i] = true;
        kept.push_back(ordered[i]);
      }
    }
    std::vector<const cloud::InstanceType*> sorted;
    for (size_t i = 0; i < ordered.size(); ++i) {
      if (taken[i]) sorted.push_back(ordered[i]);
    }
    kept = std::move(sorted);
  }
  if (shortfalls != nullptr) *shortfalls = CheckMinValues(kept, reqs);
  return kept;
}

}  // namespace nodesmith::solver
