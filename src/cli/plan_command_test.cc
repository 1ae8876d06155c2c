// `nodesmith plan` through its CLI registration: the JSON has the contract's fields, bad input
// exits 2, unschedulable pods still exit 0.
#include <filesystem>
#include <fstream>
#include <iostream>
#include <sstream>

#include <gtest/gtest.h>
#include <nlohmann/json.hpp>

#include "cli/command.h"

namespace nodesmith::cli {
namespace {

constexpr const char* kCluster = R"(
apiVersion: nodesmith.dev/v1alpha1
kind: InstanceTypeCatalog
metadata: {name: tiny}
spec:
  defaults:
    offerings:
    - {zone: test-zone-a, capacityType: on-demand}
  instanceTypes:
  - {name: small, capacity: {cpu: "2", memory: 4Gi, pods: "10"}, price: 0.1}
  - {name: large, capacity: {cpu: "8", memory: 16Gi, pods: "10"}, price: 0.4}
---
apiVersion: karpenter.sh/v1
kind: NodePool
metadata: {name: default}
spec:
  template:
    spec:
      nodeClassRef: {group: karpenter.k8s.aws, kind: EC2NodeClass, name: default}
      requirements: []
---
apiVersion: v1
kind: Pod
metadata: {name: web-1}
spec:
  containers:
  - {name: c, resources: {requests: {cpu: "1"}}}
---
apiVersion: v1
kind: Pod
metadata: {name: huge}
spec:
  containers:
  - {name: c, resources: {requests: {cpu: "64"}}}
)";

struct PlanRun {
  int exit_code = -1;
  std::string out;
};

PlanRun Plan(std::vector<std::string> args) {
  CLI::App app;
  int exit_code = kExitOk;
  RegisterPlan(app, &exit_code);
  args.insert(args.begin(), "plan");
  std::vector<const char*> argv{"nodesmith"};
  for (const auto& a : args) argv.push_back(a.c_str());
  std::ostringstream captured;
  std::streambuf* old = std::cout.rdbuf(captured.rdbuf());
  try {
    app.parse(static_cast<int>(argv.size()), argv.data());
  } catch (const CLI::ParseError&) {
    exit_code = kExitBadInput;
  }
  std::cout.rdbuf(old);
  return PlanRun{exit_code, captured.str()};
}

std::string WriteCluster() {
  auto path = std::filesystem::temp_directory_path() / "nodesmith_plan_command_test.yaml";
  std::ofstream(path) << kCluster;
  return path.string();
}

TEST(PlanCommand, JsonHasTheContractFields) {
  PlanRun r = Plan({"-f", WriteCluster(), "-o", "json"});
  ASSERT_EQ(r.exit_code, kExitOk) << r.out;
  auto j = nlohmann::json::parse(r.out);
  EXPECT_EQ(j["kind"], "Plan");
  ASSERT_EQ(j["newNodeClaims"].size(), 1u);
  const auto& n = j["newNodeClaims"][0];
  EXPECT_EQ(n["nodePool"], "default");
  EXPECT_EQ(n["instanceTypeOptions"], nlohmann::json({"small", "large"}));
  EXPECT_EQ(n["launch"]["instanceType"], "small");
  EXPECT_EQ(n["launch"]["zone"], "test-zone-a");
  EXPECT_EQ(n["launch"]["capacityType"], "on-demand");
  EXPECT_DOUBLE_EQ(n["launch"]["pricePerHour"].get<double>(), 0.1);
  EXPECT_EQ(n["labels"]["karpenter.sh/nodepool"], "default");
  EXPECT_TRUE(n["taints"].is_array());
  EXPECT_EQ(n["requests"]["cpu"], "1");
  EXPECT_EQ(n["pods"], nlohmann::json({"default/web-1"}));
  EXPECT_TRUE(j["existingNodes"].is_array());
  ASSERT_EQ(j["unschedulable"].size(), 1u);
  EXPECT_EQ(j["unschedulable"][0]["pod"], "default/huge");
  EXPECT_EQ(j["unschedulable"][0]["reason"],
            "incompatible with nodepool default: no instance type fits cpu 64");
  const auto& s = j["summary"];
  EXPECT_EQ(s["pendingPods"], 2);
  EXPECT_EQ(s["scheduled"], 1);
  EXPECT_EQ(s["newNodeClaims"], 1);
  EXPECT_DOUBLE_EQ(s["pricePerHour"].get<double>(), 0.1);
  EXPECT_LE(s["lowerBoundPerHour"].get<double>(), 0.1);
  EXPECT_GT(s["lowerBoundPerHour"].get<double>(), 0.0);
  EXPECT_GE(s["solveSeconds"].get<double>(), 0.0);
  // The decision, the bound and the snapshot are timed apart.
  EXPECT_GE(s["boundSeconds"].get<double>(), 0.0);
  EXPECT_GE(s["snapshotSeconds"].get<double>(), 0.0);
}

TEST(PlanCommand, TextIsATable) {
  PlanRun r = Plan({"-f", WriteCluster()});
  ASSERT_EQ(r.exit_code, kExitOk);
  EXPECT_NE(r.out.find("NAME"), std::string::npos);
  EXPECT_NE(r.out.find("default/huge"), std::string::npos);
  EXPECT_NE(r.out.find("1 of 2 pending pods scheduled"), std::string::npos) << r.out;
}

TEST(PlanCommand, MissingFileIsBadInput) {
  PlanRun r = Plan({"-f", "/nonexistent/cluster.yaml"});
  EXPECT_EQ(r.exit_code, kExitBadInput);
}

TEST(PlanCommand, UnknownPolicyIsBadInput) {
  PlanRun r = Plan({"-f", WriteCluster(), "--min-values-policy", "Sometimes"});
  EXPECT_EQ(r.exit_code, kExitBadInput);
}

TEST(PlanCommand, AMalformedFeatureGateIsBadInput) {
  // No gate changes what plan decides today, but a typo must not pass silently.
  EXPECT_EQ(Plan({"-f", WriteCluster(), "--feature-gates", "Foo=bar"}).exit_code, kExitBadInput);
  EXPECT_EQ(Plan({"-f", WriteCluster(), "--feature-gates", "SpotToSpotConsolidation=yes"}).exit_code,
            kExitBadInput);
  EXPECT_EQ(Plan({"-f", WriteCluster(), "--feature-gates", "SpotToSpotConsolidation=true"}).exit_code,
            kExitOk);
}

}  // namespace
}  // namespace nodesmith::cli
