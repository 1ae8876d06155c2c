// Topology through the whole scheduler (Solve): spread, affinity, anti-affinity and volume zones
// decide where NodeClaims launch and which pods share them. Complements topology_test.cc, which
// pins Topology on its own.
#include <gmock/gmock.h>
#include <gtest/gtest.h>

#include <map>
#include <string>

#include "solver/scheduler.h"
#include "solver/solver_test_fixtures.h"

namespace nodesmith::solver {
namespace {

using ::testing::HasSubstr;
using ::testing::IsEmpty;
using ::testing::SizeIs;
using namespace nodesmith::solver::testing;

constexpr const char* kZone = "topology.kubernetes.io/zone";
constexpr const char* kHostname = "kubernetes.io/hostname";

// One roomy type offered in three zones, one NodePool: only topology separates pods.
Cluster ThreeZones() {
  Cluster c;
  c.Add(TypeSpec{.name = "big",
                 .cpu = "64",
                 .memory = "256Gi",
                 .price = 1.0,
                 .zones = {"test-zone-a", "test-zone-b", "test-zone-c"}})
      .Add(MakePool("default"));
  return c;
}

api::LabelSelector Select(api::Labels labels) {
  api::LabelSelector s;
  s.match_labels = std::move(labels);
  return s;
}

api::Pod WebPod(int i) {
  api::Pod p = MakePod("web-" + std::to_string(i), "1", "", i);
  p.metadata.labels = {{"app", "web"}};
  return p;
}

api::TopologySpreadConstraint Spread(const std::string& key) {
  api::TopologySpreadConstraint c;
  c.topology_key = key;
  c.max_skew = 1;
  c.label_selector = Select({{"app", "web"}});
  return c;
}

api::PodAffinityTerm Term(const std::string& key, api::Labels labels = {{"app", "web"}}) {
  api::PodAffinityTerm t;
  t.topology_key = key;
  t.label_selector = Select(std::move(labels));
  return t;
}

// Pods per launch zone over all new NodeClaims.
std::map<std::string, int> PodsPerZone(const Results& r) {
  std::map<std::string, int> out;
  for (const auto& c : r.new_node_claims) out[c.launch.zone] += static_cast<int>(c.pods.size());
  return out;
}

TEST(TopologyScheduling, ZonalSpreadOfSixPodsLaunchesTwoPerZone) {
  Cluster c = ThreeZones();
  for (int i = 1; i <= 6; ++i) {
    api::Pod p = WebPod(i);
    p.spec.topology_spread_constraints.push_back(Spread(kZone));
    c.Add(p);
  }
  Results r = c.Solve();
  EXPECT_THAT(r.unschedulable, IsEmpty());
  EXPECT_EQ(PodsPerZone(r), (std::map<std::string, int>{
                                {"test-zone-a", 2}, {"test-zone-b", 2}, {"test-zone-c", 2}}));
}

TEST(TopologyScheduling, ZonalSpreadFillsTheZonesExistingPodsLeaveEmpty) {
  Cluster c = ThreeZones();
  c.Add(MakeNode("node-a", "1", "4Gi", {{kZone, "test-zone-a"}}));
  c.Add(MakeNode("node-b", "1", "4Gi", {{kZone, "test-zone-b"}}));
  for (auto [name, node] :
       {std::pair{"old-1", "node-a"}, {"old-2", "node-a"}, {"old-3", "node-b"}}) {
    api::Pod p = MakePod(name, "");
    p.metadata.labels = {{"app", "web"}};
    p.spec.node_name = node;
    p.status.phase = "Running";
    c.Add(p);
  }
  for (int i = 1; i <= 3; ++i) {
    api::Pod p = WebPod(i);
    p.spec.topology_spread_constraints.push_back(Spread(kZone));
    c.Add(p);
  }
  Results r = c.Solve();
  EXPECT_THAT(r.unschedulable, IsEmpty());
  // Existing 2/1/0: the three new pods make it 2/2/2 — one joins node-b, two launch in zone-c.
  EXPECT_EQ(PodsPerZone(r), (std::map<std::string, int>{{"test-zone-c", 2}}));
  ASSERT_THAT(r.existing_nodes, SizeIs(1));
  EXPECT_EQ(r.existing_nodes[0].name, "node-b");
  EXPECT_THAT(r.existing_nodes[0].pods, SizeIs(1));
}

TEST(TopologyScheduling, HostnameSpreadLaunchesOneNodePerPod) {
  Cluster c = ThreeZones();
  for (int i = 1; i <= 4; ++i) {
    api::Pod p = WebPod(i);
    p.spec.topology_spread_constraints.push_back(Spread(kHostname));
    c.Add(p);
  }
  Results r = c.Solve();
  ASSERT_THAT(r.new_node_claims, SizeIs(4));
  for (const auto& claim : r.new_node_claims) EXPECT_THAT(claim.pods, SizeIs(1));
}

TEST(TopologyScheduling, HostnameAntiAffinityLaunchesOneNodePerPod) {
  Cluster c = ThreeZones();
  for (int i = 1; i <= 3; ++i) {
    api::Pod p = WebPod(i);
    p.spec.affinity.emplace().pod_anti_affinity.emplace().required.push_back(Term(kHostname));
    c.Add(p);
  }
  Results r = c.Solve();
  ASSERT_THAT(r.new_node_claims, SizeIs(3));
  for (const auto& claim : r.new_node_claims) EXPECT_THAT(claim.pods, SizeIs(1));
}

TEST(TopologyScheduling, ZoneAffinityKeepsEveryPodInOneZone) {
  Cluster c;
  // Small nodes, so the pods need several NodeClaims that must all share a zone.
  c.Add(TypeSpec{.name = "small",
                 .cpu = "2",
                 .price = 0.1,
                 .zones = {"test-zone-a", "test-zone-b", "test-zone-c"}})
      .Add(MakePool("default"));
  for (int i = 1; i <= 6; ++i) {
    api::Pod p = WebPod(i);
    p.spec.affinity.emplace().pod_affinity.emplace().required.push_back(Term(kZone));
    c.Add(p);
  }
  Results r = c.Solve();
  EXPECT_THAT(r.unschedulable, IsEmpty());
  ASSERT_GE(r.new_node_claims.size(), 3u);
  EXPECT_THAT(PodsPerZone(r), SizeIs(1));
}

TEST(TopologyScheduling, ZoneAffinityFollowsAnExistingTarget) {
  Cluster c = ThreeZones();
  c.Add(MakeNode("db-node", "1", "4Gi", {{kZone, "test-zone-b"}}));
  api::Pod db = MakePod("db-0", "1");
  db.metadata.labels = {{"app", "db"}};
  db.spec.node_name = "db-node";
  db.status.phase = "Running";
  c.Add(db);
  api::Pod p = WebPod(1);
  p.spec.affinity.emplace().pod_affinity.emplace().required.push_back(Term(kZone, {{"app", "db"}}));
  c.Add(p);
  Results r = c.Solve();
  ASSERT_THAT(r.new_node_claims, SizeIs(1));
  EXPECT_EQ(r.new_node_claims[0].launch.zone, "test-zone-b");
}

TEST(TopologyScheduling, VolumeBoundToAZoneLaunchesInThatZone) {
  Cluster c = ThreeZones();
  api::PersistentVolumeClaim pvc;
  pvc.metadata.name = "data";
  pvc.metadata.namespace_ = "default";
  pvc.storage_class_name = "gp3";
  pvc.volume_name = "pv-1";
  c.objects.persistent_volume_claims.push_back({pvc, {}});
  api::PersistentVolume pv;
  pv.metadata.name = "pv-1";
  api::NodeSelectorTerm term;
  term.match_expressions.push_back(Req(kZone, "In", {"test-zone-c"}));
  pv.node_affinity = api::NodeSelector{{term}};
  c.objects.persistent_volumes.push_back({pv, {}});
  api::Pod p = MakePod("db-0", "1");
  api::Volume v;
  v.name = "data";
  v.pvc_claim_name = "data";
  p.spec.volumes.push_back(v);
  c.Add(p);
  Results r = c.Solve();
  ASSERT_THAT(r.new_node_claims, SizeIs(1));
  EXPECT_EQ(r.new_node_claims[0].launch.zone, "test-zone-c");
}

TEST(TopologyScheduling, MissingClaimMakesThePodUnschedulableWithKarpentersMessage) {
  Cluster c = ThreeZones();
  api::Pod p = MakePod("db-0", "1");
  api::Volume v;
  v.name = "data";
  v.pvc_claim_name = "data";
  p.spec.volumes.push_back(v);
  c.Add(p);
  Results r = c.Solve();
  ASSERT_THAT(r.unschedulable, SizeIs(1));
  EXPECT_THAT(r.unschedulable[0].reason, HasSubstr("persistentvolumeclaims \"data\" not found"));
}

TEST(TopologyScheduling, UnsatisfiablePreferredAntiAffinityIsRelaxedAway) {
  Cluster c;
  c.Add(TypeSpec{.name = "big", .cpu = "64", .memory = "256Gi", .zones = {"test-zone-a"}})
      .Add(MakePool("default"));
  for (int i = 1; i <= 3; ++i) {
    api::Pod p = WebPod(i);
    // One zone only: zone anti-affinity can hold for one pod; as a preference it is dropped.
    p.spec.affinity.emplace().pod_anti_affinity.emplace().preferred.push_back({50, Term(kZone)});
    c.Add(p);
  }
  Results r = c.Solve();
  EXPECT_THAT(r.unschedulable, IsEmpty());
  EXPECT_EQ(PodsPerZone(r), (std::map<std::string, int>{{"test-zone-a", 3}}));
}

TEST(TopologyScheduling, RequiredZoneAntiAffinityPlacesOnePodPerSolve) {
  // Upstream's late committal: the first NodeClaim could still launch in any zone.
  Cluster c = ThreeZones();
  for (int i = 1; i <= 3; ++i) {
    api::Pod p = WebPod(i);
    p.spec.affinity.emplace().pod_anti_affinity.emplace().required.push_back(Term(kZone));
    c.Add(p);
  }
  Results r = c.Solve();
  EXPECT_EQ(r.scheduled, 1);
  ASSERT_THAT(r.unschedulable, SizeIs(2));
  EXPECT_THAT(r.unschedulable[0].reason, HasSubstr("pod anti-affinity"));
}

}  // namespace
}  // namespace nodesmith::solver
