#include "sim/kube_scheduler.h"

#include <gtest/gtest.h>

#include "cluster/memory_cluster.h"

namespace nodesmith::sim {
namespace {

using namespace std::chrono_literals;

class KubeSchedulerTest : public ::testing::Test {
 protected:
  KubeSchedulerTest() { scheduler_.Start(); }

  api::Node Node(const std::string& name, const std::string& cpu, bool ready = true) {
    api::Node n;
    n.metadata.name = name;
    n.status.allocatable.Set("cpu", api::Quantity::MustParse(cpu));
    n.status.allocatable.Set("pods", api::Quantity::MustParse("110"));
    n.status.conditions.push_back(api::Condition{"Ready", ready ? "True" : "False", "", "", {}});
    return n;
  }
  api::Pod Pod(const std::string& name, const std::string& cpu) {
    api::Pod p;
    p.metadata.name = name;
    p.metadata.namespace_ = "default";
    api::Container c;
    c.name = "c";
    c.resources.requests.Set("cpu", api::Quantity::MustParse(cpu));
    p.spec.containers.push_back(c);
    return p;
  }
  std::string NodeOf(const std::string& pod) {
    return cluster_.Get<api::Pod>("default", pod)->spec.node_name;
  }
  void Settle() { loop_.RunUntil(clock_.Now()); }

