// Which DaemonSets take a share of a new node, per NodePool and instance type (Karpenter's
// buildDaemonOverheadGroups / isDaemonPodCompatible), and what that does to the NodeClaims the
// scheduler builds.
#include "solver/daemon_overhead.h"

#include <gmock/gmock.h>
#include <gtest/gtest.h>

#include "solver/solver_test_fixtures.h"

namespace nodesmith::solver {
namespace {

using ::testing::ElementsAre;
using ::testing::IsEmpty;
using ::testing::SizeIs;
using ::testing::UnorderedElementsAre;
using namespace nodesmith::solver::testing;

api::DaemonSet MakeDaemonSet(const std::string& name, const std::string& cpu) {
  api::DaemonSet d;
  d.metadata.name = name;
  d.metadata.namespace_ = "kube-system";
  d.template_.spec.containers.push_back(api::Container{});
  d.template_.spec.containers[0].name = "agent";
  d.template_.spec.containers[0].resources.requests.Set("cpu", Q(cpu.c_str()));
  return d;
}

api::NodeSelectorTerm Term(std::vector<api::NodeSelectorRequirement> expressions) {
  return api::NodeSelectorTerm{std::move(expressions), {}};
}

void RequireTerms(api::PodSpec& spec, std::vector<api::NodeSelectorTerm> terms) {
  if (!spec.affinity) spec.affinity.emplace();
  if (!spec.affinity->node_affinity) spec.affinity->node_affinity.emplace();
  spec.affinity->node_affinity->required = api::NodeSelector{std::move(terms)};
}

void ExposeHostPort(api::PodSpec& spec, int port) {
  api::ContainerPort p;
  p.container_port = port;
  p.host_port = port;
  spec.containers[0].ports.push_back(p);
}

api::Pod DaemonPod(const std::string& name, const std::string& cpu) {
  api::Pod p = MakePod(name, cpu);
  p.metadata.namespace_ = "kube-system";
  return p;
}

std::vector<const cloud::InstanceType*> Raw(const cloud::InstanceTypes& types) {
  std::vector<const cloud::InstanceType*> out;
  for (const auto& t : types) out.push_back(t.get());
  return out;
}

const scheduling::CompatibilityOptions kAllow =
    scheduling::AllowUndefined(scheduling::WellKnownLabels());

// --- GroupDaemonOverhead ---------------------------------------------------------------------

TEST(GroupDaemonOverhead, TypesWhereTheSameDaemonSetsRunShareAGroup) {
  cloud::InstanceTypes types = {
      MakeType(TypeSpec{.name = "amd-a"}),
      MakeType(TypeSpec{.name = "arm", .labels = {{"kubernetes.io/arch", "arm64"}}}),
      MakeType(TypeSpec{.name = "amd-b"}),
  };
  api::Pod everywhere = DaemonPod("logging", "1");
  api::Pod arm_only = DaemonPod("arm-agent", "2");
  arm_only.spec.node_selector["kubernetes.io/arch"] = "arm64";
  DaemonOverheadGroups g =
      GroupDaemonOverhead(scheduling::Requirements(), {}, Raw(types), {everywhere, arm_only}, kAllow);
  ASSERT_THAT(g.groups, SizeIs(2));
  EXPECT_THAT(g.group_of, ElementsAre(0, 1, 0));
  EXPECT_THAT(g.groups[0].daemon_pods, ElementsAre(0));
  EXPECT_THAT(g.groups[1].daemon_pods, ElementsAre(0, 1));
  EXPECT_EQ(g.groups[1].overhead.String(), "cpu: 3, pods: 2");
}

TEST(GroupDaemonOverhead, PreferNoScheduleTaintsDoNotKeepADaemonSetOff) {
  cloud::InstanceTypes types = {MakeType(TypeSpec{.name = "m"})};
  std::vector<api::Taint> prefer = {{"spot", "true", "PreferNoSchedule"}};
  std::vector<api::Taint> hard = {{"spot", "true", "NoSchedule"}};
  api::Pod d = DaemonPod("logging", "1");
  EXPECT_THAT(GroupDaemonOverhead(scheduling::Requirements(), prefer, Raw(types), {d}, kAllow)
                  .groups[0].daemon_pods,
              ElementsAre(0));
  EXPECT_THAT(GroupDaemonOverhead(scheduling::Requirements(), hard, Raw(types), {d}, kAllow)
                  .groups[0].daemon_pods,
              IsEmpty());
}

TEST(GroupDaemonOverhead, OnlyRequiredNodeAffinityCountsAndItsTermsAreOred) {
  cloud::InstanceTypes types = {MakeType(TypeSpec{.name = "m"})};
  const scheduling::Requirements team_a = scheduling::Requirements::FromLabels({{"example.com/team", "a"}});
  // Prefers team b: a preference does not keep it off team a's nodes.
  api::Pod prefers_b = DaemonPod("prefers-b", "1");
  prefers_b.spec.affinity.emplace();
  prefers_b.spec.affinity->node_affinity.emplace();
  prefers_b.spec.affinity->node_affinity->preferred.push_back(
      {100, Term({Req("example.com/team", "In", {"b"})})});
  // Requires team b, or linux: the second term admits team a's nodes.
  api::Pod b_or_linux = DaemonPod("b-or-linux", "1");
  RequireTerms(b_or_linux.spec, {Term({Req("example.com/team", "In", {"b"})}),
                                 Term({Req("kubernetes.io/os", "In", {"linux"})})});
  // Requires team b only.
  api::Pod only_b = DaemonPod("only-b", "1");
  RequireTerms(only_b.spec, {Term({Req("example.com/team", "In", {"b"})})});
  DaemonOverheadGroups g =
      GroupDaemonOverhead(team_a, {}, Raw(types), {prefers_b, b_or_linux, only_b}, kAllow);
  ASSERT_THAT(g.groups, SizeIs(1));
  EXPECT_THAT(g.groups[0].daemon_pods, ElementsAre(0, 1));
}

TEST(GroupDaemonOverhead, LabelsAnInstanceTypeDoesNotDefineAreLeftToTheNodePool) {
  cloud::InstanceTypes types = {MakeType(TypeSpec{.name = "m"})};
  api::Pod ssd = DaemonPod("ssd", "1");
  ssd.spec.node_selector["example.com/disk"] = "ssd";
  const auto with_ssd = scheduling::Requirements::FromLabels({{"example.com/disk", "ssd"}});
  EXPECT_THAT(GroupDaemonOverhead(with_ssd, {}, Raw(types), {ssd}, kAllow).groups[0].daemon_pods,
              ElementsAre(0));
  EXPECT_THAT(GroupDaemonOverhead(scheduling::Requirements(), {}, Raw(types), {ssd}, kAllow)
                  .groups[0].daemon_pods,
              IsEmpty());
}

TEST(GroupDaemonOverhead, AGroupCarriesItsDaemonSetsHostPorts) {
  cloud::InstanceTypes types = {MakeType(TypeSpec{.name = "m"})};
  api::Pod exporter = DaemonPod("node-exporter", "100m");
  ExposeHostPort(exporter.spec, 9100);
  DaemonOverheadGroups g = GroupDaemonOverhead(scheduling::Requirements(), {}, Raw(types), {exporter}, kAllow);
  ASSERT_THAT(g.groups[0].host_ports, SizeIs(1));
  EXPECT_EQ(g.groups[0].host_ports[0].port, 9100);
}

TEST(DaemonPodRunsOnNode, PreferencesAndPreferNoScheduleDoNotKeepItOff) {
  api::Pod d = DaemonPod("logging", "1");
  d.spec.affinity.emplace();
  d.spec.affinity->node_affinity.emplace();
  d.spec.affinity->node_affinity->preferred.push_back({100, Term({Req("example.com/disk", "In", {"ssd"})})});
  const auto node = scheduling::Requirements::FromLabels({{"kubernetes.io/hostname", "n1"}});
  EXPECT_TRUE(DaemonPodRunsOnNode(d, node, {{"spot", "true", "PreferNoSchedule"}}));
  EXPECT_FALSE(DaemonPodRunsOnNode(d, node, {{"spot", "true", "NoSchedule"}}));
}

// --- What the scheduler makes of it ------------------------------------------------------------

Cluster AmdAndArm() {
  Cluster c;
  c.Add(TypeSpec{.name = "arm", .cpu = "4", .price = 0.1, .labels = {{"kubernetes.io/arch", "arm64"}}})
      .Add(TypeSpec{.name = "amd", .cpu = "4", .price = 0.2})
      .Add(MakePool("default"));
  return c;
}

TEST(DaemonOverheadScheduling, ADaemonSetForOneArchitectureTakesRoomOnlyOnIt) {
  // 2 CPUs of the arm nodes go to an arm-only agent: a 3-CPU pod fits an amd node only, and
  // its NodeClaim asks for no agent.
  Cluster c = AmdAndArm();
  api::DaemonSet agent = MakeDaemonSet("arm-agent", "2");
  agent.template_.spec.node_selector["kubernetes.io/arch"] = "arm64";
  c.Add(agent).Add(MakePod("p", "3"));
  Results r = c.Solve();
  ASSERT_THAT(r.new_node_claims, SizeIs(1));
  EXPECT_THAT(r.new_node_claims[0].instance_type_options, ElementsAre("amd"));
  EXPECT_EQ(r.new_node_claims[0].requests.Get("cpu").String(), "3");
  EXPECT_EQ(r.new_node_claims[0].requests.Get("pods").String(), "1");
}

TEST(DaemonOverheadScheduling, TheNodeClaimAsksForTheLeastOverheadAmongItsOptions) {
  Cluster c = AmdAndArm();
  api::DaemonSet agent = MakeDaemonSet("arm-agent", "2");
  agent.template_.spec.node_selector["kubernetes.io/arch"] = "arm64";
  c.Add(agent).Add(MakeDaemonSet("logging", "500m")).Add(MakePod("p", "1"));
  Results r = c.Solve();
  ASSERT_THAT(r.new_node_claims, SizeIs(1));
  EXPECT_THAT(r.new_node_claims[0].instance_type_options, ElementsAre("arm", "amd"));
  EXPECT_EQ(r.new_node_claims[0].requests.Get("cpu").String(), "1500m");
  EXPECT_EQ(r.new_node_claims[0].requests.Get("pods").String(), "2");
}

TEST(DaemonOverheadScheduling, ADaemonSetRunsDespiteAPreferNoScheduleTaint) {
  Cluster c;
  c.Add(TypeSpec{.name = "two", .cpu = "2", .price = 0.1}).Add(TypeSpec{.name = "four", .cpu = "4", .price = 0.2});
  api::NodePool np = MakePool("default");
  np.template_.spec.taints.push_back({"spot", "true", "PreferNoSchedule"});
  c.Add(np).Add(MakeDaemonSet("logging", "1"));
  api::Pod p = MakePod("p", "1500m");
  p.spec.tolerations.push_back({"spot", "Exists", "", "PreferNoSchedule", std::nullopt});
  c.Add(p);
  Results r = c.Solve();
  ASSERT_THAT(r.new_node_claims, SizeIs(1));
  EXPECT_THAT(r.new_node_claims[0].instance_type_options, ElementsAre("four"));
  EXPECT_EQ(r.new_node_claims[0].requests.Get("cpu").String(), "2500m");
}

TEST(DaemonOverheadScheduling, AnyRequiredTermOfADaemonSetCounts) {
  Cluster c;
  c.Add(TypeSpec{.name = "two", .cpu = "2", .price = 0.1}).Add(TypeSpec{.name = "four", .cpu = "4", .price = 0.2});
  api::NodePool np = MakePool("default");
  np.template_.labels["example.com/team"] = "a";
  c.Add(np);
  api::DaemonSet d = MakeDaemonSet("b-or-linux", "1");
  RequireTerms(d.template_.spec, {Term({Req("example.com/team", "In", {"b"})}),
                                  Term({Req("kubernetes.io/os", "In", {"linux"})})});
  c.Add(d).Add(MakePod("p", "1500m"));
  Results r = c.Solve();
  ASSERT_THAT(r.new_node_claims, SizeIs(1));
  EXPECT_THAT(r.new_node_claims[0].instance_type_options, ElementsAre("four"));
}

TEST(DaemonOverheadScheduling, APodAvoidsTypesWhereADaemonSetHoldsItsHostPort) {
  // The exporter runs on arm nodes only and takes port 9100 there: a pod that needs 9100
  // launches amd, though arm is cheaper.
  Cluster c = AmdAndArm();
  api::DaemonSet exporter = MakeDaemonSet("node-exporter", "100m");
  exporter.template_.spec.node_selector["kubernetes.io/arch"] = "arm64";
  ExposeHostPort(exporter.template_.spec, 9100);
  c.Add(exporter);
  api::Pod p = MakePod("p", "1");
  ExposeHostPort(p.spec, 9100);
  api::Pod q = MakePod("q", "1", "", 1);
  c.Add(q).Add(p);
  Results r = c.Solve();
  ASSERT_THAT(r.new_node_claims, SizeIs(1));
  EXPECT_THAT(r.new_node_claims[0].pods, UnorderedElementsAre("default/p", "default/q"));
  EXPECT_THAT(r.new_node_claims[0].instance_type_options, ElementsAre("amd"));
}

TEST(DaemonOverheadScheduling, APodWhoseHostPortEveryDaemonSetNodeTakesCannotBeScheduled) {
  Cluster c = AmdAndArm();
  api::DaemonSet exporter = MakeDaemonSet("node-exporter", "100m");
  ExposeHostPort(exporter.template_.spec, 9100);
  c.Add(exporter);
  api::Pod p = MakePod("p", "1");
  ExposeHostPort(p.spec, 9100);
  c.Add(p);
  Results r = c.Solve();
  EXPECT_THAT(r.new_node_claims, IsEmpty());
  ASSERT_THAT(r.unschedulable, SizeIs(1));
  EXPECT_EQ(r.unschedulable[0].reason,
            "incompatible with nodepool default: host port TCP/0.0.0.0:9100 is taken by daemonsets "
            "on every instance type");
}

TEST(DaemonOverheadScheduling, ADaemonSetPreferringOtherNodesStillTakesItsShareOfAnExistingNode) {
  Cluster c;
  c.Add(TypeSpec{.name = "eight", .cpu = "8", .price = 0.4}).Add(MakePool("default"));
  c.Add(MakeNode("old", "4", "16Gi", {{"karpenter.sh/nodepool", "default"}}));
  api::DaemonSet d = MakeDaemonSet("logging", "2");
  d.template_.spec.affinity.emplace();
  d.template_.spec.affinity->node_affinity.emplace();
  d.template_.spec.affinity->node_affinity->preferred.push_back(
      {100, Term({Req("example.com/disk", "In", {"ssd"})})});
  c.Add(d).Add(MakePod("p", "3"));
  Results r = c.Solve();
  EXPECT_THAT(r.existing_nodes, IsEmpty()) << "2 of the node's 4 CPUs are the DaemonSet's";
  ASSERT_THAT(r.new_node_claims, SizeIs(1));
}

}  // namespace
}  // namespace nodesmith::solver
