#include "sim/world.h"

#include <algorithm>
#include <cmath>
#include <cstdlib>
#include <ostream>
#include <set>

#include <nlohmann/json.hpp>

#include "api/conditions.h"
#include "api/manifest.h"
#include "api/node_status.h"
#include "api/pod_status.h"
#include "cloud/catalog.h"
#include "cluster/cluster_snapshot.h"
#include "scheduling/pod_requests.h"

namespace nodesmith::sim {
namespace {

constexpr const char* kScenarioLogger = "scenario";
constexpr const char* kCloudLogger = "cloud";
constexpr const char* kNodePoolLabel = "karpenter.sh/nodepool";

// Prices and sums print without binary noise (0.30000000000000004).
double Round(double v, double scale = 1e9) { return std::round(v * scale) / scale; }

// Nearest-rank percentile of sorted values; 0 when there are none.
double Percentile(const std::vector<double>& sorted, double p) {
  if (sorted.empty()) return 0;
  size_t rank = static_cast<size_t>(std::ceil(p / 100.0 * static_cast<double>(sorted.size())));
  return sorted[std::clamp<size_t>(rank, 1, sorted.size()) - 1];
}

std::string WorkloadStoreName(const std::string& kind, const std::string& name) {
  return kind + "/" + name;
}

// A scale or workload delete must name a workload the inputs hold or an earlier apply event
// creates: a typo would otherwise only show as a warning deep in the log.
core::Status CheckWorkloadReferences(const api::ObjectSet& inputs, const Scenario& scenario) {
  std::set<std::string> known;  // "Kind namespace/name"
  for (const auto& w : inputs.replicated_workloads) {
    known.insert(w.object.kind + " " + w.object.metadata.Key());
  }
  for (const auto& j : inputs.jobs) known.insert("Job " + j.object.metadata.Key());
  std::vector<const ScenarioEvent*> events;
  for (const auto& e : scenario.events) events.push_back(&e);
  std::stable_sort(events.begin(), events.end(),
                   [](const ScenarioEvent* a, const ScenarioEvent* b) { return a->at < b->at; });
  for (const ScenarioEvent* e : events) {
    if (const auto* a = std::get_if<ApplyAction>(&e->action)) {
      std::string ns = cluster::MetaOf(a->object).namespace_;
      std::string key = (ns.empty() ? "default" : ns) + "/" + cluster::MetaOf(a->object).name;
      if (const auto* w = std::get_if<api::ReplicatedWorkload>(&a->object)) known.insert(w->kind + " " + key);
      if (std::holds_alternative<api::Job>(a->object)) known.insert("Job " + key);
      continue;
    }
    std::string kind, ns, name, field;
    if (const auto* a = std::get_if<ScaleAction>(&e->action)) {
      kind = a->kind, ns = a->namespace_, name = a->name, field = ".scale";
    } else if (const auto* a = std::get_if<DeleteAction>(&e->action)) {
      if (a->kind != "Deployment" && a->kind != "ReplicaSet" && a->kind != "StatefulSet" &&
          a->kind != "Job") {
        continue;
      }
      kind = a->kind, ns = a->namespace_, name = a->name, field = ".delete";
    } else {
      continue;
    }
    std::string what = kind + " " + (ns.empty() ? "default" : ns) + "/" + name;
    if (!known.count(what)) {
      return core::Status::Invalid(scenario.source + ": " + e->path + field + ": " + what +
                                   " is not among the inputs");
    }
  }
  return core::Status::Ok();
}

}  // namespace

World::World(Scenario scenario, const WorldOptions& options)
    : scenario_(std::move(scenario)),
      options_(options),
      clock_(scenario_.start),
      timeline_(clock_, scenario_.start),
      cluster_(clock_),
      loop_(clock_) {}

World::~World() = default;

core::Result<std::unique_ptr<World>> World::Create(const api::ObjectSet& inputs,
                                                   Scenario scenario,
                                                   const WorldOptions& options) {
  cloud::CatalogSource source =
      inputs.instance_type_catalogs.empty()
          ? cloud::CatalogSource::FromFlag(options.catalog)
          : cloud::CatalogSource::FromObject(inputs.instance_type_catalogs.front().object);
  std::optional<api::EC2NodeClass> node_class;
  if (!inputs.ec2_node_classes.empty()) node_class = inputs.ec2_node_classes.front().object;
  core::Result<cloud::Catalog> catalog = cloud::LoadCatalog(source, options.region, node_class);
  if (!catalog.ok()) return catalog.status();
  NS_RETURN_IF_ERROR(CheckWorkloadReferences(inputs, scenario));

  std::unique_ptr<World> world(new World(std::move(scenario), options));
  World& w = *world;
  w.cloud_ = std::make_unique<cloud::sim::SimulatedCloud>(w.clock_, std::move(catalog).value(),
                                                          w.scenario_.cloud, options.seed);
  w.timeline_.SetObserver([&w](const TimelineEvent& e) {
    if (e.event.type == "PodNominated" && w.scheduler_) {
      std::string pod = Timeline::Field(e.event, "pod");
      std::string target = Timeline::Field(e.event, "nodeClaim");
      if (target.empty()) target = Timeline::Field(e.event, "node");
      if (!pod.empty() && !target.empty()) w.scheduler_->Nominate(pod, target);
    }
    if (w.invariants_ && e.event.type == "DisruptionDecision") {
      w.invariants_->NoteDisruptionDecision(
          Timeline::Field(e.event, "reason"),
          runtime::SplitFieldList(Timeline::Field(e.event, "nodeClaims")),
          runtime::SplitFieldList(Timeline::Field(e.event, "nodes")));
    }
    if (w.invariants_ && e.event.type == "DisruptionAbandoned") {
      w.invariants_->NoteDisruptionAbandoned(
          runtime::SplitFieldList(Timeline::Field(e.event, "nodeClaims")));
    }
  });
  // PodPending for every pod created unbound, the inputs' included.
  w.cluster_.Watch(cluster::Kind::kPod, [&w](const cluster::WatchEvent& e) {
    if (e.type != cluster::WatchEventType::kAdded || !e.object) return;
    const auto& pod = std::get<api::Pod>(*e.object);
    if (!pod.spec.node_name.empty() || !api::IsActive(pod) || api::IsOwnedByDaemonSet(pod)) return;
    std::vector<std::pair<std::string, std::string>> fields{{"pod", pod.metadata.Key()}};
    for (const auto& ref : pod.metadata.owner_references) {
      if (ref.controller) fields.emplace_back("workload", ref.kind + "/" + ref.name);
    }
    w.Log(runtime::LogLevel::kInfo, "kube-apiserver", "Pod " + pod.metadata.Key() + " is pending",
          "PodPending", std::move(fields));
  });

  w.workloads_ = std::make_unique<WorkloadControllers>(w.loop_, w.cluster_, w.timeline_);
  w.scheduler_ = std::make_unique<KubeScheduler>(w.loop_, w.cluster_, w.timeline_);
  w.kubelets_ = std::make_unique<Kubelets>(w.loop_, w.cluster_, *w.cloud_, w.timeline_,
                                           w.scenario_.cloud, options.pod_start_delay);
  NS_RETURN_IF_ERROR(w.Load(inputs));
  if (options.check_invariants) {
    w.invariants_ = std::make_unique<InvariantChecker>(
        w.clock_, w.cluster_, *w.cloud_, DefaultInvariantOptions(w.scenario_.cloud));
    w.invariants_->Start();
  }

  controllers::Settings settings = w.scenario_.settings;
  settings.spot_to_spot_consolidation = options.spot_to_spot_consolidation;
  settings.well_known_labels = w.cloud_->catalog().well_known_labels;
  settings.index_pods_by_node = true;  // MemoryCluster announces every change as it stores it
  w.controllers_ =
      controllers::NewControllers(w.clock_, w.cluster_, *w.cloud_, w.timeline_, settings,
                                  /*interruption_queue=*/w.cloud_.get(),
                                  /*unavailable_offerings=*/w.cloud_.get());
  w.runtime_ = std::make_unique<runtime::SimulatedRuntime>(w.loop_, w.cluster_);
  for (runtime::Controller* c : w.controllers_->All()) {
    std::string name = c->Name();
    w.runtime_->Register(*c, [&w, name](const runtime::Request& r, const core::Status& st) {
      std::string what = r.name.empty() ? "" : " (" + (r.namespace_.empty() ? r.name : r.namespace_ + "/" + r.name) + ")";
      w.Log(runtime::LogLevel::kError, "controller." + name, "Reconciler error" + what + ": " + st.message());
    });
  }
  w.workloads_->Start();
  w.scheduler_->Start();
  w.kubelets_->Start();

  for (const ScenarioEvent& e : w.scenario_.events) w.Schedule(e);
  for (core::Time t = w.start(); t <= w.end(); t = t + w.scenario_.sample_interval) {
    w.loop_.At(t, [&w] { w.TakeSample(); });
  }
  w.Log(runtime::LogLevel::kInfo, kScenarioLogger,
        "Starting scenario " + w.scenario_.name + " for " +
            core::FormatDuration(w.scenario_.duration) + " with " +
            std::to_string(w.cloud_->catalog().instance_types.size()) + " instance types from " +
            w.cloud_->catalog().source);
  return world;
}

core::Status World::Load(const api::ObjectSet& inputs) {
  // The simulated cloud resolves every EC2NodeClass's subnets, security groups and AMIs, so each
  // one without a status is Ready, as the AWS provider's status controller would leave it on an
  // account where its selectors match; one given with a status keeps it.
  api::ObjectSet objects = inputs;
  for (auto& nc : objects.ec2_node_classes) {
    if (api::FindCondition(nc.object.conditions, "Ready") != nullptr) continue;
    nc.object.conditions.push_back(
        {"Ready", "True", "Ready", "", clock_.Now()});
  }
  return cluster::Load(objects, cluster_);
}

void World::Log(runtime::LogLevel level, const std::string& logger, const std::string& message,
                const std::string& type,
                std::vector<std::pair<std::string, std::string>> fields) {
  timeline_.Record(runtime::RecordedEvent{level, logger, message, type, std::move(fields)});
}

void World::RunUntil(core::Time t) {
  core::Time until = std::min(t, end());
  PollCloud();
  CheckInvariants();
  while (!loop_.empty() && loop_.NextEventTime() <= until) {
    loop_.RunNext();
    PollCloud();
    CheckInvariants();
  }
  if (clock_.Now() < until) clock_.Set(until);
  CheckInvariants();
}

void World::CheckInvariants() {
  if (!invariants_) return;
  size_t known = invariants_->violations().size();
  invariants_->Check();
  const auto& found = invariants_->violations();
  for (size_t i = known; i < found.size(); ++i) {
    Log(runtime::LogLevel::kError, "invariants", found[i].invariant + ": " + found[i].message,
        "InvariantViolation", {{"invariant", found[i].invariant}});
  }
}

const std::vector<InvariantViolation>& World::invariant_violations() const {
  static const std::vector<InvariantViolation> kNone;
  return invariants_ ? invariants_->violations() : kNone;
}

void World::PollCloud() {
  std::optional<core::Time> next = cloud_->NextTransitionTime();
  if (next && *next <= Now()) {
    for (const auto& tr : cloud_->AdvanceTo(Now())) OnTransition(tr);
    next = cloud_->NextTransitionTime();
  }
  if (next && (!cloud_wake_ || *next < *cloud_wake_ || *cloud_wake_ < Now())) {
    cloud_wake_ = *next;
    // Nothing to do in the event itself: RunUntil polls the cloud after every event.
    loop_.At(*next, [] {});
  }
}

void World::OnTransition(const cloud::sim::InstanceTransition& tr) {
  const cloud::sim::SimulatedInstance* inst = cloud_->FindInstance(tr.provider_id);
  kubelets_->OnInstanceTransition(tr.provider_id, tr.state, tr.at);
  if (invariants_) invariants_->NoteInstance(tr.provider_id);
  if (!inst) return;
  std::string state(cloud::sim::InstanceStateName(tr.state));
  std::vector<std::pair<std::string, std::string>> fields{
      {"instance", inst->instance_id},       {"instanceType", inst->instance_type},
      {"zone", inst->zone},                  {"capacityType", inst->capacity_type},
      {"nodeClaim", inst->node_claim_name}};
  if (tr.state == cloud::sim::InstanceState::kTerminated) {
    char cost[32];
    std::snprintf(cost, sizeof(cost), "%.6f", inst->CostAt(tr.at));
    fields.emplace_back("cost", cost);
    Log(runtime::LogLevel::kInfo, kCloudLogger,
        "Instance " + inst->instance_id + " (" + inst->instance_type + ") terminated",
        "InstanceTerminated", std::move(fields));
  } else {
    Log(runtime::LogLevel::kDebug, kCloudLogger,
        "Instance " + inst->instance_id + " (" + inst->instance_type + ") is " + state, "",
        std::move(fields));
  }
}

void World::Schedule(const ScenarioEvent& event) {
  const ScenarioEvent* e = &event;  // scenario_ outlives the loop's events
  loop_.At(start() + event.at, [this, e] { Apply(*e); });
}

void World::Apply(const ScenarioEvent& event) {
  using runtime::LogLevel;
  if (const auto* a = std::get_if<ScaleAction>(&event.action)) {
    std::string what = a->kind + " " + a->namespace_ + "/" + a->name;
    core::Status st;
    if (a->kind == "Job") {
      auto job = cluster_.Get<api::Job>(a->namespace_, a->name);
      if (job.ok()) {
        job->parallelism = a->replicas;
        st = cluster_.Update(*job).status();
      } else {
        st = job.status();
      }
    } else {
      auto w = cluster_.Get<api::ReplicatedWorkload>(a->namespace_,
                                                     WorkloadStoreName(a->kind, a->name));
      if (w.ok()) {
        w->replicas = a->replicas;
        st = cluster_.Update(*w).status();
      } else {
        st = w.status();
      }
    }
    if (!st.ok()) {
      return Log(LogLevel::kWarn, kScenarioLogger,
                 event.path + ": cannot scale " + what + ": " + st.message());
    }
    Log(LogLevel::kInfo, kScenarioLogger,
        "Scaled " + what + " to " + std::to_string(a->replicas) + " replicas", "ScenarioEvent",
        {{"action", "scale"}, {"workload", what}, {"replicas", std::to_string(a->replicas)}});
  } else if (const auto* a = std::get_if<DeleteAction>(&event.action)) {
    cluster::Kind kind = cluster::Kind::kPod;
    for (int i = 0; i < cluster::kKindCount; ++i) {
      if (a->kind == cluster::KindName(static_cast<cluster::Kind>(i))) kind = static_cast<cluster::Kind>(i);
    }
    bool replicated = a->kind == "Deployment" || a->kind == "ReplicaSet" || a->kind == "StatefulSet";
    if (replicated) kind = cluster::Kind::kReplicatedWorkload;
    std::string ns = cluster::IsNamespaced(kind) ? (a->namespace_.empty() ? "default" : a->namespace_) : "";
    std::string name = replicated ? WorkloadStoreName(a->kind, a->name) : a->name;
    std::string what = a->kind + " " + (ns.empty() ? a->name : ns + "/" + a->name);
    core::Status st = cluster_.DeleteObject(kind, ns, name);
    if (!st.ok()) {
      return Log(LogLevel::kWarn, kScenarioLogger,
                 event.path + ": cannot delete " + what + ": " + st.message());
    }
    Log(LogLevel::kInfo, kScenarioLogger, "Deleted " + what, "ScenarioEvent",
        {{"action", "delete"}, {"object", what}});
  } else if (const auto* a = std::get_if<ApplyAction>(&event.action)) {
    cluster::Object object = a->object;
    api::ObjectMeta& meta = cluster::MetaOf(object);
    cluster::Kind kind = cluster::KindOfObject(object);
    if (cluster::IsNamespaced(kind) && meta.namespace_.empty()) meta.namespace_ = "default";
    std::string what = std::string(cluster::KindName(kind)) + " " + meta.Key();
    if (const auto* w = std::get_if<api::ReplicatedWorkload>(&object)) what = w->kind + " " + meta.Key();
    auto existing = cluster_.GetObject(kind, meta.namespace_, cluster::StoreName(object));
    core::Status st;
    std::string verb = "Created ";
    if (existing.ok()) {
      const api::ObjectMeta& old = cluster::MetaOf(*existing);
      meta.uid = old.uid;
      meta.creation_timestamp = old.creation_timestamp;
      meta.resource_version.clear();
      verb = "Updated ";
      st = cluster_.UpdateObject(std::move(object)).status();
    } else {
      st = cluster_.CreateObject(std::move(object)).status();
    }
    if (!st.ok()) {
      return Log(LogLevel::kWarn, kScenarioLogger,
                 event.path + ": cannot apply " + what + ": " + st.message());
    }
    Log(LogLevel::kInfo, kScenarioLogger, verb + what, "ScenarioEvent",
        {{"action", "apply"}, {"object", what}});
  } else if (const auto* a = std::get_if<InterruptAction>(&event.action)) {
    return Interrupt(*a);
  } else if (const auto* a = std::get_if<UnavailableAction>(&event.action)) {
    return ApplyUnavailable(*a);
  }
  // kubectl's changes reach the workload controllers at once (not after whatever else is due
  // at this instant), so the pods they add or remove are part of the same moment.
  workloads_->Sync();
}

void World::ApplyUnavailable(const UnavailableAction& a) {
  cloud::sim::OfferingRef offering{a.instance_type, a.zone, a.capacity_type};
  core::Time until = Now() + a.duration;
  cloud_->MarkUnavailable(offering, until);
  // The provisioner learns of returning capacity when it next asks; wake it then.
  loop_.At(until, [this] { (void)runtime_->Enqueue(controllers::kProvisionerName, {}); });
  Log(runtime::LogLevel::kInfo, kScenarioLogger,
      "Offering " + offering.String() + " has no capacity for " + core::FormatDuration(a.duration),
      "ScenarioEvent",
      {{"action", "unavailable"},
       {"instanceType", a.instance_type},
       {"zone", a.zone},
       {"capacityType", a.capacity_type},
       {"until", core::FormatRfc3339(until)}});
}

void World::Interrupt(const InterruptAction& action) {
  if (!action.node.empty()) {
    auto node = cluster_.Get<api::Node>("", action.node);
    if (!node.ok()) {
      return Log(runtime::LogLevel::kWarn, kScenarioLogger,
                 "Cannot interrupt node " + action.node + ": no such node");
    }
    InterruptNode(*node, action.kind);
    return;
  }
  std::vector<api::Node> nodes;
  cluster_.ForEachObject(cluster::Kind::kNode, [&](const cluster::Object& o) {
    const auto& node = std::get<api::Node>(o);
    auto it = node.metadata.labels.find(kNodePoolLabel);
    if (it != node.metadata.labels.end() && it->second == action.node_pool &&
        !node.spec.provider_id.empty()) {
      nodes.push_back(node);
    }
  });
  std::stable_sort(nodes.begin(), nodes.end(), [](const api::Node& a, const api::Node& b) {
    auto ta = a.metadata.creation_timestamp.value_or(core::Time{});
    auto tb = b.metadata.creation_timestamp.value_or(core::Time{});
    return ta != tb ? ta < tb : a.metadata.name < b.metadata.name;
  });
  int sent = 0;
  for (const auto& node : nodes) {
    if (sent == action.count) break;
    if (InterruptNode(node, action.kind)) ++sent;
  }
  if (sent < action.count) {
    Log(runtime::LogLevel::kWarn, kScenarioLogger,
        "Interrupted " + std::to_string(sent) + " of the " + std::to_string(action.count) +
            " nodes asked for in nodepool " + action.node_pool);
  }
}

bool World::InterruptNode(const api::Node& node, cloud::sim::InterruptionKind kind) {
  std::string kind_name(cloud::sim::InterruptionKindName(kind));
  core::Status st = cloud_->Interrupt(node.spec.provider_id, kind);
  if (!st.ok()) {
    Log(runtime::LogLevel::kWarn, kScenarioLogger,
        "Cannot interrupt node " + node.metadata.name + " (" + kind_name + "): " + st.message());
    return false;
  }
  const cloud::sim::SimulatedInstance* inst = cloud_->FindInstance(node.spec.provider_id);
  if (invariants_ && inst) {
    // The cloud's own doing from the moment it takes the instance (a spot reclaim at the end of
    // the warning, a stop or a termination now); a scheduled change takes nothing.
    for (const auto& lost : {inst->stopped_time, inst->shutting_down_time, inst->terminated_time}) {
      if (lost) invariants_->NoteInvoluntaryLoss(node.spec.provider_id, *lost);
    }
  }
  // The notice waits in the cloud's queue for the interruption controller, which records the
  // `Interruption` event when it acts; here only the scenario's doing is logged.
  Log(runtime::LogLevel::kInfo, kScenarioLogger,
      "Interruption notice (" + kind_name + ") for node " + node.metadata.name, "ScenarioEvent",
      {{"action", "interrupt"},
       {"node", node.metadata.name},
       {"kind", kind_name},
       {"instanceType", inst ? inst->instance_type : ""},
       {"nodeClaim", inst ? inst->node_claim_name : ""}});
  return true;
}

int World::PendingPods() const {
  int pending = 0;
  cluster_.ForEachObject(cluster::Kind::kPod, [&](const cluster::Object& o) {
    const auto& pod = std::get<api::Pod>(o);
    if (pod.spec.node_name.empty() && api::IsActive(pod)) ++pending;
  });
  return pending;
}

void World::TakeSample() {
  Sample s;
  s.at = Now();
  for (const auto& inst : cloud_->Instances()) {
    if (inst.StateAt(s.at) != cloud::sim::InstanceState::kRunning) continue;
    ++s.nodes[inst.instance_type];
    s.price_per_hour += inst.price_per_hour;
  }
  std::map<std::string, bool> ready;
  double cpu_alloc = 0, mem_alloc = 0, cpu_used = 0, mem_used = 0;
  cluster_.ForEachObject(cluster::Kind::kNode, [&](const cluster::Object& o) {
    const auto& node = std::get<api::Node>(o);
    if (!api::IsNodeReady(node)) return;
    ready[node.metadata.name] = true;
    ++s.ready_nodes;
    cpu_alloc += node.status.allocatable.Get(api::kResourceCpu).AsDouble();
    mem_alloc += node.status.allocatable.Get(api::kResourceMemory).AsDouble();
  });
  cluster_.ForEachObject(cluster::Kind::kPod, [&](const cluster::Object& o) {
    const auto& pod = std::get<api::Pod>(o);
    if (!api::IsActive(pod)) return;
    if (pod.spec.node_name.empty()) {
      ++s.pending_pods;
      return;
    }
    if (!ready.count(pod.spec.node_name)) return;
    auto it = cpu_memory_requests_.find(pod.metadata.uid);
    if (it == cpu_memory_requests_.end()) {
      api::ResourceList requests = scheduling::PodRequests(pod);
      it = cpu_memory_requests_
               .emplace(pod.metadata.uid,
                        std::make_pair(requests.Get(api::kResourceCpu).AsDouble(),
                                       requests.Get(api::kResourceMemory).AsDouble()))
               .first;
    }
    cpu_used += it->second.first;
    mem_used += it->second.second;
  });
  s.cpu_utilization = cpu_alloc > 0 ? cpu_used / cpu_alloc : 0;
  s.memory_utilization = mem_alloc > 0 ? mem_used / mem_alloc : 0;
  samples_.push_back(std::move(s));
}

nlohmann::ordered_json World::Result(bool include_log) const {
  using json = nlohmann::ordered_json;
  json out;
  out["kind"] = "SimulationResult";
  out["scenario"] = scenario_.name;
  out["start"] = core::FormatRfc3339(start());
  out["durationSeconds"] = static_cast<double>(scenario_.duration.count()) / 1e9;
  out["sampleIntervalSeconds"] = static_cast<double>(scenario_.sample_interval.count()) / 1e9;
  out["events"] = TimelineEventsJson(timeline_);
  out["samples"] = json::array();
  double cpu_sum = 0, mem_sum = 0;
  int utilised = 0;
  for (const auto& s : samples_) {
    json nodes = json::object();
    for (const auto& [type, n] : s.nodes) nodes[type] = n;
    out["samples"].push_back({{"t", static_cast<double>((s.at - start()).count()) / 1e9},
                              {"nodes", nodes},
                              {"pendingPods", s.pending_pods},
                              {"pricePerHour", Round(s.price_per_hour)},
                              {"cpuUtilization", Round(s.cpu_utilization, 1e6)},
                              {"memoryUtilization", Round(s.memory_utilization, 1e6)}});
    if (s.ready_nodes > 0) {
      cpu_sum += s.cpu_utilization;
      mem_sum += s.memory_utilization;
      ++utilised;
    }
  }
  core::Time now = Now();
  int launched = 0, terminated = 0;
  for (const auto& inst : cloud_->Instances()) {
    ++launched;
    if (inst.terminated_time && *inst.terminated_time <= now) ++terminated;
  }
  std::vector<double> latencies = kubelets_->start_latencies();
  std::sort(latencies.begin(), latencies.end());
  out["summary"] = {
      {"nodesLaunched", launched},
      {"nodesTerminated", terminated},
      {"cost", Round(cloud_->CostSoFar(now), 1e6)},
      {"nodeHours", Round(cloud_->NodeHours(now), 1e6)},
      {"podStartLatencySeconds",
       {{"p50", Round(Percentile(latencies, 50), 1e3)},
        {"p99", Round(Percentile(latencies, 99), 1e3)}}},
      {"podsStarted", latencies.size()},
      {"avgCpuUtilization", utilised ? Round(cpu_sum / utilised, 1e6) : 0.0},
      {"avgMemoryUtilization", utilised ? Round(mem_sum / utilised, 1e6) : 0.0},
      {"unschedulablePods", PendingPods()},
  };
  // What disruption decided: how often, and what the decisions said they save per hour.
  int decisions = 0;
  double savings = 0;
  for (const auto& e : timeline_.OfType("DisruptionDecision")) {
    ++decisions;
    std::string per_hour = Timeline::Field(e.event, "savingsPerHour");
    char* end = nullptr;
    double v = per_hour.empty() ? 0 : std::strtod(per_hour.c_str(), &end);
    if (end != nullptr && *end == '\0' && std::isfinite(v)) savings += v;
  }
  out["summary"]["disruptionDecisions"] = decisions;
  out["summary"]["disruptionSavingsPerHour"] = Round(savings, 1e6);
  out["summary"]["interruptions"] = timeline_.OfType("Interruption").size();
  if (invariants_) out["summary"]["invariantViolations"] = invariants_->violations().size();
  if (include_log) {
    out["log"] = json::array();
    for (const auto& e : timeline_.events()) {
      out["log"].push_back({{"t", static_cast<double>((e.at - start()).count()) / 1e9},
                            {"level", LogLevelName(e.event.level)},
                            {"logger", e.event.logger},
                            {"message", e.event.message}});
    }
  }
  return out;
}

void World::WriteLog(std::ostream& out) const {
  for (const auto& e : timeline_.events()) out << FormatLogLine(e) << "\n";
  nlohmann::ordered_json summary = Result(false)["summary"];
  out << FormatLogTime(Now()) << " INFO " << kScenarioLogger << " Finished scenario "
      << scenario_.name << " " << summary.dump() << "\n";
}

}  // namespace nodesmith::sim