  core::FakeClock clock_{*core::ParseRfc3339("2025-01-01T00:00:00Z")};
  runtime::EventLoop loop_{clock_};
  cluster::MemoryCluster cluster_{clock_};
  runtime::RecordingEventRecorder recorder_;
  KubeScheduler scheduler_{loop_, cluster_, recorder_};
};

TEST_F(KubeSchedulerTest, BindsPendingPodsToAReadyNodeWhileTheyFit) {
  ASSERT_TRUE(cluster_.Create(Node("n1", "2")).ok());
  for (const char* p : {"a", "b", "c"}) ASSERT_TRUE(cluster_.Create(Pod(p, "1")).ok());
  Settle();
  EXPECT_EQ(NodeOf("a"), "n1");
  EXPECT_EQ(NodeOf("b"), "n1");
  EXPECT_EQ(NodeOf("c"), "");
  ASSERT_EQ(recorder_.OfType("PodBound").size(), 2u);
  EXPECT_EQ(recorder_.OfType("PodBound")[0].fields[0], (std::pair<std::string, std::string>{"pod", "default/a"}));
  // The pod that fits nowhere is marked unschedulable, as kube-scheduler does.
  auto c = cluster_.Get<api::Pod>("default", "c");
  ASSERT_FALSE(c->status.conditions.empty());
  EXPECT_EQ(c->status.conditions.back().reason, "Unschedulable");
}

TEST_F(KubeSchedulerTest, WaitsForTheNodeToBeReadyAndUntainted) {
  api::Node n = Node("n1", "4", /*ready=*/false);
  n.spec.taints.push_back(api::Taint{"karpenter.sh/unregistered", "", "NoExecute"});
  ASSERT_TRUE(cluster_.Create(n).ok());
  ASSERT_TRUE(cluster_.Create(Pod("a", "1")).ok());
  Settle();
  EXPECT_EQ(NodeOf("a"), "");

  auto node = cluster_.Get<api::Node>("", "n1");
  node->status.conditions[0].status = "True";
  ASSERT_TRUE(cluster_.Update(*node).ok());
  Settle();
  EXPECT_EQ(NodeOf("a"), "") << "the unregistered taint still keeps it off";

  node = cluster_.Get<api::Node>("", "n1");
  node->spec.taints.clear();
  ASSERT_TRUE(cluster_.Update(*node).ok());
  Settle();
  EXPECT_EQ(NodeOf("a"), "n1");
}

TEST_F(KubeSchedulerTest, HonoursNodeSelectorsAndTheDisruptedTaint) {
  api::Node arm = Node("arm", "4");
  arm.metadata.labels["kubernetes.io/arch"] = "arm64";
  api::Node amd = Node("amd", "4");
  amd.metadata.labels["kubernetes.io/arch"] = "amd64";
  amd.spec.taints.push_back(api::Taint{"karpenter.sh/disrupted", "", "NoSchedule"});
  ASSERT_TRUE(cluster_.Create(arm).ok());
  ASSERT_TRUE(cluster_.Create(amd).ok());
  api::Pod wants_amd = Pod("a", "1");
  wants_amd.spec.node_selector["kubernetes.io/arch"] = "amd64";
  ASSERT_TRUE(cluster_.Create(wants_amd).ok());
  ASSERT_TRUE(cluster_.Create(Pod("b", "1")).ok());
  Settle();
  EXPECT_EQ(NodeOf("a"), "");
  EXPECT_EQ(NodeOf("b"), "arm");
}

TEST_F(KubeSchedulerTest, PrefersTheNominatedNodeElseTheLeastAllocated) {
  ASSERT_TRUE(cluster_.Create(Node("n1", "4")).ok());
  ASSERT_TRUE(cluster_.Create(Node("n2", "8")).ok());
  ASSERT_TRUE(cluster_.Create(Pod("a", "1")).ok());
  ASSERT_TRUE(cluster_.Create(Pod("b", "1")).ok());
  scheduler_.Nominate("default/a", "n1");
  Settle();
  EXPECT_EQ(NodeOf("a"), "n1");
  EXPECT_EQ(NodeOf("b"), "n2");
}

TEST_F(KubeSchedulerTest, ANominationToANodeClaimFollowsItToItsNode) {
  ASSERT_TRUE(cluster_.Create(Node("n1", "8")).ok());
  ASSERT_TRUE(cluster_.Create(Node("n2", "4")).ok());
  api::NodeClaim claim;
  claim.metadata.name = "default-abcde";
  claim.status.node_name = "n2";
  ASSERT_TRUE(cluster_.Create(claim).ok());
  ASSERT_TRUE(cluster_.Create(Pod("a", "1")).ok());
  scheduler_.Nominate("default/a", "default-abcde");
  Settle();
  EXPECT_EQ(NodeOf("a"), "n2");
}

TEST_F(KubeSchedulerTest, CountsThePodsAlreadyOnANode) {
  ASSERT_TRUE(cluster_.Create(Node("n1", "2")).ok());
  api::Pod running = Pod("running", "1500m");
  running.spec.node_name = "n1";
  ASSERT_TRUE(cluster_.Create(running).ok());
  ASSERT_TRUE(cluster_.Create(Pod("a", "1")).ok());
  Settle();
  EXPECT_EQ(NodeOf("a"), "");
  ASSERT_TRUE(cluster_.Delete<api::Pod>("default", "running").ok());
  Settle();
  EXPECT_EQ(NodeOf("a"), "n1");
}

// Given pods that repel each other on kubernetes.io/hostname, expect one per node: the
// kube-scheduler honours the same anti-affinity the provisioner planned by.
TEST_F(KubeSchedulerTest, HostnameAntiAffinityPutsOnePodOnEachNode) {
  ASSERT_TRUE(cluster_.Create(Node("n1", "8")).ok());
  ASSERT_TRUE(cluster_.Create(Node("n2", "8")).ok());
  auto repelling = [&](const std::string& name) {
    api::Pod p = Pod(name, "1");
    p.metadata.labels["app"] = "web";
    api::PodAffinityTerm term;
    term.label_selector = api::LabelSelector{{{"app", "web"}}, {}};
    term.topology_key = "kubernetes.io/hostname";
    p.spec.affinity = api::Affinity{};
    p.spec.affinity->pod_anti_affinity = api::PodAffinity{{term}, {}};
    return p;
  };
  for (const char* p : {"a", "b", "c"}) ASSERT_TRUE(cluster_.Create(repelling(p)).ok());
  Settle();
  EXPECT_EQ(NodeOf("a"), "n1");
  EXPECT_EQ(NodeOf("b"), "n2");
  EXPECT_EQ(NodeOf("c"), "") << "both nodes already hold a web pod";

  // A pod without the constraint still shares a node with them.
  ASSERT_TRUE(cluster_.Create(Pod("plain", "1")).ok());
  Settle();
  EXPECT_NE(NodeOf("plain"), "");
}

// Given a zone spread with maxSkew 1 and a pod already in zone a, expect the next pod in b,
// although zone a's node is the less allocated one the default score would pick.
TEST_F(KubeSchedulerTest, ZoneSpreadSendsThePodToTheEmptierZone) {
  api::Node a = Node("na", "16");
  a.metadata.labels["topology.kubernetes.io/zone"] = "a";
  api::Node b = Node("nb", "2");
  b.metadata.labels["topology.kubernetes.io/zone"] = "b";
  ASSERT_TRUE(cluster_.Create(a).ok());
  ASSERT_TRUE(cluster_.Create(b).ok());
  auto spread = [&](const std::string& name) {
    api::Pod p = Pod(name, "1");
    p.metadata.labels["app"] = "api";
    api::TopologySpreadConstraint c;
    c.max_skew = 1;
    c.topology_key = "topology.kubernetes.io/zone";
    c.label_selector = api::LabelSelector{{{"app", "api"}}, {}};
    p.spec.topology_spread_constraints.push_back(c);
    return p;
  };
  api::Pod bound = spread("bound-1");
  bound.spec.node_name = "na";
  ASSERT_TRUE(cluster_.Create(bound).ok());
  ASSERT_TRUE(cluster_.Create(spread("next")).ok());
  Settle();
  EXPECT_EQ(NodeOf("next"), "nb");
}

}  // namespace
}  // namespace nodesmith::sim
