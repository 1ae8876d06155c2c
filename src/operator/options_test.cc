#include "operator/options.h"

#include <gmock/gmock.h>
#include <gtest/gtest.h>

#include <map>

namespace nodesmith::op {
namespace {

using ::testing::HasSubstr;

// Parses `args` as `nodesmith controller` would, with `env` as the environment.
core::Result<Options> Parse(std::vector<std::string> args,
                            std::map<std::string, std::string> env = {}) {
  CLI::App app;
  RawOptions raw;
  AddOptionFlags(&app, &raw);
  std::vector<const char*> argv = {"controller"};
  for (const auto& a : args) argv.push_back(a.c_str());
  try {
    app.parse(static_cast<int>(argv.size()), argv.data());
  } catch (const CLI::ParseError& e) {
    return core::Status::Invalid(e.what());
  }
  return ResolveOptions(raw, [env](const std::string& name) -> std::optional<std::string> {
    auto it = env.find(name);
    if (it == env.end()) return std::nullopt;
    return it->second;
  });
}

TEST(OptionsTest, DefaultsAreKarpentersWhenNothingIsSet) {
  auto o = Parse({}, {{"CLUSTER_NAME", "demo"}});
  ASSERT_TRUE(o.ok()) << o.status().message();
  EXPECT_EQ(o->metrics_port, 8080);
  EXPECT_EQ(o->health_probe_port, 8081);
  EXPECT_EQ(o->kube_client_qps, 200);
  EXPECT_EQ(o->kube_client_burst, 300);
  EXPECT_FALSE(o->disable_leader_election);
  EXPECT_EQ(o->leader_election_name, "karpenter-leader-election");
  EXPECT_EQ(o->leader_election_namespace, "");
  EXPECT_EQ(o->log_level, "info");
  EXPECT_EQ(o->log_output_paths, "stdout");
  EXPECT_EQ(o->log_error_output_paths, "stderr");
  EXPECT_EQ(o->batch_idle_duration, std::chrono::seconds(1));
  EXPECT_EQ(o->batch_max_duration, std::chrono::seconds(10));
  EXPECT_EQ(o->preference_policy, "Respect");
  EXPECT_EQ(o->min_values_policy, "Strict");
  EXPECT_TRUE(o->ignore_dra_requests);
  EXPECT_FALSE(o->feature_gates.spot_to_spot_consolidation);
  EXPECT_DOUBLE_EQ(o->vm_memory_overhead_percent, 0.075);
  EXPECT_EQ(o->reserved_enis, 0);
  EXPECT_EQ(o->ami_refresh_interval, std::chrono::minutes(1));
  EXPECT_EQ(o->cloud_provider, "aws");
  EXPECT_FALSE(o->dry_run);
  EXPECT_EQ(o->memory_limit, -1);
  EXPECT_EQ(o->cpu_requests, 1000);
}

TEST(OptionsTest, EnvironmentVariablesSetAndFlagsWin) {
  auto o = Parse({"--batch-idle-duration", "3s", "--log-level=debug"},
                 {{"CLUSTER_NAME", "demo"},
                  {"BATCH_IDLE_DURATION", "2s"},
                  {"BATCH_MAX_DURATION", "1m"},
                  {"LOG_LEVEL", "error"},
                  {"FEATURE_GATES", "SpotToSpotConsolidation=true"},
                  {"DISABLE_LEADER_ELECTION", "True"},
                  {"KUBE_CLIENT_QPS", "50"},
                  {"DRY_RUN", "true"}});
  ASSERT_TRUE(o.ok()) << o.status().message();
  EXPECT_EQ(o->batch_idle_duration, std::chrono::seconds(3));
  EXPECT_EQ(o->batch_max_duration, std::chrono::minutes(1));
  EXPECT_EQ(o->log_level, "debug");
  EXPECT_TRUE(o->feature_gates.spot_to_spot_consolidation);
  EXPECT_TRUE(o->disable_leader_election);
  EXPECT_EQ(o->kube_client_qps, 50);
  EXPECT_TRUE(o->dry_run);
}

TEST(OptionsTest, TheKwokProviderNeedsNoClusterName) {
  auto o = Parse({"--cloud-provider", "kwok", "--dry-run"});
  ASSERT_TRUE(o.ok()) << o.status().message();
  EXPECT_EQ(o->cloud_provider, "kwok");
  EXPECT_TRUE(o->dry_run);
}

TEST(OptionsTest, EachBadValueIsOneLineNamingTheVariableAndTheFlag) {
  const std::map<std::string, std::string> base = {{"CLUSTER_NAME", "demo"}};
  struct Case {
    std::string env, value, expect;
  };
  for (const Case& c : std::vector<Case>{
           {"LOG_LEVEL", "verbose",
            "invalid LOG_LEVEL (--log-level) \"verbose\": must be one of debug, info, error"},
           {"BATCH_IDLE_DURATION", "soon",
            "invalid BATCH_IDLE_DURATION (--batch-idle-duration) \"soon\": must be a duration"},
           {"METRICS_PORT", "http", "invalid METRICS_PORT (--metrics-port) \"http\": must be an"},
           {"METRICS_PORT", "70000", "invalid METRICS_PORT (--metrics-port) \"70000\": must be a port"},
           {"PREFERENCE_POLICY", "Maybe", "invalid PREFERENCE_POLICY (--preference-policy)"},
           {"MIN_VALUES_POLICY", "Loose", "invalid MIN_VALUES_POLICY (--min-values-policy)"},
           {"FEATURE_GATES", "Teleport=true",
            "invalid FEATURE_GATES (--feature-gates) \"Teleport=true\": unknown feature gate"},
           {"DISABLE_LEADER_ELECTION", "yes",
            "invalid DISABLE_LEADER_ELECTION (--disable-leader-election) \"yes\": must be true"},
           {"VM_MEMORY_OVERHEAD_PERCENT", "-0.5", "invalid VM_MEMORY_OVERHEAD_PERCENT"},
           {"RESERVED_ENIS", "-1", "invalid RESERVED_ENIS (--reserved-enis)"},
           {"AMI_REFRESH_INTERVAL", "30s", "must be at least 1m"},
           {"CLOUD_PROVIDER", "gcp", "invalid CLOUD_PROVIDER (--cloud-provider) \"gcp\""},
           {"KUBE_CLIENT_BURST", "0", "invalid KUBE_CLIENT_BURST"},
       }) {
    auto env = base;
    env[c.env] = c.value;
    auto o = Parse({}, env);
    ASSERT_FALSE(o.ok()) << c.env << "=" << c.value;
    EXPECT_THAT(o.status().message(), HasSubstr(c.expect)) << c.env;
    EXPECT_EQ(o.status().message().find('\n'), std::string::npos);
  }
}

TEST(OptionsTest, TheAwsProviderRequiresAClusterName) {
  auto o = Parse({});
  ASSERT_FALSE(o.ok());
  EXPECT_THAT(o.status().message(), HasSubstr("CLUSTER_NAME (--cluster-name) is required"));
}

TEST(OptionsTest, NonPositiveCpuRequestsMeanTheDefault) {
  auto o = Parse({"--cpu-requests", "0"}, {{"CLUSTER_NAME", "x"}});
  ASSERT_TRUE(o.ok());
  EXPECT_EQ(o->cpu_requests, 1000);
}

}  // namespace
}  // namespace nodesmith::op
