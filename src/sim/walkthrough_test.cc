// End-to-end scenarios: the real controllers in the embedded world, checked against the seed
// walkthrough's timeline (five pending pods -> one NodeClaim -> a Ready node -> running pods;
// deployment deleted -> empty node removed after ttlSecondsAfterEmpty) and a few variations.
#include <chrono>

#include <gmock/gmock.h>
#include <gtest/gtest.h>
#include <nlohmann/json.hpp>

#include "api/manifest.h"
#include "sim/world.h"

namespace nodesmith::sim {
namespace {

using namespace std::chrono_literals;
using ::testing::SizeIs;

const std::string kExamples = std::string(NODESMITH_SOURCE_DIR) + "/examples/";

// The seed walkthrough's Provisioner with the walkthrough scenario, plus `extra` documents.
api::ObjectSet Walkthrough(const std::string& extra = "") {
  auto set = api::LoadManifests({kExamples + "seed-walkthrough/provisioner.yaml",
                                 kExamples + "scenarios/seed-walkthrough.yaml"});
  EXPECT_TRUE(set.ok()) << set.status().message();
  if (!extra.empty()) {
    auto more = api::LoadManifestsFromString(extra, "extra.yaml");
    EXPECT_TRUE(more.ok()) << more.status().message();
    for (auto& d : more->daemon_sets) set->daemon_sets.push_back(d);
    for (auto& w : more->replicated_workloads) set->replicated_workloads.push_back(w);
  }
  return *set;
}

// Appends events (JSON list items) to the inputs' scenario.
void AddEvents(api::ObjectSet& set, const nlohmann::ordered_json& events) {
  for (const auto& e : events) set.scenarios[0].object["spec"]["events"].push_back(e);
}

std::unique_ptr<World> Simulate(const api::ObjectSet& set, std::optional<core::Duration> until = {}) {
  auto scenario = ScenarioFromInputs(set);
  EXPECT_TRUE(scenario.ok()) << scenario.status().message();
  auto world = World::Create(set, *scenario);
  EXPECT_TRUE(world.ok()) << world.status().message();
  if (until) {
    (*world)->RunUntil((*world)->start() + *until);
  } else {
    (*world)->Run();
  }
  return std::move(world).value();
}

// Seconds since the start of each event of a type.
std::vector<double> Times(const World& w, const std::string& type) {
  std::vector<double> out;
  for (const auto& e : w.timeline().OfType(type)) {
    out.push_back(static_cast<double>((e.at - w.start()).count()) / 1e9);
  }
  return out;
}

TEST(Walkthrough, FivePendingPodsGetOneNodeAndRunOnceItIsReady) {
  auto world = Simulate(Walkthrough(), 5min);
  const World& w = *world;

  EXPECT_THAT(Times(w, "PodPending"), ::testing::ElementsAre(0, 0, 0, 0, 0));
  // One NodeClaim for all five, inside the batch window (idle 1 s, max 10 s).
  auto created = Times(w, "NodeClaimCreated");
  ASSERT_THAT(created, SizeIs(1));
  EXPECT_GE(created[0], 1.0);
  EXPECT_LE(created[0], 10.0);
  auto launched = w.timeline().OfType("NodeClaimLaunched");
  ASSERT_THAT(launched, SizeIs(1));
  // launch 3 s + registration 20 s + ready 10 s after the launch.
  double launch_t = static_cast<double>((launched[0].at - w.start()).count()) / 1e9;
  auto ready = Times(w, "NodeReady");
  ASSERT_THAT(ready, SizeIs(1));
  EXPECT_DOUBLE_EQ(ready[0], launch_t + 33);
  auto bound = Times(w, "PodBound");
  ASSERT_THAT(bound, SizeIs(5));
  for (double t : bound) EXPECT_DOUBLE_EQ(t, ready[0]);
  auto running = Times(w, "PodRunning");
  ASSERT_THAT(running, SizeIs(5));
  for (double t : running) EXPECT_DOUBLE_EQ(t, ready[0] + 1);
  // All five on the one node, which is a spot instance (the Provisioner allows only spot).
  std::string node = Timeline::Field(w.timeline().OfType("NodeReady")[0].event, "node");
  for (const auto& e : w.timeline().OfType("PodBound")) EXPECT_EQ(Timeline::Field(e.event, "node"), node);
  EXPECT_EQ(Timeline::Field(launched[0].event, "capacityType"), "spot");
  EXPECT_EQ(w.PendingPods(), 0);
}

TEST(Walkthrough, TheEmptiedNodeIsTerminatedAfterThirtySecondsAndBillingStops) {
  auto world = Simulate(Walkthrough());
  const World& w = *world;
  auto terminated = Times(w, "InstanceTerminated");
  ASSERT_THAT(terminated, SizeIs(1));
  // Deleted at 25m; ttlSecondsAfterEmpty 30 s, checked every 10 s, then validated for 15 s.
  EXPECT_GE(terminated[0], 25 * 60 + 30 + 15);
  EXPECT_LE(terminated[0], 25 * 60 + 40 + 15);
  core::Time gone = w.start() + std::chrono::seconds(static_cast<int64_t>(terminated[0]));
  EXPECT_DOUBLE_EQ(w.cloud().CostSoFar(w.end()), w.cloud().CostSoFar(gone));
  EXPECT_GT(w.cloud().CostSoFar(w.end()), 0);

  nlohmann::ordered_json summary = w.Result(false)["summary"];
  EXPECT_EQ(summary["nodesLaunched"], 1);
  EXPECT_EQ(summary["nodesTerminated"], 1);
  EXPECT_EQ(summary["unschedulablePods"], 0);
  EXPECT_DOUBLE_EQ(summary["podStartLatencySeconds"]["p50"].get<double>(),
                   Times(w, "PodRunning")[0]);
  // Billed from `running` (3 s after launch) to the termination.
  double launch_t = Times(w, "NodeClaimLaunched")[0];
  EXPECT_NEAR(summary["nodeHours"].get<double>(), (terminated[0] - launch_t - 3) / 3600, 1e-6);
  // Samples every 30 s over 45 minutes, the node counted while it ran.
  const auto& samples = w.samples();
  ASSERT_THAT(samples, SizeIs(91));
  EXPECT_EQ(samples[2].nodes.size(), 1u);  // t = 60 s
  EXPECT_GT(samples[2].cpu_utilization, 0.5);
  EXPECT_TRUE(samples.back().nodes.empty());
  EXPECT_EQ(samples.back().price_per_hour, 0);
}

TEST(Walkthrough, AnUnavailableCheapestOfferingMakesTheLaunchUseTheNextOption) {
  auto base = Simulate(Walkthrough(), 2min);
  auto first = base->timeline().OfType("NodeClaimLaunched");
  ASSERT_THAT(first, SizeIs(1));
  std::string type = Timeline::Field(first[0].event, "instanceType");
  std::string zone = Timeline::Field(first[0].event, "zone");

  api::ObjectSet set = Walkthrough();
  AddEvents(set, {{{"at", "0s"},
                   {"unavailable",
                    {{"instanceType", type}, {"zone", zone}, {"capacityType", "spot"}, {"for", "1h"}}}}});
  auto world = Simulate(set, 2min);
  auto launched = world->timeline().OfType("NodeClaimLaunched");
  ASSERT_THAT(launched, SizeIs(1));
  std::string other = Timeline::Field(launched[0].event, "instanceType") + "/" +
                      Timeline::Field(launched[0].event, "zone");
  EXPECT_NE(other, type + "/" + zone);
  EXPECT_GE(std::stod(Timeline::Field(launched[0].event, "pricePerHour")),
            std::stod(Timeline::Field(first[0].event, "pricePerHour")));
  EXPECT_THAT(Times(*world, "PodRunning"), SizeIs(5));
}

TEST(Walkthrough, ADaemonSetsRequestsAreCountedOnEveryNewNode) {
  // Three CPUs of agent beside five one-CPU pods do not fit the 8-vCPU size the pods alone
  // would get: the provisioner must size the node for both.
  api::ObjectSet set = Walkthrough(R"(
apiVersion: apps/v1
kind: DaemonSet
metadata: {name: agent, namespace: kube-system}
spec:
  selector: {matchLabels: {app: agent}}
  template:
    metadata: {labels: {app: agent}}
    spec:
      containers: [{name: agent, image: busybox, resources: {requests: {cpu: "3"}}}]
)");
  auto world = Simulate(set, 5min);
  const World& w = *world;
  ASSERT_THAT(w.timeline().OfType("NodeClaimCreated"), SizeIs(1));
  auto ready = w.timeline().OfType("NodeReady");
  ASSERT_THAT(ready, SizeIs(1));
  std::string node = Timeline::Field(ready[0].event, "node");
  auto agent = world->cluster().Get<api::Pod>("kube-system", "agent-" + node);
  ASSERT_TRUE(agent.ok());
  EXPECT_EQ(agent->status.phase, "Running");
  EXPECT_THAT(Times(w, "PodRunning"), SizeIs(6));
  EXPECT_EQ(w.PendingPods(), 0);
}

TEST(Walkthrough, ASpotInterruptionIsAnsweredBeforeEC2ReclaimsTheNode) {
  api::ObjectSet set = Walkthrough();
  AddEvents(set, {{{"at", "10m"}, {"interrupt", {{"nodePool", "default"}, {"count", 1}, {"type", "spot"}}}}});
  auto world = Simulate(set, 20min);
  const World& w = *world;
  // The interruption controller deletes the NodeClaim on the notice: the pods are drained and
  // a new node launched while the old one still runs.
  auto created = Times(w, "NodeClaimCreated");
  ASSERT_THAT(created, SizeIs(2));
  EXPECT_GT(created[1], 600);
  EXPECT_LT(created[1], 620);
  auto running = Times(w, "PodRunning");
  EXPECT_EQ(std::count_if(running.begin(), running.end(),
                          [](double t) { return t > 600 && t < 720; }),
            5)
      << "every pod runs again before EC2 reclaims the instance at 12m";
  EXPECT_EQ(w.PendingPods(), 0);
}

TEST(Walkthrough, TheSameInputsGiveTheSameResult) {
  auto a = Simulate(Walkthrough());
  auto b = Simulate(Walkthrough());
  EXPECT_EQ(a->Result().dump(), b->Result().dump());
  std::ostringstream la, lb;
  a->WriteLog(la);
  b->WriteLog(lb);
  EXPECT_EQ(la.str(), lb.str());
}

TEST(Walkthrough, ADiurnalDayInMiniatureScalesUpAndDownWithoutStrandingPods) {
  // The shape of examples/scenarios/diurnal.yaml over two virtual hours and fewer pods.
  auto set = api::LoadManifests({kExamples + "scenarios/diurnal.yaml"});
  ASSERT_TRUE(set.ok()) << set.status().message();
  auto& spec = set->scenarios[0].object["spec"];
  spec["duration"] = "2h";
  spec["events"] = nlohmann::ordered_json::array();
  int web[] = {20, 120, 300, 150, 40};
  for (int i = 0; i < 5; ++i) {
    spec["events"].push_back({{"at", std::to_string(i * 20) + "m"},
                              {"scale", {{"kind", "Deployment"}, {"name", "web"}, {"replicas", web[i]}}}});
  }
  spec["events"].push_back(
      {{"at", "30m"}, {"scale", {{"kind", "Deployment"}, {"name", "worker"}, {"replicas", 10}}}});
  auto world = Simulate(*set);
  const World& w = *world;
  nlohmann::ordered_json result = w.Result(false);
  EXPECT_EQ(result["summary"]["unschedulablePods"], 0);
  EXPECT_GE(result["summary"]["nodesLaunched"].get<int>(), 2);
  ASSERT_THAT(w.samples(), SizeIs(2 * 60 / 5 + 1));
  // At the peak (60-80 m) 300 web pods and 10 workers run, with no pod left pending.
  const Sample& peak = w.samples()[75 / 5];
  EXPECT_EQ(peak.pending_pods, 0);
  int nodes = 0;
  for (const auto& [type, n] : peak.nodes) nodes += n;
  EXPECT_GE(nodes, 2);
  EXPECT_GT(peak.cpu_utilization, 0.5);
  EXPECT_LE(peak.cpu_utilization, 1.0);
  // Every new node ran the node agent.
  for (const auto& e : w.timeline().OfType("NodeReady")) {
    auto agent = world->cluster().Get<api::Pod>("kube-system", "node-agent-" + Timeline::Field(e.event, "node"));
    if (agent.ok()) {
      EXPECT_EQ(agent->status.phase, "Running");
    }
  }
  EXPECT_EQ(Times(w, "PodRunning").size(), Times(w, "PodBound").size());
}

TEST(Walkthrough, ScalingAWorkloadThatDoesNotExistIsAnInputError) {
  api::ObjectSet set = Walkthrough();
  AddEvents(set, {{{"at", "1m"}, {"scale", {{"kind", "Deployment"}, {"name", "inflat"}, {"replicas", 2}}}}});
  auto scenario = ScenarioFromInputs(set);
  ASSERT_TRUE(scenario.ok());
  auto world = World::Create(set, *scenario);
  ASSERT_FALSE(world.ok());
  EXPECT_EQ(world.status().message(),
            kExamples + "scenarios/seed-walkthrough.yaml: document 2 (Scenario seed-walkthrough): "
            "spec.events[2].scale: Deployment default/inflat is not among the inputs");

  // A workload an earlier apply event creates may be scaled.
  set = Walkthrough();
  AddEvents(set, nlohmann::ordered_json::parse(R"([
    {"at": "1m", "apply": {"apiVersion": "apps/v1", "kind": "Deployment", "metadata": {"name": "web"},
                           "spec": {"replicas": 1,
                                    "template": {"spec": {"containers": [{"name": "c", "image": "x"}]}}}}},
    {"at": "2m", "scale": {"kind": "Deployment", "name": "web", "replicas": 2}}])"));
  auto world2 = Simulate(set, 5min);
  int web_running = 0;
  for (const auto& e : world2->timeline().OfType("PodRunning")) {
    web_running += Timeline::Field(e.event, "pod").rfind("default/web-", 0) == 0;
  }
  EXPECT_EQ(web_running, 2);
}

}  // namespace
}  // namespace nodesmith::sim
