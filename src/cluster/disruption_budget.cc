#include "cluster/disruption_budget.h"

#include <charconv>
#include <map>
#include <optional>
#include <unordered_map>

#include "scheduling/label_selector.h"

namespace nodesmith::cluster {
namespace {

// An owner reference without a uid (hand-written input) matches any object of that name.
bool UidMatches(const api::OwnerReference& ref, const api::ObjectMeta& meta) {
  return ref.uid.empty() || ref.uid == meta.uid;
}

struct ControllerScale {
  std::string key;  // identifies the controller, so each one counts once
  int scale = 0;
};

std::optional<api::ReplicatedWorkload> FindWorkload(const ClusterApi& cluster,
                                                    const std::string& ns, const std::string& kind,
                                                    const std::string& name) {
  auto r = cluster.Get<api::ReplicatedWorkload>(ns, kind + "/" + name);
  if (!r.ok()) return std::nullopt;
  return std::move(r).value();
}

ControllerScale ScaleOf(const api::ReplicatedWorkload& w) {
  return {w.metadata.namespace_ + "/" + w.kind + "/" + w.metadata.name, w.replicas};
}

// The disruption controller's finders, tried in upstream order: ReplicaSet (unless a Deployment
// controls it), Deployment (through its ReplicaSet), StatefulSet, then any object with a scale
// subresource (here: the three replicated kinds, named directly).
std::optional<ControllerScale> FindControllerScale(const ClusterApi& cluster,
                                                   const api::OwnerReference& ref,
                                                   const std::string& ns) {
  if (ref.kind == "ReplicaSet") {
    auto rs = FindWorkload(cluster, ns, "ReplicaSet", ref.name);
    if (rs && UidMatches(ref, rs->metadata)) {
      const api::OwnerReference* rs_owner = api::ControllerOf(rs->metadata);
      if (rs_owner == nullptr || rs_owner->kind != "Deployment") return ScaleOf(*rs);
      auto dep = FindWorkload(cluster, ns, "Deployment", rs_owner->name);
      if (dep && UidMatches(*rs_owner, dep->metadata)) return ScaleOf(*dep);
      // A ReplicaSet whose Deployment is gone still has its own scale.
      return ScaleOf(*rs);
    }
    return std::nullopt;
  }
  if (ref.kind == "StatefulSet" || ref.kind == "Deployment") {
    auto w = FindWorkload(cluster, ns, ref.kind, ref.name);
    if (w && UidMatches(ref, w->metadata)) return ScaleOf(*w);
  }
  return std::nullopt;
}

// getExpectedScale: the summed scale of the controllers of `pods`.
core::Result<int> ExpectedScale(const ClusterApi& cluster, const std::vector<api::Pod>& pods) {
  std::map<std::string, int> scales;
  for (const auto& pod : pods) {
    const api::OwnerReference* ref = api::ControllerOf(pod.metadata);
    if (ref == nullptr) continue;  // unmanaged pods do not count
    auto scale = FindControllerScale(cluster, *ref, pod.metadata.namespace_);
    if (!scale) {
      return core::Status::NotFound("found no controllers for pod \"" + pod.metadata.name + "\"");
    }
    scales[scale->key] = scale->scale;
  }
  int total = 0;
  for (const auto& [key, scale] : scales) total += scale;
  return total;
}

// The status of `pdb` whose pods (its namespace's, matching its selector) are `pods`.
DisruptionBudgetStatus StatusFromPods(const ClusterApi& cluster, const api::PodDisruptionBudget& pdb,
                                      const std::vector<api::Pod>& pods) {
  DisruptionBudgetStatus status;
  auto fail = [&](const core::Status& st) {
    status = DisruptionBudgetStatus{};
    status.error = st.message();
    return status;
  };
  if (pdb.max_unavailable) {
    auto expected = ExpectedScale(cluster, pods);
    if (!expected.ok()) return fail(expected.status());
    auto max_unavailable = ScaledValueFromIntOrPercent(*pdb.max_unavailable, *expected, true);
    if (!max_unavailable.ok()) return fail(max_unavailable.status());
    status.expected_pods = *expected;
    status.desired_healthy = std::max(0, *expected - *max_unavailable);
  } else if (pdb.min_available) {
    if (!pdb.min_available->is_string) {
      status.desired_healthy = pdb.min_available->int_value;
      status.expected_pods = static_cast<int>(pods.size());
    } else {
      auto expected = ExpectedScale(cluster, pods);
      if (!expected.ok()) return fail(expected.status());
      auto min_available = ScaledValueFromIntOrPercent(*pdb.min_available, *expected, true);
      if (!min_available.ok()) return fail(min_available.status());
      status.expected_pods = *expected;
      status.desired_healthy = *min_available;
    }
  }

  for (const auto& pod : pods) {
    if (pod.metadata.deletion_timestamp) continue;
    if (IsPodReady(pod)) ++status.current_healthy;
  }
  int allowed = status.current_healthy - status.desired_healthy;
  status.disruptions_allowed = (status.expected_pods <= 0 || allowed <= 0) ? 0 : allowed;
  return status;
}

}  // namespace

core::Result<int> ScaledValueFromIntOrPercent(const api::IntOrString& value, int total,
                                              bool round_up) {
  if (!value.is_string) return value.int_value;
  const std::string& s = value.str_value;
  if (s.empty() || s.back() != '%') {
    return core::Status::Invalid(
        "invalid value for IntOrString: invalid type: string is not a percentage");
  }
  int percent = 0;
  const char* begin = s.data();
  const char* end = s.data() + s.size() - 1;
  if (begin != end && *begin == '+') ++begin;  // strconv.Atoi accepts a leading sign
  auto [ptr, ec] = std::from_chars(begin, end, percent);
  if (ec != std::errc() || ptr != end || begin == end) {
    return core::Status::Invalid("invalid value for IntOrString: invalid value \"" + s + "\"");
  }
  int64_t product = static_cast<int64_t>(percent) * total;
  int64_t scaled = product / 100;
  if (product % 100 != 0) {
    // Integer ceil/floor that agrees with math.Ceil/math.Floor for negative values too.
    bool negative = product < 0;
    if (round_up && !negative) ++scaled;
    if (!round_up && negative) --scaled;
  }
  return static_cast<int>(scaled);
}

DisruptionBudgetStatus ComputeDisruptionBudgetStatus(const ClusterApi& cluster,
                                                     const api::PodDisruptionBudget& pdb) {
  return ComputeDisruptionBudgetStatuses(cluster, {&pdb}).front();
}

std::vector<DisruptionBudgetStatus> ComputeDisruptionBudgetStatuses(
    const ClusterApi& cluster, const std::vector<const api::PodDisruptionBudget*>& pdbs) {
  std::vector<DisruptionBudgetStatus> out(pdbs.size());
  std::vector<std::optional<scheduling::Selector>> selectors(pdbs.size());
  std::vector<std::vector<api::Pod>> pods(pdbs.size());
  std::unordered_map<std::string, std::vector<size_t>> by_namespace;
  for (size_t i = 0; i < pdbs.size(); ++i) {
    auto selector = scheduling::Selector::FromApi(pdbs[i]->selector);
    if (!selector.ok()) {
      out[i].error = selector.status().message();
      continue;
    }
    selectors[i] = *std::move(selector);
    by_namespace[pdbs[i]->metadata.namespace_].push_back(i);
  }
  if (by_namespace.empty()) return out;
  cluster.ForEachObject(Kind::kPod, [&](const Object& o) {
    const auto& pod = std::get<api::Pod>(o);
    auto guarded = by_namespace.find(pod.metadata.namespace_);
    if (guarded == by_namespace.end()) return;
    for (size_t i : guarded->second) {
      if (selectors[i]->Matches(pod.metadata.labels)) pods[i].push_back(pod);
    }
  });
  for (size_t i = 0; i < pdbs.size(); ++i) {
    if (selectors[i]) out[i] = StatusFromPods(cluster, *pdbs[i], pods[i]);
  }
  return out;
}

std::vector<api::PodDisruptionBudget> DisruptionBudgetsFor(const ClusterApi& cluster,
                                                           const api::Pod& pod) {
  std::vector<api::PodDisruptionBudget> out;
  cluster.ForEachObject(Kind::kPodDisruptionBudget, [&](const Object& o) {
    const auto& pdb = std::get<api::PodDisruptionBudget>(o);
    if (pdb.metadata.namespace_ != pod.metadata.namespace_) return;
    auto selector = scheduling::Selector::FromApi(pdb.selector);
    if (!selector.ok()) return;  // an invalid selector matches nothing
    if (selector->Empty() || selector->IsNothing()) return;
    if (!selector->Matches(pod.metadata.labels)) return;
    out.push_back(pdb);
  });
  return out;
}

core::Status CheckEviction(const ClusterApi& cluster, const api::Pod& pod) {
  // canIgnorePDB: the pod is finished, not started, or already going.
  const std::string& phase = pod.status.phase;
  if (phase == "Succeeded" || phase == "Failed" || phase == "Pending" || phase.empty() ||
      pod.metadata.deletion_timestamp) {
    return core::Status::Ok();
  }
  std::vector<api::PodDisruptionBudget> pdbs = DisruptionBudgetsFor(cluster, pod);
  if (pdbs.size() > 1) {
    return core::Status::Internal(
        "This pod has more than one PodDisruptionBudget, which the eviction subresource does not "
        "support.");
  }
  if (pdbs.empty()) return core::Status::Ok();
  const api::PodDisruptionBudget& pdb = pdbs.front();
  DisruptionBudgetStatus status = ComputeDisruptionBudgetStatus(cluster, pdb);
  if (!IsPodReady(pod)) {
    // An unready pod does not count towards currentHealthy, so removing it costs no budget.
    if (pdb.unhealthy_pod_eviction_policy == "AlwaysAllow") return core::Status::Ok();
    if (status.current_healthy >= status.desired_healthy && status.desired_healthy > 0) {
      return core::Status::Ok();
    }
  }
  if (status.disruptions_allowed <= 0) {
    return core::Status::Unavailable(
        "Cannot evict pod as it would violate the pod's disruption budget.");
  }
  return core::Status::Ok();
}

}  // namespace nodesmith::cluster
