// Scheduler behaviour, one rule per test: given a cluster, expect these NodeClaims and pods.
#include "solver/scheduler.h"

#include <regex>
#include <set>

#include <gmock/gmock.h>
#include <gtest/gtest.h>

#include "solver/solver_test_fixtures.h"

namespace nodesmith::solver {
namespace {

using ::testing::ElementsAre;
using ::testing::IsEmpty;
using ::testing::SizeIs;
using namespace nodesmith::solver::testing;

Cluster FourSizes() {
  Cluster c;
  c.Add(TypeSpec{.name = "small", .cpu = "2", .price = 0.1})
      .Add(TypeSpec{.name = "medium", .cpu = "4", .price = 0.2})
      .Add(TypeSpec{.name = "large", .cpu = "8", .price = 0.4})
      .Add(TypeSpec{.name = "xlarge", .cpu = "16", .price = 0.8})
      .Add(MakePool("default"));
  return c;
}

TEST(Scheduler, PacksPodsOntoOneNodeClaimWithOptionsCheapestFirst) {
  Cluster c = FourSizes();
  c.Add(MakePod("p1", "1", "", 1)).Add(MakePod("p2", "1", "", 2)).Add(MakePod("p3", "1", "", 3));
  Results r = c.Solve();
  ASSERT_THAT(r.new_node_claims, SizeIs(1));
  const NewNodeClaim& n = r.new_node_claims[0];
  EXPECT_EQ(n.node_pool, "default");
  EXPECT_THAT(n.pods, ElementsAre("default/p1", "default/p2", "default/p3"));
  EXPECT_THAT(n.instance_type_options, ElementsAre("medium", "large", "xlarge"));
  EXPECT_EQ(n.launch.instance_type, "medium");
  EXPECT_EQ(n.launch.zone, "test-zone-a");
  EXPECT_EQ(n.launch.capacity_type, "on-demand");
  EXPECT_DOUBLE_EQ(n.launch.price_per_hour, 0.2);
  EXPECT_EQ(n.requests.Get("cpu").String(), "3");
  EXPECT_EQ(n.requests.Get("memory").String(), "0");
  EXPECT_EQ(n.requests.Get("pods").String(), "3");
  EXPECT_EQ(n.labels.at("karpenter.sh/nodepool"), "default");
  EXPECT_EQ(n.labels.at("node.kubernetes.io/instance-type"), "medium");
  EXPECT_EQ(n.labels.at("topology.kubernetes.io/zone"), "test-zone-a");
  EXPECT_EQ(n.labels.at("karpenter.sh/capacity-type"), "on-demand");
  EXPECT_EQ(n.labels.at("kubernetes.io/arch"), "amd64");
  EXPECT_EQ(r.pending_pods, 3);
  EXPECT_EQ(r.scheduled, 3);
  EXPECT_THAT(r.unschedulable, IsEmpty());
  EXPECT_DOUBLE_EQ(r.price_per_hour, 0.2);
}

TEST(Scheduler, NodeClaimNamesArePoolPlusFiveStableCharacters) {
  Cluster c = FourSizes();
  c.Add(MakePod("p1", "1"));
  Results a = c.Solve();
  Results b = c.Solve();
  ASSERT_THAT(a.new_node_claims, SizeIs(1));
  EXPECT_TRUE(std::regex_match(a.new_node_claims[0].name,
                               std::regex("default-[bcdfghjklmnpqrstvwxz2456789]{5}")))
      << a.new_node_claims[0].name;
  EXPECT_EQ(a.new_node_claims[0].name, b.new_node_claims[0].name);
}

TEST(Scheduler, PodCountIsAResourceLikeAnyOther) {
  Cluster c;
  c.Add(TypeSpec{.name = "tiny-pods", .cpu = "16", .pods = "2"}).Add(MakePool("default"));
  c.Add(MakePod("p1", "1", "", 1)).Add(MakePod("p2", "1", "", 2)).Add(MakePod("p3", "1", "", 3));
  Results r = c.Solve();
  EXPECT_THAT(PodsPerClaim(r), ElementsAre(ElementsAre("default/p1", "default/p2"),
                                           ElementsAre("default/p3")));
}

TEST(Scheduler, NodeSelectorNarrowsTheInstanceTypes) {
  Cluster c = FourSizes();
  api::Pod p = MakePod("p1", "1");
  p.spec.node_selector["node.kubernetes.io/instance-type"] = "large";
  c.Add(p);
  Results r = c.Solve();
  ASSERT_THAT(r.new_node_claims, SizeIs(1));
  EXPECT_THAT(r.new_node_claims[0].instance_type_options, ElementsAre("large"));
}

TEST(Scheduler, PodsAlikeButForANodeSelectorAreNotTreatedAsOne) {
  // p1 and p2 ask for the same and sit side by side; only p2 selects a type. Sharing p1's
  // requirements with p2 would leave every size on the NodeClaim.
  Cluster c = FourSizes();
  c.Add(MakePod("p1", "1", "", 1));
  api::Pod p2 = MakePod("p2", "1", "", 2);
  p2.spec.node_selector["node.kubernetes.io/instance-type"] = "large";
  c.Add(p2);
  Results r = c.Solve();
  ASSERT_THAT(r.new_node_claims, SizeIs(1));
  EXPECT_THAT(r.new_node_claims[0].pods, ElementsAre("default/p1", "default/p2"));
  EXPECT_THAT(r.new_node_claims[0].instance_type_options, ElementsAre("large"));
}

TEST(Scheduler, RequiredNodeAffinityTermsAreTriedInTurn) {
  Cluster c = FourSizes();
  api::Pod p = MakePod("p1", "1");
  api::NodeSelector sel;
  sel.node_selector_terms.push_back({{Req("topology.kubernetes.io/zone", "In", {"nowhere"})}, {}});
  sel.node_selector_terms.push_back({{Req("topology.kubernetes.io/zone", "In", {"test-zone-a"})}, {}});
  p.spec.affinity = api::Affinity{};
  p.spec.affinity->node_affinity = api::NodeAffinity{sel, {}};
  c.Add(p);
  Results r = c.Solve();
  ASSERT_THAT(r.new_node_claims, SizeIs(1));
  EXPECT_EQ(r.new_node_claims[0].labels.at("topology.kubernetes.io/zone"), "test-zone-a");
  EXPECT_THAT(r.unschedulable, IsEmpty());
}

TEST(Scheduler, IgnoringPreferencesStillTriesEveryRequiredTerm) {
  Cluster c = FourSizes();
  c.options.ignore_preferences = true;
  api::Pod p = MakePod("p1", "1");
  api::NodeSelector sel;
  sel.node_selector_terms.push_back({{Req("topology.kubernetes.io/zone", "In", {"nowhere"})}, {}});
  sel.node_selector_terms.push_back({{Req("topology.kubernetes.io/zone", "In", {"test-zone-a"})}, {}});
  p.spec.affinity = api::Affinity{};
  p.spec.affinity->node_affinity = api::NodeAffinity{sel, {}};
  c.Add(p);
  EXPECT_EQ(c.Solve().scheduled, 1);
}

TEST(Scheduler, PodWhoseVolumeClaimIsMissingIsUnschedulableWithTheLookupError) {
  Cluster c = FourSizes();
  api::Pod p = MakePod("db", "1");
  p.spec.volumes.push_back(api::Volume{"data", "data-claim", false});
  c.Add(p);
  Results r = c.Solve();
  ASSERT_THAT(r.unschedulable, SizeIs(1));
  EXPECT_THAT(r.unschedulable[0].reason, ::testing::HasSubstr("\"data-claim\" not found"));
  EXPECT_THAT(r.new_node_claims, IsEmpty());
}

TEST(Scheduler, InFlightNodeClaimsCountAgainstLimits) {
  Cluster c;
  c.Add(TypeSpec{.name = "c4", .cpu = "4", .price = 0.2});
  api::NodePool np = MakePool("default");
  np.limits.Set("cpu", Q("4"));
  c.Add(np);
  api::NodeClaim inflight;
  inflight.metadata.name = "default-abcde";
  inflight.metadata.labels["karpenter.sh/nodepool"] = "default";
  inflight.spec.requirements.push_back(Req("node.kubernetes.io/instance-type", "In", {"c4"}));
  inflight.spec.taints.push_back({"dedicated", "x", "NoSchedule"});  // keeps the pod off it
  c.Add(inflight);
  c.Add(MakePod("p", "1"));
  Results r = c.Solve();
  EXPECT_THAT(r.new_node_claims, IsEmpty());
  ASSERT_THAT(r.unschedulable, SizeIs(1));
  EXPECT_THAT(r.unschedulable[0].reason, ::testing::HasSubstr("remaining limits (cpu 0)"));
}

TEST(Scheduler, PreferredNodeAffinityChoosesTheZoneUnlessIgnored) {
  Cluster c;
  c.Add(TypeSpec{.name = "m", .cpu = "4", .price = 0.2, .zones = {"test-zone-a", "test-zone-b"}})
      .Add(MakePool("default"));
  api::Pod p = MakePod("p1", "1");
  p.spec.affinity = api::Affinity{};
  p.spec.affinity->node_affinity = api::NodeAffinity{
      std::nullopt, {{10, {{Req("topology.kubernetes.io/zone", "In", {"test-zone-b"})}, {}}}}};
  c.Add(p);
  Results respected = c.Solve();
  ASSERT_THAT(respected.new_node_claims, SizeIs(1));
  EXPECT_EQ(respected.new_node_claims[0].launch.zone, "test-zone-b");

  c.options.ignore_preferences = true;
  Results ignored = c.Solve();
  ASSERT_THAT(ignored.new_node_claims, SizeIs(1));
  EXPECT_EQ(ignored.new_node_claims[0].launch.zone, "test-zone-a");
}

TEST(Scheduler, UnsatisfiablePreferenceIsRelaxedAway) {
  Cluster c = FourSizes();
  api::Pod p = MakePod("p1", "1");
  p.spec.affinity = api::Affinity{};
  p.spec.affinity->node_affinity = api::NodeAffinity{
      std::nullopt, {{10, {{Req("topology.kubernetes.io/zone", "In", {"elsewhere"})}, {}}}}};
  c.Add(p);
  Results r = c.Solve();
  EXPECT_THAT(r.new_node_claims, SizeIs(1));
  EXPECT_EQ(r.scheduled, 1);
}

// A tainted GPU pool serves only pods that tolerate its taint; the reason names each pool.
class GpuPools : public ::testing::Test {
 protected:
  GpuPools() {
    c_.Add(TypeSpec{.name = "cpu-type", .cpu = "8", .price = 0.3})
        .Add(TypeSpec{.name = "gpu-type", .cpu = "8", .price = 3.0, .extra_capacity = {{"nvidia.com/gpu", "4"}}});
    api::NodePool gpu = MakePool("gpu", 10);
    gpu.template_.spec.taints.push_back({"nvidia.com/gpu", "true", "NoSchedule"});
    gpu.template_.spec.requirements.push_back(Req("node.kubernetes.io/instance-type", "In", {"gpu-type"}));
    api::NodePool def = MakePool("default");
    def.template_.spec.requirements.push_back(Req("node.kubernetes.io/instance-type", "In", {"cpu-type"}));
    c_.Add(gpu).Add(def);
  }
  static api::Pod GpuPod(const std::string& name, bool tolerates) {
    api::Pod p = MakePod(name, "1");
    p.spec.containers[0].resources.requests.Set("nvidia.com/gpu", Q("2"));
    if (tolerates) p.spec.tolerations.push_back({"nvidia.com/gpu", "Exists", "", "NoSchedule", std::nullopt});
    return p;
  }
  Cluster c_;
};

TEST_F(GpuPools, PodThatToleratesAndRequestsGpuGoesToGpuPool) {
  c_.Add(GpuPod("train", true));
  Results r = c_.Solve();
  ASSERT_THAT(r.new_node_claims, SizeIs(1));
  EXPECT_EQ(r.new_node_claims[0].node_pool, "gpu");
  EXPECT_THAT(r.new_node_claims[0].instance_type_options, ElementsAre("gpu-type"));
  EXPECT_EQ(r.new_node_claims[0].taints, (std::vector<api::Taint>{{"nvidia.com/gpu", "true", "NoSchedule"}}));
}

TEST_F(GpuPools, OrdinaryPodSkipsTheTaintedPool) {
  c_.Add(MakePod("web", "1"));
  Results r = c_.Solve();
  ASSERT_THAT(r.new_node_claims, SizeIs(1));
  EXPECT_EQ(r.new_node_claims[0].node_pool, "default");
}

TEST_F(GpuPools, GpuPodWithoutTolerationIsUnschedulableWithAReasonPerPool) {
  c_.Add(GpuPod("train", false));
  Results r = c_.Solve();
  EXPECT_THAT(r.new_node_claims, IsEmpty());
  ASSERT_THAT(r.unschedulable, SizeIs(1));
  EXPECT_EQ(r.unschedulable[0].pod, "default/train");
  EXPECT_EQ(r.unschedulable[0].reason,
            "incompatible with nodepool gpu: taint nvidia.com/gpu=true:NoSchedule not tolerated; "
            "incompatible with nodepool default: no instance type has 2 nvidia.com/gpu");
}

TEST(Scheduler, TooLargePodNamesTheResource) {
  Cluster c = FourSizes();
  c.Add(MakePod("big", "512"));
  Results r = c.Solve();
  ASSERT_THAT(r.unschedulable, SizeIs(1));
  EXPECT_EQ(r.unschedulable[0].reason, "incompatible with nodepool default: no instance type fits cpu 512");
  EXPECT_EQ(r.scheduled, 0);
}

TEST(Scheduler, HostPortConflictsForceSeparateNodes) {
  Cluster c = FourSizes();
  for (const char* name : {"a", "b"}) {
    api::Pod p = MakePod(name, "1", "", name[0] == 'a' ? 1 : 2);
    p.spec.containers[0].ports.push_back({"http", 8080, 80, "TCP", ""});
    c.Add(p);
  }
  Results r = c.Solve();
  EXPECT_THAT(PodsPerClaim(r), ElementsAre(ElementsAre("default/a"), ElementsAre("default/b")));
}

TEST(Scheduler, DaemonSetOverheadCountsOnlyWhereItsPodsWouldRun) {
  Cluster c;
  c.Add(TypeSpec{.name = "two", .cpu = "2", .price = 0.1})
      .Add(TypeSpec{.name = "four", .cpu = "4", .price = 0.2})
      .Add(MakePool("default"));
  api::DaemonSet logging;
  logging.metadata.name = "logging";
  logging.metadata.namespace_ = "kube-system";
  logging.template_.spec.containers.push_back(api::Container{});
  logging.template_.spec.containers[0].resources.requests.Set("cpu", Q("1"));
  api::DaemonSet ssd_only = logging;
  ssd_only.metadata.name = "ssd-only";
  ssd_only.template_.spec.node_selector["example.com/disk"] = "ssd";
  c.Add(logging).Add(ssd_only);
  c.Add(MakePod("p", "1500m"));
  Results r = c.Solve();
  ASSERT_THAT(r.new_node_claims, SizeIs(1));
  EXPECT_THAT(r.new_node_claims[0].instance_type_options, ElementsAre("four"));
  EXPECT_EQ(r.new_node_claims[0].requests.Get("cpu").String(), "2500m");
  EXPECT_EQ(r.new_node_claims[0].requests.Get("pods").String(), "2");
}

TEST(Scheduler, TheDecisionIsAnnouncedOnceBeforeTheBoundWithOrWithoutIt) {
  for (bool bound : {true, false}) {
    Cluster c = FourSizes();
    c.Add(MakePod("p", "1"));
    int calls = 0;
    c.options.compute_lower_bound = bound;
    c.options.on_decided = [&calls] { ++calls; };
    Results r = c.Solve();
    ASSERT_THAT(r.new_node_claims, SizeIs(1));
    EXPECT_EQ(calls, 1) << "lower bound " << bound;
  }
}

TEST(Scheduler, HigherWeightNodePoolIsTriedFirstThenName) {
  Cluster c;
  c.Add(TypeSpec{.name = "m", .price = 0.2});
  c.Add(MakePool("a")).Add(MakePool("c", 50)).Add(MakePool("b", 50));
  c.Add(MakePod("p", "1"));
  Results r = c.Solve();
  ASSERT_THAT(r.new_node_claims, SizeIs(1));
  EXPECT_EQ(r.new_node_claims[0].node_pool, "c") << "equal weights: name descending, as Karpenter";
}

TEST(Scheduler, NodePoolLimitsCountExistingCapacityAndShrinkDuringTheSolve) {
  Cluster c;
  c.Add(TypeSpec{.name = "c4", .cpu = "4", .price = 0.2}).Add(TypeSpec{.name = "c8", .cpu = "8", .price = 0.4});
  api::NodePool np = MakePool("default");
  np.limits.Set("cpu", Q("8"));
  c.Add(np);
  api::Node full = MakeNode("old", "4", "16Gi", {{"karpenter.sh/nodepool", "default"}});
  full.spec.taints.push_back({"dedicated", "x", "NoSchedule"});
  c.Add(full);
  c.Add(MakePod("p1", "3", "", 1)).Add(MakePod("p2", "3", "", 2));
  Results r = c.Solve();
  ASSERT_THAT(r.new_node_claims, SizeIs(1));
  EXPECT_THAT(r.new_node_claims[0].instance_type_options, ElementsAre("c4"));
  ASSERT_THAT(r.unschedulable, SizeIs(1));
  EXPECT_EQ(r.unschedulable[0].pod, "default/p2");
  EXPECT_EQ(r.unschedulable[0].reason,
            "incompatible with nodepool default: all instance types that fit exceed the nodepool's "
            "remaining limits (cpu 0)");
}

TEST(Scheduler, ANodesLimitCountsEveryNodeOldAndNew) {
  // limits.nodes 3: the existing node counts as one, each new NodeClaim as one, so of three pods
  // that each need a node of their own two get one and the third is refused.
  Cluster c;
  c.Add(TypeSpec{.name = "c4", .cpu = "4", .price = 0.2});
  api::NodePool np = MakePool("default");
  np.limits.Set("nodes", Q("3"));
  c.Add(np);
  api::Node full = MakeNode("old", "4", "16Gi", {{"karpenter.sh/nodepool", "default"}});
  full.spec.taints.push_back({"dedicated", "x", "NoSchedule"});
  c.Add(full);
  for (int i = 1; i <= 3; ++i) c.Add(MakePod("p" + std::to_string(i), "3", "", i));
  Results r = c.Solve();
  EXPECT_THAT(PodsPerClaim(r), ElementsAre(ElementsAre("default/p1"), ElementsAre("default/p2")));
  ASSERT_THAT(r.unschedulable, SizeIs(1));
  EXPECT_EQ(r.unschedulable[0].pod, "default/p3");
  EXPECT_EQ(r.unschedulable[0].reason,
            "incompatible with nodepool default: node limits have been exhausted for nodepool");
}

TEST(Scheduler, ANodesLimitAlreadyReachedLaunchesNothingAndOtherLimitsStillApply) {
  Cluster c;
  c.Add(TypeSpec{.name = "c4", .cpu = "4", .price = 0.2});
  api::NodePool np = MakePool("default");
  np.limits.Set("nodes", Q("1"));
  np.limits.Set("cpu", Q("100"));
  c.Add(np);
  api::Node full = MakeNode("old", "4", "16Gi", {{"karpenter.sh/nodepool", "default"}});
  full.spec.taints.push_back({"dedicated", "x", "NoSchedule"});
  c.Add(full).Add(MakePod("p", "1"));
  Results r = c.Solve();
  EXPECT_THAT(r.new_node_claims, IsEmpty());
  ASSERT_THAT(r.unschedulable, SizeIs(1));
  EXPECT_THAT(r.unschedulable[0].reason, ::testing::HasSubstr("node limits have been exhausted"));
}

TEST(Scheduler, LimitsNarrowLaterNodeClaimsOfTheSamePods) {
  // Three alike pods that cannot share a node (one host port), a pool limit of 12 cpu. The first
  // NodeClaim may still launch c8 (8 of 12 counted), the second only c4 (the 4 left), the third
  // nothing.
  Cluster c;
  c.Add(TypeSpec{.name = "c4", .cpu = "4", .price = 0.2}).Add(TypeSpec{.name = "c8", .cpu = "8", .price = 0.4});
  api::NodePool np = MakePool("default");
  np.limits.Set("cpu", Q("12"));
  c.Add(np);
  for (int i = 1; i <= 3; ++i) {
    api::Pod p = MakePod("p" + std::to_string(i), "3", "", i);
    p.spec.containers[0].ports.push_back({"http", 8080, 80, "TCP", ""});
    c.Add(p);
  }
  Results r = c.Solve();
  ASSERT_THAT(r.new_node_claims, SizeIs(2));
  EXPECT_THAT(r.new_node_claims[0].instance_type_options, ElementsAre("c4", "c8"));
  EXPECT_THAT(r.new_node_claims[1].instance_type_options, ElementsAre("c4"));
  ASSERT_THAT(r.unschedulable, SizeIs(1));
  EXPECT_EQ(r.unschedulable[0].pod, "default/p3");
  EXPECT_THAT(r.unschedulable[0].reason, ::testing::HasSubstr("remaining limits (cpu 0)"));
}

TEST(Scheduler, RepackingUnderACpuLimitLeavesUnlimitedResourcesAlone) {
  // Greedy placement puts 8 pods on a c8 and 2 on a c2 ($0.9); five c2 hold them for $0.5. The
  // pool limits cpu only: memory and pods are unlimited, and the limit bookkeeping must not
  // count them (it once added to the "unlimited" sentinel and overflowed).
  Cluster c;
  c.Add(TypeSpec{.name = "c2", .cpu = "2", .price = 0.1}).Add(TypeSpec{.name = "c8", .cpu = "8", .price = 0.8});
  api::NodePool np = MakePool("default");
  np.limits.Set("cpu", Q("100"));
  c.Add(np);
  for (int i = 1; i <= 10; ++i) c.Add(MakePod("p" + std::to_string(i), "1", "", i));
  Results r = c.Solve();
  EXPECT_THAT(r.unschedulable, IsEmpty());
  EXPECT_NEAR(r.price_per_hour, 0.5, 1e-9);
  for (const auto& n : r.new_node_claims) EXPECT_EQ(n.launch.instance_type, "c2");
}

class MinValues : public ::testing::Test {
 protected:
  MinValues() {
    c_.Add(TypeSpec{.name = "a", .cpu = "2", .price = 0.1})
        .Add(TypeSpec{.name = "b", .cpu = "4", .price = 0.2})
        .Add(TypeSpec{.name = "c", .cpu = "8", .price = 0.4});
    api::NodePool np = MakePool("default");
    np.template_.spec.requirements.push_back(
        Req("node.kubernetes.io/instance-type", "In", {"a", "b", "c"}, 3));
    c_.Add(np).Add(MakePod("p", "3"));
  }
  Cluster c_;
};

TEST_F(MinValues, StrictFailsTheNodeClaimWhenTooFewTypesFit) {
  Results r = c_.Solve();
  EXPECT_THAT(r.new_node_claims, IsEmpty());
  ASSERT_THAT(r.unschedulable, SizeIs(1));
  EXPECT_EQ(r.unschedulable[0].reason,
            "incompatible with nodepool default: minValues requirement not met for "
            "node.kubernetes.io/instance-type: 2 value(s) available, 3 required");
}

TEST_F(MinValues, BestEffortRelaxesToWhatTheOptionsOffer) {
  c_.options.min_values_best_effort = true;
  Results r = c_.Solve();
  ASSERT_THAT(r.new_node_claims, SizeIs(1));
  EXPECT_THAT(r.new_node_claims[0].instance_type_options, ElementsAre("b", "c"));
  EXPECT_EQ(r.new_node_claims[0].requirements.Find("node.kubernetes.io/instance-type")->min_values(), 2);
}

TEST(MinValuesOnEveryAdd, StrictRefusesAPodThatWouldLeaveTooFewTypesSoItOpensAnotherNodeClaim) {
  // minValues 2 on the instance type. Two 2-cpu pods leave b and c; a third pod would leave
  // only c, so under Strict it is refused and opens a NodeClaim of its own (nodeclaim.go CanAdd).
  Cluster c;
  c.Add(TypeSpec{.name = "a", .cpu = "2", .price = 0.1})
      .Add(TypeSpec{.name = "b", .cpu = "4", .price = 0.2})
      .Add(TypeSpec{.name = "c", .cpu = "8", .price = 0.4});
  api::NodePool np = MakePool("default");
  np.template_.spec.requirements.push_back(
      Req("node.kubernetes.io/instance-type", "In", {"a", "b", "c"}, 2));
  c.Add(np);
  c.Add(MakePod("p1", "2", "", 1)).Add(MakePod("p2", "2", "", 2)).Add(MakePod("p3", "1", "", 3));
  Results r = c.Solve();
  ASSERT_THAT(r.new_node_claims, SizeIs(2));
  for (const auto& claim : r.new_node_claims) {
    EXPECT_GE(claim.instance_type_options.size(), 2u)
        << claim.name << " keeps fewer instance types than minValues asks for";
  }
  EXPECT_TRUE(r.unschedulable.empty());
}

TEST(Scheduler, ExistingNodesThenInFlightNodeClaimsThenNewNodeClaims) {
  Cluster c = FourSizes();
  c.Add(MakeNode("node-1", "1", "4Gi"));
  api::NodeClaim inflight;
  inflight.metadata.name = "default-inflt";
  inflight.metadata.labels["karpenter.sh/nodepool"] = "default";
  inflight.status.allocatable = {{"cpu", Q("2")}, {"memory", Q("8Gi")}, {"pods", Q("110")}};
  c.Add(inflight);
  for (int i = 1; i <= 4; ++i) c.Add(MakePod("p" + std::to_string(i), "1", "", i));
  Results r = c.Solve();
  ASSERT_THAT(r.existing_nodes, SizeIs(2));
  EXPECT_EQ(r.existing_nodes[0].name, "node-1");
  EXPECT_THAT(r.existing_nodes[0].pods, ElementsAre("default/p1"));
  EXPECT_EQ(r.existing_nodes[1].name, "default-inflt");
  EXPECT_TRUE(r.existing_nodes[1].in_flight);
  EXPECT_THAT(r.existing_nodes[1].pods, ElementsAre("default/p2", "default/p3"));
  EXPECT_THAT(PodsPerClaim(r), ElementsAre(ElementsAre("default/p4")));
}

TEST(Scheduler, BoundPodsUseUpExistingNodes) {
  Cluster c = FourSizes();
  c.Add(MakeNode("node-1", "2", "4Gi"));
  api::Pod bound = MakePod("running", "1500m");
  bound.spec.node_name = "node-1";
  c.Add(bound);
  c.Add(MakePod("p", "1"));
  Results r = c.Solve();
  EXPECT_THAT(r.existing_nodes, IsEmpty());
  EXPECT_THAT(PodsPerClaim(r), ElementsAre(ElementsAre("default/p")));
  EXPECT_EQ(r.pending_pods, 1);
}

TEST(Scheduler, BiggestPodsArePlacedFirst) {
  Cluster c;
  c.Add(TypeSpec{.name = "m", .cpu = "4", .price = 0.2}).Add(MakePool("default"));
  // In input order small ones first; bin-packing biggest-first gives 2 nodes, not 3.
  c.Add(MakePod("s1", "1", "", 1)).Add(MakePod("s2", "1", "", 2)).Add(MakePod("b1", "3", "", 3))
      .Add(MakePod("b2", "3", "", 4));
  Results r = c.Solve();
  EXPECT_THAT(PodsPerClaim(r), ElementsAre(ElementsAre("default/b1", "default/s1"),
                                           ElementsAre("default/b2", "default/s2")));
}

TEST(Scheduler, NewNodeClaimsWithFewestPodsAreTriedFirst) {
  Cluster c;
  c.Add(TypeSpec{.name = "m", .cpu = "10", .price = 0.2}).Add(MakePool("default"));
  c.Add(MakePod("x1", "4", "", 1)).Add(MakePod("x2", "4", "", 2)).Add(MakePod("y", "3", "", 3));
  c.Add(MakePod("d", "1", "", 4));
  // x1 and x2 fill claim 1 to 8 CPUs; y opens claim 2. d fits both, and goes to claim 2, the
  // one with fewer pods.
  Results r = c.Solve();
  EXPECT_THAT(PodsPerClaim(r), ElementsAre(ElementsAre("default/x1", "default/x2"),
                                           ElementsAre("default/y", "default/d")));
}

TEST(Scheduler, LowerBoundIsTheFractionalOptimumAndNeverAbovePrice) {
  Cluster c = FourSizes();
  c.Add(MakePod("p1", "1", "", 1)).Add(MakePod("p2", "1", "", 2)).Add(MakePod("p3", "1", "", 3));
  Results r = c.Solve();
  // Every type costs 0.05 per CPU: three CPUs cost at least 0.15.
  EXPECT_NEAR(r.lower_bound_per_hour, 0.15, 1e-9);
  EXPECT_LE(r.lower_bound_per_hour, r.price_per_hour);
}

TEST(Scheduler, NoNodePoolsMeansEveryPodIsUnschedulable) {
  Cluster c;
  c.Add(TypeSpec{.name = "m"}).Add(MakePod("p", "1"));
  Results r = c.Solve();
  ASSERT_THAT(r.unschedulable, SizeIs(1));
  EXPECT_EQ(r.unschedulable[0].reason, "no nodepool can launch nodes (none given)");
}

api::Pod WebPod(const std::string& name, int second) {
  api::Pod p = MakePod(name, "1", "", second);
  p.metadata.labels["app"] = "web";
  return p;
}

api::LabelSelector AppWeb() { return api::LabelSelector{{{"app", "web"}}, {}}; }

TEST(SchedulerTopology, ZonalSpreadPutsEachPodInAnotherZone) {
  Cluster c;
  c.Add(TypeSpec{.name = "m", .cpu = "8", .price = 0.2,
                 .zones = {"test-zone-a", "test-zone-b", "test-zone-c"}})
      .Add(MakePool("default"));
  for (int i = 1; i <= 3; ++i) {
    api::Pod p = WebPod("web-" + std::to_string(i), i);
    api::TopologySpreadConstraint tsc;
    tsc.max_skew = 1;
    tsc.topology_key = "topology.kubernetes.io/zone";
    tsc.label_selector = AppWeb();
    p.spec.topology_spread_constraints.push_back(tsc);
    c.Add(p);
  }
  Results r = c.Solve();
  ASSERT_THAT(r.new_node_claims, SizeIs(3));
  std::set<std::string> zones;
  for (const auto& n : r.new_node_claims) zones.insert(n.launch.zone);
  EXPECT_THAT(zones, ElementsAre("test-zone-a", "test-zone-b", "test-zone-c"));
  EXPECT_EQ(r.scheduled, 3);
}

TEST(SchedulerTopology, HostnameAntiAffinityGivesEachPodItsOwnNode) {
  Cluster c = FourSizes();
  for (int i = 1; i <= 3; ++i) {
    api::Pod p = WebPod("web-" + std::to_string(i), i);
    p.spec.affinity = api::Affinity{};
    p.spec.affinity->pod_anti_affinity = api::PodAffinity{};
    api::PodAffinityTerm term;
    term.label_selector = AppWeb();
    term.topology_key = "kubernetes.io/hostname";
    p.spec.affinity->pod_anti_affinity->required.push_back(term);
    c.Add(p);
  }
  c.Add(MakePod("other", "1", "", 9));
  Results r = c.Solve();
  EXPECT_THAT(r.new_node_claims, SizeIs(3));
  EXPECT_EQ(r.scheduled, 4);
  for (const auto& n : r.new_node_claims) {
    int web = 0;
    for (const auto& pod : n.pods) web += pod.rfind("default/web-", 0) == 0;
    EXPECT_EQ(web, 1) << n.name;
  }
}

}  // namespace
}  // namespace nodesmith::solver
