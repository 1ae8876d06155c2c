#include "sim/scenario.h"

#include <cmath>
#include <set>

#include <nlohmann/json.hpp>

#include "api/manifest.h"
#include "sim/scenario_limits.h"

namespace nodesmith::sim {
namespace {

using Json = nlohmann::ordered_json;

// Reads one JSON object field by field, remembering the first error with its field path, so
// DecodeScenario reads straight through and reports once.
class Fields {
 public:
  Fields(const Json& object, std::string path, std::string* error)
      : object_(object), path_(std::move(path)), error_(error) {
    if (!object_.is_object()) Fail(path_, "expected a mapping");
  }

  bool ok() const { return error_->empty(); }
  const std::string& path() const { return path_; }
  std::string PathOf(const std::string& key) const {
    return path_.empty() ? key : path_ + "." + key;
  }
  bool Has(const char* key) const {
    return object_.is_object() && object_.contains(key) && !object_[key].is_null();
  }
  const Json& Get(const char* key) const { return object_[key]; }
  void Fail(const std::string& path, const std::string& message) const {
    if (error_->empty()) *error_ = path + ": " + message;
  }
  // Fails on a key outside `known` (a typo would otherwise silently do nothing).
  void OnlyKeys(std::initializer_list<const char*> known) const {
    if (!ok() || !object_.is_object()) return;
    for (const auto& [key, value] : object_.items()) {
      bool found = false;
      for (const char* k : known) found = found || key == k;
      if (!found) return Fail(PathOf(key), "unknown field");
    }
  }

  void Str(const char* key, std::string* out, bool required) const {
    if (!ok()) return;
    if (!Has(key)) {
      if (required) Fail(PathOf(key), "required");
      return;
    }
    const Json& v = Get(key);
    if (!v.is_string() || v.get<std::string>().empty()) {
      return Fail(PathOf(key), "expected a non-empty string");
    }
    *out = v.get<std::string>();
  }
  void Int(const char* key, int* out, bool required, int min) const {
    if (!ok()) return;
    if (!Has(key)) {
      if (required) Fail(PathOf(key), "required");
      return;
    }
    const Json& v = Get(key);
    if (!v.is_number_integer()) return Fail(PathOf(key), "expected an integer");
    int64_t n = v.get<int64_t>();
    if (n < min) return Fail(PathOf(key), "must be >= " + std::to_string(min));
    if (n > 1000000) return Fail(PathOf(key), "must be <= 1000000");
    *out = static_cast<int>(n);
  }
  // A Go duration ("45m", "1.5s"), or a number of seconds. Negative durations are refused;
  // zero only when `allow_zero`.
  void Duration(const char* key, core::Duration* out, bool required, bool allow_zero) const {
    if (!ok()) return;
    if (!Has(key)) {
      if (required) Fail(PathOf(key), "required");
      return;
    }
    const Json& v = Get(key);
    core::Duration d{0};
    if (v.is_number()) {
      // Converting a double beyond int64 nanoseconds (about 292 years) is undefined.
      const double seconds = v.get<double>();
      if (!(std::fabs(seconds) < 9.2e9)) return Fail(PathOf(key), "out of range");
      d = core::Duration(static_cast<int64_t>(seconds * 1e9));
    } else if (v.is_string()) {
      auto parsed = core::ParseDuration(v.get<std::string>());
      if (!parsed.ok()) return Fail(PathOf(key), parsed.status().message());
      d = *parsed;
    } else {
      return Fail(PathOf(key), "expected a duration such as 30s or 45m");
    }
    if (d < core::Duration(0)) return Fail(PathOf(key), "must not be negative");
    if (d == core::Duration(0) && !allow_zero) return Fail(PathOf(key), "must be more than 0s");
    *out = d;
  }
  template <typename F>
  void Object(const char* key, F fn) const {
    if (!ok() || !Has(key)) return;
    Fields child(Get(key), PathOf(key), error_);
    if (child.ok()) fn(child);
  }

