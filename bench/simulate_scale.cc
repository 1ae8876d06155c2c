// simulate_scale: how long `nodesmith simulate` takes for a day of a Deployment at 1,000 to
// 10,000 pods (see "simulate at scale" in docs/PERFORMANCE.md).
//
//   simulate_scale [--sizes 1000,3000,10000] [--runs 3] [--policy WhenEmpty]
//                  [--write-scenarios DIR] [--check]
//
// Each size is one Scenario (ScenarioText below): an on-demand c/m/r NodePool with the given
// consolidation policy and a `web` Deployment of 500m/1Gi pods scaled hourly over 24 virtual
// hours along a daily curve that peaks at the size. The world runs in process exactly as
// `nodesmith simulate` runs it (sim::World, the real controllers); the time from World::Create
// to the SimulationResult document is measured, wall clock and this thread's CPU.
// --write-scenarios writes the scenarios as DIR/scale-<size>.yaml and exits, so the CLI can be
// timed on the same input:  nodesmith simulate -f DIR/scale-10000.yaml -o json > /dev/null
// --check exits 1 when a run ends with unschedulable pods or started fewer pods than the peak.
#include <chrono>
#include <cstdio>
#include <fstream>
#include <sstream>
#include <string>
#include <vector>

#include <nlohmann/json.hpp>

#include "api/manifest.h"
#include "bench_util.h"
#include "sim/scenario.h"
#include "sim/world.h"

