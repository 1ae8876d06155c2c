// Repacking over a NodePool (Solver::RepackClaims), one rule per test: which pods may leave the
// zone their NodeClaim was narrowed to, and what stays where it is.
#include <cmath>
#include <map>
#include <set>
#include <string>
#include <vector>

#include <gmock/gmock.h>
#include <gtest/gtest.h>

#include "solver/scheduler.h"
#include "solver/solver_test_fixtures.h"

namespace nodesmith::solver {
namespace {

using ::testing::ElementsAre;
using ::testing::SizeIs;
using namespace nodesmith::solver::testing;

constexpr const char* kZoneKey = "topology.kubernetes.io/zone";
const std::vector<std::string> kZones = {"test-zone-a", "test-zone-b", "test-zone-c"};
// A 2-cpu node per zone, zone a the cheapest; the 16-cpu node costs half as much again per cpu.
const std::map<std::string, double> kSmallPrice = {
    {"test-zone-a", 0.10}, {"test-zone-b", 0.20}, {"test-zone-c", 0.30}};

Cluster ThreeZones() {
  std::map<std::string, double> large_price;
  for (const auto& [zone, price] : kSmallPrice) large_price[zone] = price * 8 * 1.5;
  Cluster c;
  c.Add(TypeSpec{.name = "s2", .cpu = "2", .zones = kZones, .zone_prices = kSmallPrice})
      .Add(TypeSpec{.name = "b16", .cpu = "16", .zones = kZones, .zone_prices = large_price})
      .Add(MakePool("default"));
  return c;
}

// One replica of a Deployment spread over zones with maxSkew 1.
api::Pod ZoneSpreadWebPod(const std::string& name, int creation_second) {
  api::Pod p = MakePod(name, "1", "", creation_second);
  p.metadata.labels = {{"app", "web"}};
  api::TopologySpreadConstraint tsc;
  tsc.max_skew = 1;
  tsc.topology_key = kZoneKey;
  tsc.label_selector = api::LabelSelector{{{"app", "web"}}, {}};
  p.spec.topology_spread_constraints.push_back(tsc);
  return p;
}

// The NodeClaim holding `pod` ("default/<name>"), or nullptr.
const NewNodeClaim* ClaimOf(const Results& r, const std::string& pod) {
  for (const auto& c : r.new_node_claims) {
    for (const auto& p : c.pods) {
      if (p == pod) return &c;
    }
  }
  return nullptr;
}

// The single zone the NodeClaim requires, or "" when it requires none or several.
std::string RequiredZone(const NewNodeClaim& c) {
  const scheduling::Requirement* r = c.requirements.Find(kZoneKey);
  if (r == nullptr || r->op() != scheduling::Operator::kIn || r->Len() != 1) return "";
  return r->Any();
}

TEST(RepackClaims, PodsFreeOfTopologyLeaveTheZonesSpreadPodsPinnedTheirNodeClaimsTo) {
  // Three web pods, one per zone, and 30 batch pods of 1 cpu. Karpenter's packing puts a third
  // of the pods in each zone (each web pod narrows its NodeClaim to its zone, the batch pods
  // follow the fewest-pods rule), so packing each zone's NodeClaims on their own pays for 2-cpu
  // nodes in the dear zones too. Across the NodePool only the web pods need those zones.
  Cluster c = ThreeZones();
  for (int i = 1; i <= 3; ++i) c.Add(ZoneSpreadWebPod("web-" + std::to_string(i), i));
  for (int i = 1; i <= 30; ++i) c.Add(MakePod("batch-" + std::to_string(i), "1", "", 10 + i));
  Cluster karpenter = c;
  karpenter.options.repack = false;
  const Results before = karpenter.Solve();
  const Results r = c.Solve();
  ASSERT_EQ(before.scheduled, 33);
  ASSERT_EQ(r.scheduled, 33);

  std::map<std::string, int> pods_in_zone;
  for (const auto& n : before.new_node_claims) pods_in_zone[n.launch.zone] += static_cast<int>(n.pods.size());
  ASSERT_THAT(pods_in_zone, SizeIs(3));
  double per_zone = 0;  // the best any packing within each zone can do
  for (const auto& [zone, pods] : pods_in_zone) per_zone += std::ceil(pods / 2.0) * kSmallPrice.at(zone);
  // One node in each of zones b and c (a web pod and a batch pod), the other 29 pods in zone a.
  const double pooled = kSmallPrice.at("test-zone-b") + kSmallPrice.at("test-zone-c") +
                        std::ceil(29 / 2.0) * kSmallPrice.at("test-zone-a");
  EXPECT_LT(pooled, per_zone);
  EXPECT_NEAR(r.price_per_hour, pooled, 1e-9);

  // The spread is untouched: each web pod's NodeClaim still requires its zone, one per zone.
  std::set<std::string> web_zones, web_zones_before;
  for (int i = 1; i <= 3; ++i) {
    const std::string pod = "default/web-" + std::to_string(i);
    const NewNodeClaim* claim = ClaimOf(r, pod);
    const NewNodeClaim* claim_before = ClaimOf(before, pod);
    ASSERT_NE(claim, nullptr);
    ASSERT_NE(claim_before, nullptr);
    EXPECT_EQ(RequiredZone(*claim), RequiredZone(*claim_before)) << pod;
    EXPECT_EQ(claim->launch.zone, RequiredZone(*claim)) << pod;
    web_zones.insert(RequiredZone(*claim));
    web_zones_before.insert(RequiredZone(*claim_before));
  }
  EXPECT_THAT(web_zones, ElementsAre("test-zone-a", "test-zone-b", "test-zone-c"));
  EXPECT_EQ(web_zones, web_zones_before);
}

TEST(RepackClaims, PodsWhoseOwnRequirementsNarrowTheNodePoolStayWhereTheyHold) {
  // As above, plus pods selecting the dear zone c: they may only move between NodeClaims that
  // require zone c. Pods selecting the NodePool itself narrow nothing and may go anywhere.
  Cluster c = ThreeZones();
  for (int i = 1; i <= 3; ++i) c.Add(ZoneSpreadWebPod("web-" + std::to_string(i), i));
  for (int i = 1; i <= 24; ++i) c.Add(MakePod("batch-" + std::to_string(i), "1", "", 10 + i));
  for (int i = 1; i <= 6; ++i) {
    api::Pod p = MakePod("zonal-" + std::to_string(i), "1", "", 40 + i);
    p.spec.node_selector = {{kZoneKey, "test-zone-c"}};
    c.Add(p);
  }
  for (int i = 1; i <= 4; ++i) {
    api::Pod p = MakePod("pool-" + std::to_string(i), "1", "", 50 + i);
    p.spec.node_selector = {{"karpenter.sh/nodepool", "default"}};
    c.Add(p);
  }
  Cluster karpenter = c;
  karpenter.options.repack = false;
  const Results before = karpenter.Solve();
  const Results r = c.Solve();
  ASSERT_EQ(r.scheduled, 37);
  EXPECT_LT(r.price_per_hour, before.price_per_hour);
  for (int i = 1; i <= 6; ++i) {
    const std::string pod = "default/zonal-" + std::to_string(i);
    const NewNodeClaim* claim = ClaimOf(r, pod);
    ASSERT_NE(claim, nullptr);
    EXPECT_EQ(RequiredZone(*claim), "test-zone-c") << pod;
    EXPECT_EQ(claim->launch.zone, "test-zone-c") << pod;
  }
  // Zone c holds its web pod and the six zonal pods on 2-cpu nodes: four of them.
  double zone_c = 0;
  for (const auto& n : r.new_node_claims) {
    if (n.launch.zone == "test-zone-c") zone_c += n.launch.price_per_hour;
  }
  EXPECT_NEAR(zone_c, 4 * kSmallPrice.at("test-zone-c"), 1e-9);
  // Every other pod but web-b and the one beside it goes to zone a, the pods selecting the
  // NodePool too: 37 pods, 8 in zone c, 2 in zone b.
  const double pooled = 4 * kSmallPrice.at("test-zone-c") + kSmallPrice.at("test-zone-b") +
                        std::ceil((37 - 8 - 2) / 2.0) * kSmallPrice.at("test-zone-a");
  EXPECT_NEAR(r.price_per_hour, pooled, 1e-9);
}

TEST(RepackClaims, ANodePoolWithOneNodeClaimIsNotSplit) {
  // Eight 1-cpu pods fill one 16-cpu node that four 2-cpu nodes would undercut; a solve whose
  // answer is one node (what consolidation asks for) keeps it.
  Cluster c = ThreeZones();
  for (int i = 1; i <= 8; ++i) c.Add(MakePod("batch-" + std::to_string(i), "1", "", i));
  const Results r = c.Solve();
  ASSERT_THAT(r.new_node_claims, SizeIs(1));
  EXPECT_EQ(r.new_node_claims[0].launch.instance_type, "b16");
  EXPECT_THAT(r.new_node_claims[0].pods, SizeIs(8));
}

}  // namespace
}  // namespace nodesmith::solver