 private:
  const Json& object_;
  std::string path_;
  std::string* error_;
};

bool IsWorkloadKind(const std::string& kind) {
  return kind == "Deployment" || kind == "ReplicaSet" || kind == "StatefulSet" || kind == "Job";
}

// The cluster kind named `kind` as a user writes it, or nullopt.
std::optional<cluster::Kind> ClusterKindNamed(const std::string& kind) {
  for (int i = 0; i < cluster::kKindCount; ++i) {
    auto k = static_cast<cluster::Kind>(i);
    if (k != cluster::Kind::kReplicatedWorkload && kind == cluster::KindName(k)) return k;
  }
  if (kind == "Deployment" || kind == "ReplicaSet" || kind == "StatefulSet") {
    return cluster::Kind::kReplicatedWorkload;
  }
  return std::nullopt;
}

// The single object `set` holds, as a cluster object; nullopt when it holds none or a kind the
// cluster does not keep.
std::optional<cluster::Object> OnlyObject(api::ObjectSet& set) {
  if (!set.pods.empty()) return cluster::Object(std::move(set.pods[0].object));
  if (!set.nodes.empty()) return cluster::Object(std::move(set.nodes[0].object));
  if (!set.node_claims.empty()) return cluster::Object(std::move(set.node_claims[0].object));
  if (!set.node_pools.empty()) return cluster::Object(std::move(set.node_pools[0].object));
  if (!set.ec2_node_classes.empty()) return cluster::Object(std::move(set.ec2_node_classes[0].object));
  if (!set.replicated_workloads.empty()) {
    return cluster::Object(std::move(set.replicated_workloads[0].object));
  }
  if (!set.daemon_sets.empty()) return cluster::Object(std::move(set.daemon_sets[0].object));
  if (!set.jobs.empty()) return cluster::Object(std::move(set.jobs[0].object));
  if (!set.pod_disruption_budgets.empty()) {
    return cluster::Object(std::move(set.pod_disruption_budgets[0].object));
  }
  if (!set.persistent_volume_claims.empty()) {
    return cluster::Object(std::move(set.persistent_volume_claims[0].object));
  }
  if (!set.persistent_volumes.empty()) {
    return cluster::Object(std::move(set.persistent_volumes[0].object));
  }
  if (!set.storage_classes.empty()) return cluster::Object(std::move(set.storage_classes[0].object));
  return std::nullopt;
}

void DecodeApply(const Fields& event, const std::string& prefix, ScenarioEvent* out) {
  const Json& doc = event.Get("apply");
  std::string path = event.PathOf("apply");
  if (!doc.is_object()) return event.Fail(path, "expected a Kubernetes object");
  api::Sourced<Json> sourced;
  sourced.object = doc;
  sourced.source.file = prefix + ": " + path;
  if (doc.contains("kind") && doc["kind"].is_string()) sourced.source.kind = doc["kind"];
  if (doc.contains("metadata") && doc["metadata"].is_object() && doc["metadata"].contains("name") &&
      doc["metadata"]["name"].is_string()) {
    sourced.source.name = doc["metadata"]["name"];
  }
  api::ObjectSet set;
  core::Status st = api::AddDocument(sourced, &set);
  if (!st.ok()) {
    // AddDocument's message already names the scenario, the event and the field.
    return event.Fail("", st.message());
  }
  auto object = OnlyObject(set);
  if (!object) {
    return event.Fail(path, "kind " + sourced.source.kind +
                                " cannot be applied to the simulated cluster");
  }
  out->action = ApplyAction{std::move(*object)};
}

void DecodeEvent(const Fields& e, const std::string& prefix, ScenarioEvent* out) {
  e.OnlyKeys({"at", "scale", "delete", "apply", "interrupt", "unavailable"});
  e.Duration("at", &out->at, /*required=*/true, /*allow_zero=*/true);
  int actions = 0;
  for (const char* k : {"scale", "delete", "apply", "interrupt", "unavailable"}) actions += e.Has(k);
  if (e.ok() && actions != 1) {
    return e.Fail(e.path(), "needs exactly one of scale, delete, apply, interrupt, unavailable");
  }
  e.Object("scale", [&](const Fields& f) {
    ScaleAction a;
    f.OnlyKeys({"kind", "name", "namespace", "replicas"});
    f.Str("kind", &a.kind, true);
    f.Str("name", &a.name, true);
    f.Str("namespace", &a.namespace_, false);
    f.Int("replicas", &a.replicas, true, 0);
    if (f.ok() && !IsWorkloadKind(a.kind)) {
      f.Fail(f.PathOf("kind"), "must be Deployment, ReplicaSet, StatefulSet or Job");
    }
    out->action = a;
  });
  e.Object("delete", [&](const Fields& f) {
    DeleteAction a;
    f.OnlyKeys({"kind", "name", "namespace"});
    f.Str("kind", &a.kind, true);
    f.Str("name", &a.name, true);
    f.Str("namespace", &a.namespace_, false);
    if (f.ok() && !ClusterKindNamed(a.kind)) f.Fail(f.PathOf("kind"), "unknown kind " + a.kind);
    out->action = a;
  });
  if (e.ok() && e.Has("apply")) DecodeApply(e, prefix, out);
  e.Object("interrupt", [&](const Fields& f) {
    InterruptAction a;
    f.OnlyKeys({"node", "nodePool", "count", "type"});
    f.Str("node", &a.node, false);
    f.Str("nodePool", &a.node_pool, false);
    f.Int("count", &a.count, false, 1);
    std::string type = "spot";
    f.Str("type", &type, false);
    if (!f.ok()) return;
    if (a.node.empty() == a.node_pool.empty()) {
      return f.Fail(f.path(), "needs exactly one of node and nodePool");
    }
    if (!a.node.empty() && f.Has("count")) {
      return f.Fail(f.PathOf("count"), "only applies with nodePool");
    }
    auto kind = cloud::sim::ParseInterruptionKind(type);
    if (!kind) {
      return f.Fail(f.PathOf("type"), "must be spot, scheduledChange, stopping or terminated, not " +
                                          type);
    }
    a.kind = *kind;
    out->action = a;
  });
  e.Object("unavailable", [&](const Fields& f) {
    UnavailableAction a;
    f.OnlyKeys({"instanceType", "zone", "capacityType", "for"});
    f.Str("instanceType", &a.instance_type, true);
    f.Str("zone", &a.zone, true);
    f.Str("capacityType", &a.capacity_type, true);
    f.Duration("for", &a.duration, true, false);
    if (f.ok() && a.capacity_type != "spot" && a.capacity_type != "on-demand" &&
        a.capacity_type != "reserved") {
      f.Fail(f.PathOf("capacityType"), "must be spot, on-demand or reserved");
    }
    out->action = a;
  });
}

}  // namespace

core::Result<Scenario> DecodeScenario(const api::Sourced<nlohmann::ordered_json>& doc) {
  Scenario s;
  s.source = api::DescribeSource(doc.source);
  const Json& obj = doc.object;
  if (obj.contains("metadata") && obj["metadata"].is_object() && obj["metadata"].contains("name") &&
      obj["metadata"]["name"].is_string()) {
    s.name = obj["metadata"]["name"];
  }
  static const Json kEmpty = Json::object();
  const Json& spec = obj.contains("spec") ? obj["spec"] : kEmpty;
  std::string error;
  Fields f(spec, "spec", &error);
  f.OnlyKeys({"start", "duration", "sampleInterval", "cloud", "settings", "events"});
  std::string start = kDefaultScenarioStart;
  f.Str("start", &start, false);
  if (f.ok()) {
    auto t = core::ParseRfc3339(start);
    if (!t.ok()) {
      f.Fail(f.PathOf("start"), t.status().message());
    } else {
      s.start = *t;
    }
  }
  f.Duration("duration", &s.duration, true, false);
  if (f.ok() && s.duration > kMaxScenarioDuration) {
    f.Fail(f.PathOf("duration"), core::FormatDuration(s.duration) + " is longer than the limit of " +
                                     core::FormatDuration(kMaxScenarioDuration));
  }
  f.Duration("sampleInterval", &s.sample_interval, false, false);
  if (f.ok() && s.duration / s.sample_interval + 1 > kMaxScenarioSamples) {
    // duration / interval + 1 <= max holds exactly when interval > duration / max.
    const core::Duration shortest = s.duration / kMaxScenarioSamples + core::Duration(1);
    f.Fail(f.PathOf("sampleInterval"),
           core::FormatDuration(s.sample_interval) + " over spec.duration " +
               core::FormatDuration(s.duration) + " means " +
               std::to_string(s.duration / s.sample_interval + 1) + " samples, more than the limit of " +
               std::to_string(kMaxScenarioSamples) + " (make it at least " +
               core::FormatDuration(shortest) + ")");
  }
  f.Object("cloud", [&](const Fields& c) {
    c.OnlyKeys({"launchLatency", "registrationDelay", "readyDelay", "terminationLatency",
                "spotInterruptionWarning"});
    c.Duration("launchLatency", &s.cloud.launch_latency, false, true);
    c.Duration("registrationDelay", &s.cloud.registration_delay, false, true);
    c.Duration("readyDelay", &s.cloud.ready_delay, false, true);
    c.Duration("terminationLatency", &s.cloud.termination_latency, false, true);
    c.Duration("spotInterruptionWarning", &s.cloud.spot_interruption_warning, false, true);
  });
  f.Object("settings", [&](const Fields& c) {
    c.OnlyKeys({"batchIdleDuration", "batchMaxDuration"});
    c.Duration("batchIdleDuration", &s.settings.batch_idle_duration, false, false);
    c.Duration("batchMaxDuration", &s.settings.batch_max_duration, false, false);
    if (c.ok() && s.settings.batch_max_duration < s.settings.batch_idle_duration) {
      c.Fail(c.PathOf("batchMaxDuration"), "must not be shorter than batchIdleDuration");
    }
  });
  if (f.ok() && f.Has("events")) {
    const Json& events = f.Get("events");
    if (!events.is_array()) {
      f.Fail(f.PathOf("events"), "expected a list");
    } else if (events.size() > kMaxScenarioEvents) {
      f.Fail(f.PathOf("events"), std::to_string(events.size()) + " events, more than the limit of " +
                                     std::to_string(kMaxScenarioEvents));
    } else {
      for (size_t i = 0; i < events.size() && f.ok(); ++i) {
        ScenarioEvent event;
        event.path = f.PathOf("events") + "[" + std::to_string(i) + "]";
        Fields e(events[i], event.path, &error);
        if (e.ok()) DecodeEvent(e, s.source, &event);
        if (e.ok() && event.at > s.duration) {
          e.Fail(e.PathOf("at"), core::FormatDuration(event.at) + " is after spec.duration (" +
                                     core::FormatDuration(s.duration) + ")");
        }
        s.events.push_back(std::move(event));
      }
    }
  }
  if (!error.empty()) {
    // An apply event's own message is already complete (it names the scenario first).
    if (error.rfind(": ", 0) == 0) return core::Status::Invalid(error.substr(2));
    return core::Status::Invalid(s.source + ": " + error);
  }
  return s;
}

core::Result<Scenario> ScenarioFromInputs(const api::ObjectSet& inputs) {
  if (inputs.scenarios.empty()) {
    return core::Status::Invalid(
        "no Scenario among the inputs: simulate needs one nodesmith.dev/v1alpha1 Scenario document");
  }
  if (inputs.scenarios.size() > 1) {
    return core::Status::Invalid(api::DescribeSource(inputs.scenarios[1].source) +
                                 ": only one Scenario may be given; the first is " +
                                 api::DescribeSource(inputs.scenarios[0].source));
  }
  core::Result<Scenario> scenario = DecodeScenario(inputs.scenarios[0]);
  if (!scenario.ok()) return scenario;
  NS_RETURN_IF_ERROR(CheckScenarioPods(*scenario, inputs));
  return scenario;
}

}  // namespace nodesmith::sim
