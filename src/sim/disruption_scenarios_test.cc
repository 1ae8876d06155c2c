// The disruption scenarios of examples/scenarios, run end to end in the embedded world with the
// invariant checker on: what each one promises a user (consolidation lands near the best
// packing, drifted and expired nodes are replaced, an interruption is answered before EC2
// reclaims the instance) and what every run must keep (no budget broken by nodesmith, no
// orphaned instance, no lost pod).
#include <chrono>
#include <cstdio>
#include <map>
#include <set>

#include <gmock/gmock.h>
#include <gtest/gtest.h>

#include "api/manifest.h"
#include "api/pod_status.h"
#include "solver/scheduler.h"
#include "solver/snapshot.h"
#include "sim/world.h"

namespace nodesmith::sim {
namespace {

using namespace std::chrono_literals;

const std::string kScenarios = std::string(NODESMITH_SOURCE_DIR) + "/examples/scenarios/";

std::unique_ptr<World> Simulate(const std::string& file) {
  auto set = api::LoadManifests({kScenarios + file});
  EXPECT_TRUE(set.ok()) << set.status().message();
  if (!set.ok()) return nullptr;
  auto scenario = ScenarioFromInputs(*set);
  EXPECT_TRUE(scenario.ok()) << scenario.status().message();
  if (!scenario.ok()) return nullptr;
  WorldOptions options;
  options.check_invariants = true;
  auto world = World::Create(*set, *scenario, options);
  EXPECT_TRUE(world.ok()) << world.status().message();
  if (!world.ok()) return nullptr;
  (*world)->Run();
  return std::move(world).value();
}

double SecondsOf(const World& w, core::Time t) {
  return static_cast<double>((t - w.start()).count()) / 1e9;
}

std::string Violations(const World& w) {
  std::string out;
  for (const auto& v : w.invariant_violations()) {
    out += "\n  t=" + std::to_string(SecondsOf(w, v.at)) + " " + v.invariant + ": " + v.message;
  }
  return out;
}

// Timeline events of a type as (seconds, event), optionally only those with field == value.
std::vector<std::pair<double, runtime::RecordedEvent>> Events(const World& w, const std::string& type) {
  std::vector<std::pair<double, runtime::RecordedEvent>> out;
  for (const auto& e : w.timeline().OfType(type)) out.emplace_back(SecondsOf(w, e.at), e.event);
  return out;
}

// The NodeClaims launched before `t` seconds.
std::set<std::string> LaunchedBefore(const World& w, double t) {
  std::set<std::string> out;
  for (const auto& [at, e] : Events(w, "NodeClaimLaunched")) {
    if (at < t) out.insert(Timeline::Field(e, "nodeClaim"));
  }
  return out;
}

// NodeClaim -> when its instance terminated.
std::map<std::string, double> Terminations(const World& w) {
  std::map<std::string, double> out;
  for (const auto& [at, e] : Events(w, "InstanceTerminated")) out[Timeline::Field(e, "nodeClaim")] = at;
  return out;
}

// Price per hour of the instances running now; their types are appended to `types`.
double RunningPricePerHour(const World& w, std::string* types = nullptr) {
  double price = 0;
  for (const auto& inst : w.cloud().Instances()) {
    if (inst.StateAt(w.Now()) != cloud::sim::InstanceState::kRunning) continue;
    price += inst.price_per_hour;
    if (types) *types += " " + inst.instance_type;
  }
  return price;
}

// The price per hour of the cheapest plan the provisioner finds for the world's live pods on
// empty capacity: what the pods would cost if nodesmith packed them from scratch.
double BestPackingPerHour(World& w, std::string* types = nullptr) {
  api::ObjectSet set;
  for (const auto& pool : w.cluster().List<api::NodePool>()) set.node_pools.push_back({pool, {}});
  for (const auto& nc : w.cluster().List<api::EC2NodeClass>()) set.ec2_node_classes.push_back({nc, {}});
  for (const auto& ds : w.cluster().List<api::DaemonSet>()) set.daemon_sets.push_back({ds, {}});
  for (auto pod : w.cluster().List<api::Pod>()) {
    if (!api::IsActive(pod) || api::IsOwnedByDaemonSet(pod)) continue;
    pod.spec.node_name.clear();
    pod.status = {};
    pod.status.phase = "Pending";
    set.pods.push_back({std::move(pod), {}});
  }
  const cloud::Catalog& catalog = w.cloud().catalog();
  auto snapshot = solver::BuildSnapshot(std::move(set), {}, catalog.instance_types,
                                        catalog.well_known_labels);
  EXPECT_TRUE(snapshot.ok()) << snapshot.status().message();
  if (!snapshot.ok()) return 0;
  auto results = solver::Solve(*snapshot, {});
  EXPECT_TRUE(results.ok()) << results.status().message();
  if (!results.ok()) return 0;
  EXPECT_TRUE(results->unschedulable.empty());
  for (const auto& claim : results->new_node_claims) {
    if (types) *types += " " + claim.launch.instance_type;
  }
  return results->price_per_hour;
}

TEST(DisruptionScenarios, ConsolidationAfterAScaleInComesWithinThreePercentOfTheBestPacking) {
  auto world = Simulate("consolidation.yaml");
  ASSERT_TRUE(world);
  World& w = *world;
  EXPECT_TRUE(w.invariant_violations().empty()) << Violations(w);

  double before = 0;
  for (const auto& s : w.samples()) {
    if (SecondsOf(w, s.at) <= 15 * 60) before = s.price_per_hour;
  }
  std::string running, packed;
  double after = RunningPricePerHour(w, &running);
  double best = BestPackingPerHour(w, &packed);
  std::printf("consolidation: $%.4f/h before the scale-in, $%.4f/h at the end (%s), best packing "
              "$%.4f/h (%s): %+.1f%%\n",
              before, after, running.c_str(), best, packed.c_str(),
              best > 0 ? (after / best - 1) * 100 : 0.0);
  ASSERT_GT(best, 0);
  EXPECT_LE(after, best * 1.03) << "after consolidation $" << after << "/h, best packing $" << best << "/h";

  int underutilized = 0;
  for (const auto& [at, e] : Events(w, "DisruptionDecision")) {
    underutilized += at >= 15 * 60 && Timeline::Field(e, "reason") == "Underutilized";
  }
  EXPECT_GE(underutilized, 1);
  EXPECT_EQ(w.PendingPods(), 0);
}

TEST(DisruptionScenarios, DriftReplacesEveryNodeLaunchedBeforeTheNodePoolChanged) {
  auto world = Simulate("drift.yaml");
  ASSERT_TRUE(world);
  World& w = *world;
  EXPECT_TRUE(w.invariant_violations().empty()) << Violations(w);

  std::set<std::string> old_claims = LaunchedBefore(w, 20 * 60);
  ASSERT_FALSE(old_claims.empty());
  auto gone = Terminations(w);
  for (const auto& claim : old_claims) {
    ASSERT_TRUE(gone.count(claim)) << "drifted NodeClaim " << claim << " was never replaced";
    EXPECT_GT(gone[claim], 20 * 60) << claim;
  }
  int drifted = 0;
  for (const auto& [at, e] : Events(w, "DisruptionDecision")) {
    drifted += Timeline::Field(e, "reason") == "Drifted";
  }
  EXPECT_GE(drifted, 1);
  // What runs now was launched from the changed template.
  auto nodes = w.cluster().List<api::Node>();
  EXPECT_FALSE(nodes.empty());
  for (const auto& node : nodes) {
    auto label = node.metadata.labels.find("team");
    EXPECT_TRUE(label != node.metadata.labels.end() && label->second == "payments")
        << node.metadata.name << " lacks the new template label";
  }
  EXPECT_EQ(w.PendingPods(), 0);
}

TEST(DisruptionScenarios, ExpiredNodesAreReplacedSoonAfterExpireAfter) {
  auto world = Simulate("expiry.yaml");
  ASSERT_TRUE(world);
  World& w = *world;
  EXPECT_TRUE(w.invariant_violations().empty()) << Violations(w);

  std::set<std::string> first = LaunchedBefore(w, 5 * 60);
  ASSERT_FALSE(first.empty());
  auto gone = Terminations(w);
  for (const auto& claim : first) {
    ASSERT_TRUE(gone.count(claim)) << "NodeClaim " << claim << " outlived expireAfter";
    EXPECT_GE(gone[claim], 30 * 60) << claim << " ended before it expired";
    // Expired at 30m (plus the launch); drained within a few minutes.
    EXPECT_LE(gone[claim], 40 * 60) << claim;
  }
  // The pods run on nodes launched after the old ones expired.
  std::set<std::string> later = LaunchedBefore(w, 50 * 60);
  for (const auto& claim : first) later.erase(claim);
  EXPECT_FALSE(later.empty());
  for (const auto& claim : later) EXPECT_FALSE(gone.count(claim)) << claim;
  EXPECT_EQ(w.PendingPods(), 0);
  EXPECT_EQ(w.samples().back().pending_pods, 0);
}

TEST(DisruptionScenarios, ASpotInterruptionIsAnsweredBeforeTheInstancesAreReclaimed) {
  auto world = Simulate("interruption.yaml");
  ASSERT_TRUE(world);
  World& w = *world;
  EXPECT_TRUE(w.invariant_violations().empty()) << Violations(w);

  // The scenario sends the notices at 10m; EC2 reclaims two minutes later.
  const double notice = 600;
  const double reclaim = notice + 120;
  // nodesmith acted on both (the interruption controller records one event per NodeClaim).
  std::set<std::string> interrupted;
  for (const auto& [at, e] : Events(w, "Interruption")) {
    EXPECT_GE(at, notice);
    EXPECT_LT(at, reclaim);
    interrupted.insert(Timeline::Field(e, "nodeClaim"));
  }
  EXPECT_EQ(interrupted.size(), 2u);
  // A replacement node is Ready before EC2 takes the instances.
  double first_ready = -1;
  for (const auto& [at, e] : Events(w, "NodeReady")) {
    if (at > notice && first_ready < 0) first_ready = at;
  }
  EXPECT_GT(first_ready, notice) << "no node became Ready after the notice";
  EXPECT_LT(first_ready, reclaim) << "the first new node was Ready only at t=" << first_ready;
  // No pod waits longer than a new node takes to come up (launch 3 s + registration 20 s +
  // ready 10 s, batching and start-up around it).
  std::map<std::string, double> pending_since;
  double longest = 0;
  std::string longest_pod;
  for (const auto& e : w.timeline().events()) {
    double at = SecondsOf(w, e.at);
    if (at < notice) continue;
    std::string pod = Timeline::Field(e.event, "pod");
    if (e.event.type == "PodPending") pending_since[pod] = at;
    if (e.event.type == "PodBound" && pending_since.count(pod)) {
      if (at - pending_since[pod] > longest) longest = at - pending_since[pod], longest_pod = pod;
      pending_since.erase(pod);
    }
  }
  EXPECT_TRUE(pending_since.empty()) << pending_since.size() << " pods never bound again";
  EXPECT_LE(longest, 60) << longest_pod << " was pending for " << longest << " s";
  EXPECT_EQ(w.PendingPods(), 0);
}

// Twelve pods that each need a node of their own (hostname anti-affinity) on spot capacity that
// consolidates when underutilised, and one spot interruption at 10 minutes: the interrupted pod
// gets a new node, and nothing else should move. Consolidation once looped here, deleting a node
// every 25 s: it placed a candidate's pod on the interrupted pod's node still coming up, and
// left out of the price the NodeClaim the pending pod needed.
constexpr const char* kSpreadWithAnInterruption = R"(
apiVersion: karpenter.sh/v1
kind: NodePool
metadata: {name: default}
spec:
  template:
    spec:
      nodeClassRef: {group: karpenter.k8s.aws, kind: EC2NodeClass, name: default}
      requirements:
        - {key: karpenter.k8s.aws/instance-category, operator: In, values: [c, m]}
        - {key: karpenter.k8s.aws/instance-cpu, operator: In, values: ["2", "4"]}
        - {key: karpenter.sh/capacity-type, operator: In, values: [spot]}
      expireAfter: Never
  disruption: {consolidationPolicy: WhenEmptyOrUnderutilized, consolidateAfter: 0s}
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
metadata: {name: spread, namespace: default}
spec:
  replicas: 0
  selector: {matchLabels: {app: spread}}
  template:
    metadata: {labels: {app: spread}}
    spec:
      affinity:
        podAntiAffinity:
          requiredDuringSchedulingIgnoredDuringExecution:
            - {topologyKey: kubernetes.io/hostname, labelSelector: {matchLabels: {app: spread}}}
      containers:
        - name: app
          image: public.ecr.aws/eks-distro/kubernetes/pause:3.2
          resources: {requests: {cpu: "1", memory: 1Gi}}
---
apiVersion: nodesmith.dev/v1alpha1
kind: Scenario
metadata: {name: spread-with-an-interruption}
spec:
  duration: 40m
  sampleInterval: 1m
  cloud: {launchLatency: 3s, registrationDelay: 20s, readyDelay: 10s, spotInterruptionWarning: 2m}
  settings: {batchIdleDuration: 1s, batchMaxDuration: 10s}
  events:
    - {at: 0s, scale: {kind: Deployment, name: spread, replicas: 12}}
    - {at: 10m, interrupt: {nodePool: default, count: 1, type: spot}}
)";

TEST(DisruptionScenarios, AnInterruptionOfASpreadWorkloadReplacesOneNodeAndNothingChurns) {
  auto set = api::LoadManifestsFromString(kSpreadWithAnInterruption, "spread.yaml");
  ASSERT_TRUE(set.ok()) << set.status().message();
  auto scenario = ScenarioFromInputs(*set);
  ASSERT_TRUE(scenario.ok()) << scenario.status().message();
  WorldOptions options;
  options.check_invariants = true;
  auto world = World::Create(*set, *scenario, options);
  ASSERT_TRUE(world.ok()) << world.status().message();
  World& w = **world;
  w.Run();

  EXPECT_TRUE(w.invariant_violations().empty()) << Violations(w);
  EXPECT_EQ(w.PendingPods(), 0);
  // Twelve nodes for the burst, one for the interrupted pod.
  EXPECT_EQ(Events(w, "NodeClaimCreated").size(), 13u);
  EXPECT_LE(Events(w, "DisruptionDecision").size(), 1u);
}

TEST(DisruptionScenarios, TheDiurnalDayKeepsEveryInvariant) {
  const auto started = std::chrono::steady_clock::now();
  auto world = Simulate("diurnal.yaml");
  const double seconds =
      std::chrono::duration<double>(std::chrono::steady_clock::now() - started).count();
  ASSERT_TRUE(world);
  std::printf("diurnal with invariant checks: %.2f s of CPU-bound wall time, %zu events\n",
              seconds, world->timeline().events().size());
  EXPECT_TRUE(world->invariant_violations().empty()) << Violations(*world);
  EXPECT_EQ(world->PendingPods(), 0);
}

}  // namespace
}  // namespace nodesmith::sim
