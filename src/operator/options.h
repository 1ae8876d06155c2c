// Options: `nodesmith controller`'s configuration, read as Karpenter reads its own — each setting
// an environment variable (the Helm chart sets them) and a --kebab-case flag, the flag winning —
// with Karpenter's names, defaults and validation (operator.md). The chart leaves false and empty
// settings out, so every default here is Karpenter's.
//
// Usage:
//   RawOptions raw;
//   AddOptionFlags(app, &raw);           // registers the flags on the CLI11 subcommand
//   ... app.parse(argc, argv) ...
//   Result<Options> options = ResolveOptions(raw, ProcessEnvironment());
// A bad value is one InvalidArgument line naming the variable and its flag, e.g.
//   invalid LOG_LEVEL (--log-level) "verbose": must be one of debug, info, error
#pragma once

#include <cstdint>
#include <functional>
#include <map>
#include <optional>
#include <string>

#include <CLI/CLI.hpp>

#include "controllers/feature_gates.h"
#include "core/duration.h"
#include "core/status.h"

namespace nodesmith::op {

struct Options {
  // --- Karpenter core (sigs.k8s.io/karpenter pkg/operator/options) ---
  int metrics_port = 8080;        // METRICS_PORT
  int health_probe_port = 8081;   // HEALTH_PROBE_PORT
  int kube_client_qps = 200;      // KUBE_CLIENT_QPS
  int kube_client_burst = 300;    // KUBE_CLIENT_BURST
  bool enable_profiling = false;  // ENABLE_PROFILING (accepted; nodesmith serves no pprof)
  bool disable_controller_warmup = true;             // DISABLE_CONTROLLER_WARMUP
  bool disable_leader_election = false;              // DISABLE_LEADER_ELECTION
  bool disable_cluster_state_observability = false;  // DISABLE_CLUSTER_STATE_OBSERVABILITY
  std::string leader_election_name = "karpenter-leader-election";  // LEADER_ELECTION_NAME
  std::string leader_election_namespace;  // LEADER_ELECTION_NAMESPACE; "": the pod's namespace
  int64_t memory_limit = -1;              // MEMORY_LIMIT, bytes; -1 none
  int64_t cpu_requests = 1000;            // CPU_REQUESTS, millicores (<= 0 means 1000)
  std::string log_level = "info";         // LOG_LEVEL: debug|info|error
  std::string log_output_paths = "stdout";        // LOG_OUTPUT_PATHS, comma separated
  std::string log_error_output_paths = "stderr";  // LOG_ERROR_OUTPUT_PATHS
  core::Duration batch_max_duration = std::chrono::seconds(10);  // BATCH_MAX_DURATION
  core::Duration batch_idle_duration = std::chrono::seconds(1);  // BATCH_IDLE_DURATION
  std::string preference_policy = "Respect";  // PREFERENCE_POLICY: Respect|Ignore
  std::string min_values_policy = "Strict";   // MIN_VALUES_POLICY: Strict|BestEffort
  bool ignore_dra_requests = true;            // IGNORE_DRA_REQUESTS
  std::string feature_gates_text = controllers::kDefaultFeatureGates;  // FEATURE_GATES
  controllers::FeatureGates feature_gates;

  // --- the AWS provider (aws/karpenter-provider-aws pkg/operator/options) ---
  std::string cluster_name;        // CLUSTER_NAME, required with the aws provider
  std::string cluster_endpoint;    // CLUSTER_ENDPOINT
  std::string cluster_ca_bundle;   // CLUSTER_CA_BUNDLE
  bool isolated_vpc = false;       // ISOLATED_VPC
  double vm_memory_overhead_percent = 0.075;  // VM_MEMORY_OVERHEAD_PERCENT, >= 0
  std::string interruption_queue;  // INTERRUPTION_QUEUE; "": no interruption handling
  int reserved_enis = 0;           // RESERVED_ENIS, >= 0
  bool disable_dry_run = false;    // DISABLE_DRY_RUN
  core::Duration ami_refresh_interval = std::chrono::minutes(1);     // >= 1m
  core::Duration subnet_refresh_interval = std::chrono::minutes(1);  // >= 1m
  std::string aws_region;          // AWS_REGION; "": from IMDS

  // --- nodesmith ---
  std::string cloud_provider = "aws";  // CLOUD_PROVIDER (--cloud-provider): aws|kwok
  bool dry_run = false;                // DRY_RUN (--dry-run): shadow mode
  std::string catalog;                 // CATALOG: "": the provider's default (aws-live, kwok)
  std::string kubeconfig;              // --kubeconfig (KUBECONFIG is the client's own)
  std::string context;                 // --context
};

// The flags as typed, before validation; nullopt when a flag was not given.
struct RawOptions {
  std::map<std::string, std::optional<std::string>> values;  // by environment variable name
  bool dry_run_flag = false;
};

// Registers one --kebab-case flag per setting (and --dry-run, --kubeconfig, --context).
void AddOptionFlags(CLI::App* app, RawOptions* raw);

// Looks an environment variable up; nullopt when unset.
using Environment = std::function<std::optional<std::string>(const std::string& name)>;
Environment ProcessEnvironment();

// Flags, else environment variables, else Karpenter's defaults; validated.
core::Result<Options> ResolveOptions(const RawOptions& raw, const Environment& env);

}  // namespace nodesmith::op
