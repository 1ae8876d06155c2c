// Interruption handling end to end: the seed walkthrough's five pods on one spot node, an
// interruption notice at 10 minutes, and the interruption controller, Terminator, provisioner
// and kube-scheduler of the embedded world replacing the node before EC2 takes it.
#include <algorithm>
#include <chrono>
#include <map>

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

// The walkthrough (5 one-CPU pods on the spot Provisioner) with one interruption of the oldest
// node of the pool at 10 minutes, run for 20 minutes.
std::unique_ptr<World> InterruptAtTenMinutes(const std::string& type) {
  auto set = api::LoadManifests({kExamples + "seed-walkthrough/provisioner.yaml",
                                 kExamples + "scenarios/seed-walkthrough.yaml"});
  EXPECT_TRUE(set.ok()) << set.status().message();
  set->scenarios[0].object["spec"]["events"].push_back(
      {{"at", "10m"}, {"interrupt", {{"nodePool", "default"}, {"count", 1}, {"type", type}}}});
  auto scenario = ScenarioFromInputs(*set);
  EXPECT_TRUE(scenario.ok()) << scenario.status().message();
  auto world = World::Create(*set, *scenario);
  EXPECT_TRUE(world.ok()) << world.status().message();
  (*world)->RunUntil((*world)->start() + 20min);
  return std::move(world).value();
}

double Seconds(const World& w, core::Time t) {
  return std::chrono::duration<double>(t - w.start()).count();
}

std::vector<double> Times(const World& w, const std::string& type) {
  std::vector<double> out;
  for (const auto& e : w.timeline().OfType(type)) out.push_back(Seconds(w, e.at));
  return out;
}

TEST(Interruption, ASpotWarningGetsTheNodeReplacedBeforeTheInstanceIsReclaimed) {
  auto world = InterruptAtTenMinutes("spot");
  const World& w = *world;

  // The controller acts on the notice within its poll interval.
  auto interruptions = w.timeline().OfType("Interruption");
  ASSERT_THAT(interruptions, SizeIs(1));
  const double noticed = Seconds(w, interruptions[0].at);
  EXPECT_GE(noticed, 600);
  EXPECT_LE(noticed, 605);
  EXPECT_EQ(Timeline::Field(interruptions[0].event, "kind"), "spot");
  const std::string old_claim = Timeline::Field(interruptions[0].event, "nodeClaim");
  const std::string old_node = Timeline::Field(interruptions[0].event, "node");
  ASSERT_FALSE(old_claim.empty());
  ASSERT_FALSE(old_node.empty());

  // A second node is launched for the evicted pods and is Ready before the 2-minute reclaim.
  auto created = Times(w, "NodeClaimCreated");
  ASSERT_THAT(created, SizeIs(2));
  EXPECT_GE(created[1], noticed);
  auto ready = w.timeline().OfType("NodeReady");
  ASSERT_THAT(ready, SizeIs(2));
  EXPECT_NE(Timeline::Field(ready[1].event, "node"), old_node);
  EXPECT_LT(Seconds(w, ready[1].at), 720) << "the replacement is Ready before EC2 reclaims";

  // The replacement avoids the interrupted offering (marked unavailable for 3 minutes).
  auto launched = w.timeline().OfType("NodeClaimLaunched");
  ASSERT_THAT(launched, SizeIs(2));
  const cloud::sim::SimulatedInstance* first = nullptr;
  const cloud::sim::SimulatedInstance* second = nullptr;
  const std::vector<cloud::sim::SimulatedInstance> instances = w.cloud().Instances();
  for (const auto& inst : instances) {
    if (inst.node_claim_name == old_claim) first = &inst;
    else second = &inst;
  }
  ASSERT_NE(first, nullptr);
  ASSERT_NE(second, nullptr);
  EXPECT_NE(std::make_pair(first->instance_type, first->zone),
            std::make_pair(second->instance_type, second->zone));

  // The old node was drained by the Terminator and its instance terminated, no later than the
  // reclaim.
  EXPECT_THAT(w.timeline().OfType("NodeTainted"), SizeIs(1));
  auto evicted = Times(w, "PodEvicted");
  EXPECT_THAT(evicted, SizeIs(5));
  for (double t : evicted) EXPECT_LT(t, 720);
  auto terminated = Times(w, "InstanceTerminated");
  ASSERT_THAT(terminated, SizeIs(1));
  EXPECT_LE(terminated[0], 720);

  // No pod waited long: every pod that went pending after the notice was bound within 60 s.
  std::map<std::string, double> pending_since;
  for (const auto& e : w.timeline().OfType("PodPending")) {
    if (Seconds(w, e.at) >= 600) pending_since[Timeline::Field(e.event, "pod")] = Seconds(w, e.at);
  }
  EXPECT_THAT(pending_since, SizeIs(5)) << "the five evicted pods come back as new pods";
  for (const auto& e : w.timeline().OfType("PodBound")) {
    auto it = pending_since.find(Timeline::Field(e.event, "pod"));
    if (it == pending_since.end()) continue;
    EXPECT_LE(Seconds(w, e.at) - it->second, 60) << it->first;
    pending_since.erase(it);
  }
  EXPECT_THAT(pending_since, SizeIs(0)) << "every one of them was bound";
  EXPECT_EQ(w.PendingPods(), 0);
  EXPECT_EQ(w.cloud().QueuedNotices(), 0u) << "the notice was deleted from the queue";
}

TEST(Interruption, AScheduledChangeReplacesTheNodeThoughTheCloudWouldKeepIt) {
  auto world = InterruptAtTenMinutes("scheduledChange");
  const World& w = *world;
  auto interruptions = w.timeline().OfType("Interruption");
  ASSERT_THAT(interruptions, SizeIs(1));
  EXPECT_EQ(Timeline::Field(interruptions[0].event, "kind"), "scheduledChange");
  EXPECT_THAT(Times(w, "NodeClaimCreated"), SizeIs(2));
  auto terminated = Times(w, "InstanceTerminated");
  ASSERT_THAT(terminated, SizeIs(1)) << "Karpenter, not the cloud, retires the instance";
  EXPECT_LT(terminated[0], 700);
  // The same offering may be used again: nothing was marked unavailable.
  std::vector<std::string> types;
  for (const auto& inst : w.cloud().Instances()) types.push_back(inst.instance_type + "/" + inst.zone);
  ASSERT_THAT(types, SizeIs(2));
  EXPECT_EQ(types[0], types[1]);
  EXPECT_EQ(w.PendingPods(), 0);
}

}  // namespace
}  // namespace nodesmith::sim
