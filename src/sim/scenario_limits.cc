#include "sim/scenario_limits.h"

#include <algorithm>
#include <map>
#include <optional>
#include <string>
#include <variant>
#include <vector>

#include "api/manifest.h"
#include "api/pod_limit.h"
#include "api/workload_pods.h"

namespace nodesmith::sim {
namespace {

std::string KeyOf(const std::string& kind, const std::string& ns, const std::string& name) {
  return kind + " " + (ns.empty() ? "default" : ns) + "/" + name;
}

// The pods each workload wants now, and their sum, as the events change them.
class Demand {
 public:
  // The workload `key` now wants `pods`, as `what` says.
  core::Status Set(const std::string& key, int64_t pods, const std::string& what) {
    int64_t& wanted = wanted_[key];
    limit_.Release(wanted);
    wanted = 0;
    NS_RETURN_IF_ERROR(limit_.Add(pods, what));
    wanted = pods;
    return core::Status::Ok();
  }
  void Remove(const std::string& key) {
    if (auto it = wanted_.find(key); it != wanted_.end()) {
      limit_.Release(it->second);
      wanted_.erase(it);
    }
  }

 private:
  api::PodLimit limit_{kMaxScenarioPods, "pods a simulation may run at once"};
  std::map<std::string, int64_t> wanted_;
};

}  // namespace

core::Status CheckScenarioPods(const Scenario& scenario, const api::ObjectSet& inputs) {
  Demand demand;
  NS_RETURN_IF_ERROR(demand.Set("", static_cast<int64_t>(inputs.pods.size()), "the input's own pods"));
  std::map<std::string, std::optional<int>> completions;  // of each Job, which caps a scale
  for (const auto& w : inputs.replicated_workloads) {
    const api::ObjectMeta& m = w.object.metadata;
    NS_RETURN_IF_ERROR(demand.Set(KeyOf(w.object.kind, m.namespace_, m.name), w.object.replicas,
                                       api::DescribeSource(w.source) + ": spec.replicas"));
  }
  for (const auto& j : inputs.jobs) {
    const api::ObjectMeta& m = j.object.metadata;
    const api::JobPods pods = api::JobPodsOf(j.object);
    completions[KeyOf("Job", m.namespace_, m.name)] = j.object.completions;
    NS_RETURN_IF_ERROR(demand.Set(KeyOf("Job", m.namespace_, m.name), pods.count,
                                       api::DescribeSource(j.source) + ": " + pods.field));
  }

  // In the order the world runs them: by time, then as written.
  std::vector<const ScenarioEvent*> events;
  for (const auto& e : scenario.events) events.push_back(&e);
  std::stable_sort(events.begin(), events.end(),
                   [](const ScenarioEvent* a, const ScenarioEvent* b) { return a->at < b->at; });
  for (const ScenarioEvent* e : events) {
    const std::string where = scenario.source + ": " + e->path;
    if (const auto* a = std::get_if<ScaleAction>(&e->action)) {
      const std::string key = KeyOf(a->kind, a->namespace_, a->name);
      int pods = a->replicas;
      if (auto it = completions.find(key); it != completions.end() && it->second) {
        pods = std::min(pods, *it->second);
      }
      NS_RETURN_IF_ERROR(demand.Set(key, pods, where + ".scale.replicas"));
    } else if (const auto* a = std::get_if<ApplyAction>(&e->action)) {
      const api::ObjectMeta& m = cluster::MetaOf(a->object);
      if (const auto* w = std::get_if<api::ReplicatedWorkload>(&a->object)) {
        NS_RETURN_IF_ERROR(demand.Set(KeyOf(w->kind, m.namespace_, m.name), w->replicas,
                                      where + ".apply.spec.replicas"));
      } else if (const auto* j = std::get_if<api::Job>(&a->object)) {
        const api::JobPods pods = api::JobPodsOf(*j);
        completions[KeyOf("Job", m.namespace_, m.name)] = j->completions;
        NS_RETURN_IF_ERROR(demand.Set(KeyOf("Job", m.namespace_, m.name), pods.count,
                                      where + ".apply." + pods.field));
      } else if (std::holds_alternative<api::Pod>(a->object)) {
        NS_RETURN_IF_ERROR(demand.Set(KeyOf("Pod", m.namespace_, m.name), 1, where + ".apply"));
      }
    } else if (const auto* a = std::get_if<DeleteAction>(&e->action)) {
      demand.Remove(KeyOf(a->kind, a->namespace_, a->name));
    }
  }
  return core::Status::Ok();
}

}  // namespace nodesmith::sim
