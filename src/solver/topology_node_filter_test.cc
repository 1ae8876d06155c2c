// TopologyNodeFilter: which nodes count for a spread constraint under nodeAffinityPolicy and
// nodeTaintsPolicy.
#include "solver/topology_node_filter.h"

#include <gtest/gtest.h>

namespace nodesmith::solver {
namespace {

using scheduling::Requirements;

api::Pod PodOnPool(const std::string& pool) {
  api::Pod pod;
  pod.spec.node_selector = {{"pool", pool}};
  return pod;
}

const api::Taint kTaint{"dedicated", "db", "NoSchedule"};

TEST(TopologyNodeFilter, DefaultFilterPassesEveryNode) {
  TopologyNodeFilter f;
  EXPECT_TRUE(f.Matches({kTaint}, Requirements::FromLabels({{"pool", "x"}})));
}

TEST(TopologyNodeFilter, HonoredAffinityCountsOnlyNodesMatchingTheNodeSelector) {
  TopologyNodeFilter f(PodOnPool("web"), /*honor_taints=*/false, /*honor_affinity=*/true);
  EXPECT_TRUE(f.Matches({}, Requirements::FromLabels({{"pool", "web"}})));
  EXPECT_FALSE(f.Matches({}, Requirements::FromLabels({{"pool", "db"}})));
  EXPECT_FALSE(f.Matches({}, Requirements::FromLabels({})));
}

TEST(TopologyNodeFilter, IgnoredAffinityCountsEveryNode) {
  TopologyNodeFilter f(PodOnPool("web"), false, /*honor_affinity=*/false);
  EXPECT_TRUE(f.Matches({}, Requirements::FromLabels({{"pool", "db"}})));
}

TEST(TopologyNodeFilter, RequiredTermsAreOredWithTheNodeSelectorAnded) {
  api::Pod pod = PodOnPool("web");
  auto& required = pod.spec.affinity.emplace().node_affinity.emplace().required.emplace();
  for (const char* zone : {"zone-a", "zone-b"}) {
    api::NodeSelectorTerm t;
    t.match_expressions.push_back({"topology.kubernetes.io/zone", "In", {zone}, std::nullopt});
    required.node_selector_terms.push_back(t);
  }
  TopologyNodeFilter f(pod, false, true);
  EXPECT_TRUE(f.Matches(
      {}, Requirements::FromLabels({{"pool", "web"}, {"topology.kubernetes.io/zone", "zone-b"}})));
  EXPECT_FALSE(f.Matches(
      {}, Requirements::FromLabels({{"pool", "web"}, {"topology.kubernetes.io/zone", "zone-c"}})));
  EXPECT_FALSE(f.Matches(
      {}, Requirements::FromLabels({{"pool", "db"}, {"topology.kubernetes.io/zone", "zone-a"}})));
}

TEST(TopologyNodeFilter, HonoredTaintsCountOnlyNodesThePodTolerates) {
  api::Pod pod;
  TopologyNodeFilter strict(pod, /*honor_taints=*/true, true);
  EXPECT_FALSE(strict.Matches({kTaint}, Requirements()));
  EXPECT_TRUE(strict.Matches({}, Requirements()));
  pod.spec.tolerations.push_back({"dedicated", "Equal", "db", "NoSchedule", std::nullopt});
  TopologyNodeFilter tolerant(pod, true, true);
  EXPECT_TRUE(tolerant.Matches({kTaint}, Requirements()));
  TopologyNodeFilter ignoring(api::Pod(), /*honor_taints=*/false, true);
  EXPECT_TRUE(ignoring.Matches({kTaint}, Requirements()));
}

TEST(TopologyNodeFilter, FingerprintDistinguishesPolicies) {
  api::Pod pod = PodOnPool("web");
  EXPECT_EQ(TopologyNodeFilter(pod, false, true).Fingerprint(),
            TopologyNodeFilter(pod, false, true).Fingerprint());
  EXPECT_NE(TopologyNodeFilter(pod, false, true).Fingerprint(),
            TopologyNodeFilter(pod, true, true).Fingerprint());
  EXPECT_NE(TopologyNodeFilter(pod, false, true).Fingerprint(),
            TopologyNodeFilter(PodOnPool("db"), false, true).Fingerprint());
}

}  // namespace
}  // namespace nodesmith::solver
