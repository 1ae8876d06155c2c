#include "controllers/disruption/candidate_order.h"

#include <algorithm>
#include <cstdint>
#include <map>
#include <string>

#include "api/conditions.h"

namespace nodesmith::controllers {

std::vector<Candidate> BySavingsRatio(const std::vector<Candidate>& candidates) {
  std::vector<Candidate> out = candidates;
  std::stable_sort(out.begin(), out.end(), [](const Candidate& a, const Candidate& b) {
    return a.SavingsRatio() > b.SavingsRatio();
  });
  return out;
}

std::vector<Candidate> BySavingsRatioInterleavingNodePools(const std::vector<Candidate>& candidates) {
  std::vector<Candidate> sorted = BySavingsRatio(candidates);
  std::map<std::string, std::vector<Candidate*>> by_pool;
  size_t longest = 0;
  for (Candidate& c : sorted) {
    auto& pool = by_pool[c.node_pool_name()];
    pool.push_back(&c);
    longest = std::max(longest, pool.size());
  }
  std::vector<Candidate> out;
  out.reserve(sorted.size());
  for (size_t i = 0; i < longest; ++i) {
    for (auto& [name, pool] : by_pool) {
      if (i < pool.size()) out.push_back(std::move(*pool[i]));
    }
  }
  return out;
}

std::vector<Candidate> ByDriftTime(const std::vector<Candidate>& candidates, const char* condition) {
  auto drifted_at = [&](const Candidate& c) {
    const api::Condition* cond = api::FindCondition(c.node_claim.status.conditions, condition);
    return cond != nullptr && cond->last_transition_time ? *cond->last_transition_time
                                                               : core::Time{INT64_MAX};
  };
  std::vector<Candidate> out = candidates;
  std::stable_sort(out.begin(), out.end(), [&](const Candidate& a, const Candidate& b) {
    return drifted_at(a) < drifted_at(b);
  });
  return out;
}

}  // namespace nodesmith::controllers
