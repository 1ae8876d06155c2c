#include "operator/options.h"

#include <cctype>
#include <cerrno>
#include <cstdlib>
#include <vector>

namespace nodesmith::op {

namespace {

enum class Type { kString, kInt, kInt64, kBool, kDuration, kFloat };

// One setting: its environment variable, its flag, and where the value goes.
struct Spec {
  const char* env;
  const char* flag;
  Type type;
  const char* help;
  // Exactly one of these is set, matching `type`.
  std::string Options::*str = nullptr;
  int Options::*i32 = nullptr;
  int64_t Options::*i64 = nullptr;
  bool Options::*boolean = nullptr;
  core::Duration Options::*duration = nullptr;
  double Options::*real = nullptr;
};

Spec S(const char* env, const char* flag, std::string Options::*f, const char* help) {
  Spec s{env, flag, Type::kString, help};
  s.str = f;
  return s;
}
Spec I(const char* env, const char* flag, int Options::*f, const char* help) {
  Spec s{env, flag, Type::kInt, help};
  s.i32 = f;
  return s;
}
Spec L(const char* env, const char* flag, int64_t Options::*f, const char* help) {
  Spec s{env, flag, Type::kInt64, help};
  s.i64 = f;
  return s;
}
Spec B(const char* env, const char* flag, bool Options::*f, const char* help) {
  Spec s{env, flag, Type::kBool, help};
  s.boolean = f;
  return s;
}
Spec D(const char* env, const char* flag, core::Duration Options::*f, const char* help) {
  Spec s{env, flag, Type::kDuration, help};
  s.duration = f;
  return s;
}
Spec F(const char* env, const char* flag, double Options::*f, const char* help) {
  Spec s{env, flag, Type::kFloat, help};
  s.real = f;
  return s;
}

const std::vector<Spec>& Specs() {
  static const std::vector<Spec> specs = {
      I("METRICS_PORT", "metrics-port", &Options::metrics_port,
        "The port /metrics is served on"),
      I("HEALTH_PROBE_PORT", "health-probe-port", &Options::health_probe_port,
        "The port /healthz and /readyz are served on"),
      I("KUBE_CLIENT_QPS", "kube-client-qps", &Options::kube_client_qps,
        "The smoothed rate of requests to kube-apiserver"),
      I("KUBE_CLIENT_BURST", "kube-client-burst", &Options::kube_client_burst,
        "The largest burst of requests to kube-apiserver"),
      B("ENABLE_PROFILING", "enable-profiling", &Options::enable_profiling,
        "Accepted for compatibility; nodesmith serves no profiling endpoint"),
      B("DISABLE_CONTROLLER_WARMUP", "disable-controller-warmup",
        &Options::disable_controller_warmup, "Accepted for compatibility"),
      B("DISABLE_LEADER_ELECTION", "disable-leader-election", &Options::disable_leader_election,
        "Run the controllers without electing a leader (a single replica)"),
      B("DISABLE_CLUSTER_STATE_OBSERVABILITY", "disable-cluster-state-observability",
        &Options::disable_cluster_state_observability, "Do not export cluster state metrics"),
      S("LEADER_ELECTION_NAME", "leader-election-name", &Options::leader_election_name,
        "The Lease the replicas elect a leader on"),
      S("LEADER_ELECTION_NAMESPACE", "leader-election-namespace",
        &Options::leader_election_namespace, "The Lease's namespace (default: the pod's)"),
      L("MEMORY_LIMIT", "memory-limit", &Options::memory_limit,
        "The container's memory limit in bytes (-1: none)"),
      L("CPU_REQUESTS", "cpu-requests", &Options::cpu_requests,
        "The container's CPU requests in millicores"),
      S("LOG_LEVEL", "log-level", &Options::log_level, "debug, info or error"),
      S("LOG_OUTPUT_PATHS", "log-output-paths", &Options::log_output_paths,
        "Comma-separated paths (stdout, stderr or files) the log goes to"),
      S("LOG_ERROR_OUTPUT_PATHS", "log-error-output-paths", &Options::log_error_output_paths,
        "Comma-separated paths the log's errors also go to"),
      D("BATCH_MAX_DURATION", "batch-max-duration", &Options::batch_max_duration,
        "The longest a batch of pending pods stays open"),
      D("BATCH_IDLE_DURATION", "batch-idle-duration", &Options::batch_idle_duration,
        "A batch closes when no pending pod arrived for this long"),
      S("PREFERENCE_POLICY", "preference-policy", &Options::preference_policy,
        "Respect or Ignore scheduling preferences"),
      S("MIN_VALUES_POLICY", "min-values-policy", &Options::min_values_policy,
        "Strict or BestEffort minValues"),
      B("IGNORE_DRA_REQUESTS", "ignore-dra-requests", &Options::ignore_dra_requests,
        "Ignore pods' DRA requests when simulating scheduling"),
      S("FEATURE_GATES", "feature-gates", &Options::feature_gates_text,
        "Karpenter's feature gates, e.g. SpotToSpotConsolidation=true"),
      S("CLUSTER_NAME", "cluster-name", &Options::cluster_name,
        "The cluster's name (required with the aws provider)"),
      S("CLUSTER_ENDPOINT", "cluster-endpoint", &Options::cluster_endpoint,
        "The API server's URL nodes join (default: discovered)"),
      S("CLUSTER_CA_BUNDLE", "cluster-ca-bundle", &Options::cluster_ca_bundle,
        "The cluster's CA bundle, base64 (default: discovered)"),
      B("ISOLATED_VPC", "isolated-vpc", &Options::isolated_vpc,
        "The VPC has no internet access: do not call the pricing API"),
      F("VM_MEMORY_OVERHEAD_PERCENT", "vm-memory-overhead-percent",
        &Options::vm_memory_overhead_percent,
        "The share of an instance's memory its hypervisor keeps"),
      S("INTERRUPTION_QUEUE", "interruption-queue", &Options::interruption_queue,
        "The SQS queue of interruption events (empty: none)"),
      I("RESERVED_ENIS", "reserved-enis", &Options::reserved_enis,
        "ENIs left out of the max-pods computation"),
      B("DISABLE_DRY_RUN", "disable-dry-run", &Options::disable_dry_run,
        "Skip the EC2 dry-run permission checks at start"),
      D("AMI_REFRESH_INTERVAL", "ami-refresh-interval", &Options::ami_refresh_interval,
        "How often AMIs are resolved again (at least 1m)"),
      D("SUBNET_REFRESH_INTERVAL", "subnet-refresh-interval", &Options::subnet_refresh_interval,
        "How often subnets are resolved again (at least 1m)"),
      S("AWS_REGION", "aws-region", &Options::aws_region,
        "The AWS region (default: from instance metadata)"),
      S("CLOUD_PROVIDER", "cloud-provider", &Options::cloud_provider,
        "aws, or kwok to create Node objects for a laptop cluster run with kwok"),
      S("CATALOG", "catalog", &Options::catalog,
        "The instance types: aws-live (aws's default: the account's own, read again every 12 h), "
        "aws (the built-in table), kwok (kwok's default) or an InstanceTypeCatalog file"),
  };
  return specs;
}

core::Status Invalid(const Spec& spec, const std::string& value, const std::string& why) {
  return core::Status::Invalid("invalid " + std::string(spec.env) + " (--" + spec.flag + ") \"" +
                               value + "\": " + why);
}

// Go's strconv.ParseBool.
std::optional<bool> ParseBool(const std::string& v) {
  for (const char* t : {"1", "t", "T", "TRUE", "true", "True"}) {
    if (v == t) return true;
  }
  for (const char* f : {"0", "f", "F", "FALSE", "false", "False"}) {
    if (v == f) return false;
  }
  return std::nullopt;
}

std::optional<int64_t> ParseInt(const std::string& v) {
  if (v.empty()) return std::nullopt;
  errno = 0;
  char* end = nullptr;
  const long long n = std::strtoll(v.c_str(), &end, 10);
  if (errno != 0 || end != v.c_str() + v.size()) return std::nullopt;
  return n;
}

core::Status Assign(const Spec& spec, const std::string& value, Options* o) {
  switch (spec.type) {
    case Type::kString:
      o->*spec.str = value;
      return core::Status::Ok();
    case Type::kBool: {
      auto b = ParseBool(value);
      if (!b) return Invalid(spec, value, "must be true or false");
      o->*spec.boolean = *b;
      return core::Status::Ok();
    }
    case Type::kInt: {
      auto n = ParseInt(value);
      if (!n || *n < INT32_MIN || *n > INT32_MAX) return Invalid(spec, value, "must be an integer");
      o->*spec.i32 = static_cast<int>(*n);
      return core::Status::Ok();
    }
    case Type::kInt64: {
      auto n = ParseInt(value);
      if (!n) return Invalid(spec, value, "must be an integer");
      o->*spec.i64 = *n;
      return core::Status::Ok();
    }
    case Type::kFloat: {
      errno = 0;
      char* end = nullptr;
      const double d = std::strtod(value.c_str(), &end);
      if (value.empty() || errno != 0 || end != value.c_str() + value.size()) {
        return Invalid(spec, value, "must be a number");
      }
      o->*spec.real = d;
      return core::Status::Ok();
    }
    case Type::kDuration: {
      auto d = core::ParseDuration(value);
      if (!d.ok()) return Invalid(spec, value, "must be a duration such as 10s or 1m30s");
      o->*spec.duration = *d;
      return core::Status::Ok();
    }
  }
  return core::Status::Ok();
}

const Spec* Find(const char* env) {
  for (const Spec& s : Specs()) {
    if (std::string(s.env) == env) return &s;
  }
  return nullptr;
}

std::string Raw(const RawOptions& raw, const Environment& env, const char* name,
                const std::string& fallback) {
  auto it = raw.values.find(name);
  if (it != raw.values.end() && it->second) return *it->second;
  if (auto v = env(name)) return *v;
  return fallback;
}

core::Status Validate(Options& o, const RawOptions& raw, const Environment& env) {
  auto value_of = [&](const char* name, const std::string& current) {
    return Raw(raw, env, name, current);
  };
  auto port = [&](const char* name, int p) -> core::Status {
    if (p < 0 || p > 65535) {
      return Invalid(*Find(name), value_of(name, std::to_string(p)),
                     "must be a port, 0-65535 (0: any free port)");
    }
    return core::Status::Ok();
  };
  if (auto s = port("METRICS_PORT", o.metrics_port); !s.ok()) return s;
  if (auto s = port("HEALTH_PROBE_PORT", o.health_probe_port); !s.ok()) return s;
  if (o.metrics_port == o.health_probe_port && o.metrics_port != 0) {
    return Invalid(*Find("HEALTH_PROBE_PORT"), std::to_string(o.health_probe_port),
                   "must differ from METRICS_PORT");
  }
  if (o.kube_client_qps <= 0) {
    return Invalid(*Find("KUBE_CLIENT_QPS"), std::to_string(o.kube_client_qps), "must be > 0");
  }
  if (o.kube_client_burst <= 0) {
    return Invalid(*Find("KUBE_CLIENT_BURST"), std::to_string(o.kube_client_burst),
                   "must be > 0");
  }
  if (o.log_level != "debug" && o.log_level != "info" && o.log_level != "error") {
    return Invalid(*Find("LOG_LEVEL"), o.log_level, "must be one of debug, info, error");
  }
  if (o.preference_policy != "Respect" && o.preference_policy != "Ignore") {
    return Invalid(*Find("PREFERENCE_POLICY"), o.preference_policy,
                   "must be one of Respect, Ignore");
  }
  if (o.min_values_policy != "Strict" && o.min_values_policy != "BestEffort") {
    return Invalid(*Find("MIN_VALUES_POLICY"), o.min_values_policy,
                   "must be one of Strict, BestEffort");
  }
  if (o.cpu_requests <= 0) o.cpu_requests = 1000;  // as Karpenter
  for (const auto& [name, d] : {std::pair{"BATCH_MAX_DURATION", o.batch_max_duration},
                                 std::pair{"BATCH_IDLE_DURATION", o.batch_idle_duration}}) {
    if (d < core::Duration::zero()) {
      return Invalid(*Find(name), value_of(name, core::FormatDuration(d)), "must not be negative");
    }
  }
  auto gates = controllers::ParseFeatureGates(o.feature_gates_text);
  if (!gates.ok()) {
    std::string why = gates.status().message();
    if (why.rfind("--feature-gates: ", 0) == 0) why = why.substr(17);
    return Invalid(*Find("FEATURE_GATES"), o.feature_gates_text, why);
  }
  o.feature_gates = *gates;
  if (o.cloud_provider != "aws" && o.cloud_provider != "kwok") {
    return Invalid(*Find("CLOUD_PROVIDER"), o.cloud_provider, "must be one of aws, kwok");
  }
  if (o.vm_memory_overhead_percent < 0) {
    return Invalid(*Find("VM_MEMORY_OVERHEAD_PERCENT"),
                   value_of("VM_MEMORY_OVERHEAD_PERCENT", ""), "must be >= 0");
  }
  if (o.reserved_enis < 0) {
    return Invalid(*Find("RESERVED_ENIS"), std::to_string(o.reserved_enis), "must be >= 0");
  }
  for (const auto& [name, d] : {std::pair{"AMI_REFRESH_INTERVAL", o.ami_refresh_interval},
                                 std::pair{"SUBNET_REFRESH_INTERVAL", o.subnet_refresh_interval}}) {
    if (d < std::chrono::minutes(1)) {
      return Invalid(*Find(name), value_of(name, core::FormatDuration(d)), "must be at least 1m");
    }
  }
  if (o.cloud_provider == "aws" && o.cluster_name.empty()) {
    return core::Status::Invalid(
        "CLUSTER_NAME (--cluster-name) is required with the aws cloud provider");
  }
  return core::Status::Ok();
}

}  // namespace

void AddOptionFlags(CLI::App* app, RawOptions* raw) {
  for (const Spec& spec : Specs()) {
    auto& slot = raw->values[spec.env];
    app->add_option_function<std::string>(
           std::string("--") + spec.flag, [&slot](const std::string& v) { slot = v; },
           std::string(spec.help) + " [env " + spec.env + "]")
        ->type_name("VALUE");
  }
  app->add_flag("--dry-run", raw->dry_run_flag,
                "Shadow mode: watch, decide, log and export decisions; write nothing but the "
                "leader Lease [env DRY_RUN]");
  app->add_option_function<std::string>(
      "--kubeconfig", [raw](const std::string& v) { raw->values["--kubeconfig"] = v; },
      "The kubeconfig to use outside a cluster (default: in-cluster, then KUBECONFIG, then "
      "~/.kube/config)");
  app->add_option_function<std::string>(
      "--context", [raw](const std::string& v) { raw->values["--context"] = v; },
      "The kubeconfig context to use");
}

Environment ProcessEnvironment() {
  return [](const std::string& name) -> std::optional<std::string> {
    const char* v = std::getenv(name.c_str());
    if (v == nullptr) return std::nullopt;
    return std::string(v);
  };
}

core::Result<Options> ResolveOptions(const RawOptions& raw, const Environment& env) {
  Options o;
  for (const Spec& spec : Specs()) {
    std::optional<std::string> value;
    if (auto it = raw.values.find(spec.env); it != raw.values.end() && it->second) {
      value = it->second;
    } else {
      value = env(spec.env);
    }
    if (!value) continue;
    if (auto s = Assign(spec, *value, &o); !s.ok()) return s;
  }
  if (raw.dry_run_flag) {
    o.dry_run = true;
  } else if (auto v = env("DRY_RUN")) {
    auto b = ParseBool(*v);
    if (!b) return core::Status::Invalid("invalid DRY_RUN (--dry-run) \"" + *v +
                                         "\": must be true or false");
    o.dry_run = *b;
  }
  if (auto it = raw.values.find("--kubeconfig"); it != raw.values.end() && it->second) {
    o.kubeconfig = *it->second;
  }
  if (auto it = raw.values.find("--context"); it != raw.values.end() && it->second) {
    o.context = *it->second;
  }
  if (auto s = Validate(o, raw, env); !s.ok()) return s;
  return o;
}

}  // namespace nodesmith::op
