#include "solver/scheduler.h"

#include <cstdint>
#include <memory>
#include <string>
#include <utility>
#include <vector>

#include "solver/queue.h"
#include "solver/solver_state.h"

namespace nodesmith::solver {
namespace internal {

bool Solver::TryExisting(int p, int e) {
  PodState& ps = pods_[p];
  ClassState& cs = classes_[ps.base_cls];  // only topology-free checks are cached
  if (cs.dead_existing.size() < existing_.size()) cs.dead_existing.resize(existing_.size(), 0);
  if (cs.dead_existing[e]) return false;
  ExistingState& ex = existing_[e];
  // Every check before topology is monotone over the solve: a failure is final for the class.
  if (!ex.in->schedulable || !Fits(ps.info.requests, ex.available) ||
      FirstUntoleratedTaint(ex.in->taints, *ps.pod) || ex.ports.Conflict(ps.info.host_ports) ||
      !ex.requirements.IsCompatible(ps.info.requirements)) {
    cs.dead_existing[e] = 1;
    return false;
  }
  if (topology_ && ps.topology) {
    auto tr = topology_->TryAddRequirements(*ps.pod, ex.in->taints, ps.info.strict_requirements,
                                            ex.requirements);
    if (!tr || !ex.requirements.IsCompatible(*tr)) return false;
  }
  SubtractFrom(ex.available, ps.info.requests);
  ex.ports.Add(ps.info.host_ports);
  ex.pods.push_back(p);
  if (topology_ && ps.counts) RecordTopology(ps, ex.in->taints, ex.requirements);
  return true;
}

bool Solver::Place(int p) {
  PodState& ps = pods_[p];
  for (size_t e = 0; e < existing_.size(); ++e) {
    if (TryExisting(p, static_cast<int>(e))) return true;
  }
  memo_on_ = false;
  if (topology_ && ps.topology && !claim_order_.empty()) {
    if (ps.memo_epoch != topology_epoch_) UpdateMemoKeys(ps);
    memo_keys_ = &ps.memo_keys;
    memo_on_ = ps.memo_ids != nullptr;
    memo_ids_of_claim_ = ps.memo_ids;
    for (int id : memo_failed_list_) memo_failed_[id] = 0;
    memo_failed_list_.clear();
  }
  // The cached verdicts TryClaim starts with, checked here too: with thousands of claims, most
  // are already ruled out for this pod, and skipping them inline keeps the scan cheap.
  ClassState& cs = classes_[ps.base_cls];
  if (cs.dead_claim.size() < claims_.size()) cs.dead_claim.resize(claims_.size(), 0);
  const std::vector<uint8_t>* excluded = nullptr;
  if (ps.host_exclusion >= 0) {
    std::vector<uint8_t>& ex = excluded_[ps.host_exclusion];
    if (ex.size() < claims_.size()) ex.resize(claims_.size(), 0);
    excluded = &ex;
  }
  for (size_t i = 0; i < claim_order_.size(); ++i) {
    const int k = claim_order_[i];
    if (cs.dead_claim[k] || (excluded != nullptr && (*excluded)[k])) continue;
    if (memo_on_ && memo_failed_[MemoId(k)]) continue;  // as TryClaim would find
    if (TryClaim(p, k)) {
      memo_on_ = false;
      return true;
    }
  }
  memo_on_ = false;
  if (templates_.empty()) {
    ps.error = "no nodepool can launch nodes (none given)";
    return false;
  }
  std::string errors;
  for (size_t t = 0; t < templates_.size(); ++t) {
    std::string reason;
    if (TryNewClaim(p, static_cast<int>(t), &reason)) return true;
    if (!errors.empty()) errors += "; ";
    errors += "incompatible with nodepool " + templates_[t].name + ": " + reason;
  }
  ps.error = std::move(errors);
  return false;
}

core::Result<Results> Solver::Run() {
  BuildIndex();
  BuildTypes();
  BuildTemplates();
  BuildExisting();
  BuildPods();
  NS_RETURN_IF_ERROR(BuildTopology());
  std::vector<const api::NodePool*> pools;
  for (const auto& np : s_.node_pools) pools.push_back(&np);
  preferences_ = std::make_unique<Preferences>(ToleratePreferNoSchedule(pools));

  std::vector<QueueKey> keys;
  keys.reserve(pods_.size());
  for (const auto& ps : pods_) {
    keys.push_back(QueueKey{ps.info.requests[ResourceIndex::kCpu],
                            ps.info.requests[ResourceIndex::kMemory],
                            ps.pod->metadata.creation_timestamp ? ps.pod->metadata.creation_timestamp->unix_nanos : 0,
                            ps.pod->metadata.uid});
  }
  Queue queue(keys);
  for (int p = queue.Pop(); p >= 0; p = queue.Pop()) {
    PodState& ps = pods_[p];
    if (ps.fatal) continue;  // nothing to retry: the input itself is wrong for this pod
    if (Place(p)) {
      ps.placed = true;
      ps.error.clear();
      continue;
    }
    bool relaxed = preferences_->Relax(ps.Mutable()).has_value();
    if (relaxed) {
      if (topology_) {
        core::Status st = topology_->Update(*ps.pod);
        ++topology_epoch_;
        (void)st;  // a pod whose constraints cannot be re-derived keeps its old groups
        RefreshTopology(p);
      }
      Refresh(p);
    }
    queue.Push(p, relaxed);
  }

  if (opts_.repack) RepackClaims();
  Results out;
  out.pending_pods = static_cast<int>(pods_.size());
  Finalize(out);
  if (opts_.on_decided) opts_.on_decided();
  if (opts_.compute_lower_bound) {
    std::vector<int> scheduled;
    for (size_t p = 0; p < pods_.size(); ++p) {
      if (pods_[p].placed) scheduled.push_back(static_cast<int>(p));
    }
    out.lower_bound_per_hour = ComputeLowerBound(scheduled);
  }
  return out;
}

}  // namespace internal

core::Result<Results> Solve(const Snapshot& snapshot, const SchedulerOptions& options) {
  internal::Solver solver(snapshot, options);
  return solver.Run();
}

}  // namespace nodesmith::solver