namespace nodesmith::bench {
namespace {

// The share of the peak each hour of the day, from night through the midday peak to evening.
constexpr double kDailyCurve[24] = {0.30, 0.25, 0.20, 0.20, 0.20, 0.30, 0.50, 0.70,
                                    0.85, 0.95, 1.00, 1.00, 1.00, 0.95, 0.90, 0.85,
                                    0.80, 0.70, 0.60, 0.50, 0.45, 0.40, 0.35, 0.30};

std::string ScenarioText(int peak, const std::string& policy) {
  std::ostringstream out;
  out << R"(apiVersion: karpenter.sh/v1
kind: NodePool
metadata:
  name: default
spec:
  template:
    spec:
      nodeClassRef: {group: karpenter.k8s.aws, kind: EC2NodeClass, name: default}
      requirements:
        - {key: karpenter.k8s.aws/instance-category, operator: In, values: ["c", "m", "r"]}
        - {key: karpenter.k8s.aws/instance-cpu, operator: In, values: ["4", "8", "16", "32"]}
        - {key: karpenter.sh/capacity-type, operator: In, values: ["on-demand"]}
      expireAfter: Never
  disruption: {consolidationPolicy: )"
      << policy << R"(, consolidateAfter: 5m}
  limits: {cpu: 100000}
---
apiVersion: karpenter.k8s.aws/v1
kind: EC2NodeClass
metadata: {name: default}
spec:
  role: KarpenterNodeRole-my-cluster
  amiSelectorTerms: [{alias: al2023@latest}]
  subnetSelectorTerms: [{tags: {karpenter.sh/discovery: my-cluster}}]
  securityGroupSelectorTerms: [{tags: {karpenter.sh/discovery: my-cluster}}]
---
apiVersion: apps/v1
kind: Deployment
metadata: {name: web, namespace: default}
spec:
  replicas: 0
  selector: {matchLabels: {app: web}}
  template:
    metadata: {labels: {app: web}}
    spec:
      containers:
        - name: web
          image: nginx
          resources: {requests: {cpu: 500m, memory: 1Gi}}
---
apiVersion: nodesmith.dev/v1alpha1
kind: Scenario
metadata: {name: scale-)"
      << peak << R"(}
spec:
  duration: 24h
  sampleInterval: 5m
  cloud: {launchLatency: 3s, registrationDelay: 20s, readyDelay: 10s}
  settings: {batchIdleDuration: 1s, batchMaxDuration: 10s}
  events:
)";
  for (int hour = 0; hour < 24; ++hour) {
    out << "    - {at: " << hour << "h, scale: {kind: Deployment, name: web, replicas: "
        << static_cast<int>(peak * kDailyCurve[hour] + 0.5) << "}}\n";
  }
  return out.str();
}

struct Run {
  double seconds = 0;
  double cpu_seconds = 0;
  nlohmann::ordered_json summary;
};

// One simulated day; exits the process when the scenario does not load (it measures nothing).
Run SimulateOnce(const std::string& text) {
  auto inputs = api::LoadManifestsFromString(text, "scenario.yaml");
  auto scenario = inputs.ok() ? sim::ScenarioFromInputs(*inputs) : inputs.status();
  if (!scenario.ok()) {
    std::fprintf(stderr, "scenario: %s\n", scenario.status().message().c_str());
    std::exit(2);
  }
  const double cpu_start = ThreadCpuSeconds();
  const auto start = std::chrono::steady_clock::now();
  auto world = sim::World::Create(*inputs, std::move(scenario).value());
  if (!world.ok()) {
    std::fprintf(stderr, "world: %s\n", world.status().message().c_str());
    std::exit(2);
  }
  (*world)->Run();
  nlohmann::ordered_json result = (*world)->Result(true);
  Run run;
  run.seconds = std::chrono::duration<double>(std::chrono::steady_clock::now() - start).count();
  run.cpu_seconds = ThreadCpuSeconds() - cpu_start;
  run.summary = result["summary"];
  return run;
}

std::vector<int> ParseSizes(const std::string& list) {
  std::vector<int> sizes;
  std::stringstream in(list);
  for (std::string item; std::getline(in, item, ',');) sizes.push_back(std::stoi(item));
  return sizes;
}

int Main(int argc, char** argv) {
  std::vector<int> sizes = {1000, 3000, 10000};
  int runs = 3;
  std::string policy = "WhenEmpty";
  std::string write_dir;
  bool check = false;
  for (int i = 1; i < argc; ++i) {
    const std::string arg = argv[i];
    const bool has_value = i + 1 < argc;
    if (arg == "--sizes" && has_value) {
      sizes = ParseSizes(argv[++i]);
    } else if (arg == "--runs" && has_value) {
      runs = std::stoi(argv[++i]);
    } else if (arg == "--policy" && has_value) {
      policy = argv[++i];
    } else if (arg == "--write-scenarios" && has_value) {
      write_dir = argv[++i];
    } else if (arg == "--check") {
      check = true;
    } else {
      std::fprintf(stderr,
                   "usage: simulate_scale [--sizes N,...] [--runs R] [--policy WhenEmpty|"
                   "WhenEmptyOrUnderutilized] [--write-scenarios DIR] [--check]\n");
      return 64;
    }
  }
  if (!write_dir.empty()) {
    for (int size : sizes) {
      const std::string path = write_dir + "/scale-" + std::to_string(size) + ".yaml";
      std::ofstream(path) << ScenarioText(size, policy);
      std::printf("%s\n", path.c_str());
    }
    return 0;
  }
  std::printf("%8s %12s %12s %9s %9s %11s %13s\n", "pods", "median s", "median cpu s", "min s",
              "launched", "cost $", "unschedulable");
  bool ok = true;
  for (int size : sizes) {
    const std::string text = ScenarioText(size, policy);
    std::vector<double> wall, cpu;
    nlohmann::ordered_json summary;
    for (int r = 0; r < runs; ++r) {
      Run run = SimulateOnce(text);
      wall.push_back(run.seconds);
      cpu.push_back(run.cpu_seconds);
      summary = run.summary;
    }
    const int unschedulable = summary["unschedulablePods"].get<int>();
    std::printf("%8d %12.3f %12.3f %9.3f %9d %11.2f %13d\n", size, Median(wall), Median(cpu),
                *std::min_element(wall.begin(), wall.end()),
                summary["nodesLaunched"].get<int>(), summary["cost"].get<double>(), unschedulable);
    if (unschedulable != 0 || summary["podsStarted"].get<int>() < size) ok = false;
  }
  if (check && !ok) {
    std::fprintf(stderr, "check failed: unschedulable pods left, or fewer pods started than the peak\n");
    return 1;
  }
  return 0;
}

}  // namespace
}  // namespace nodesmith::bench

int main(int argc, char** argv) { return nodesmith::bench::Main(argc, argv); }
