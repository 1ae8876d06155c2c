#include "sim/kubelet.h"

#include <gtest/gtest.h>

#include "cloud/catalog.h"
#include "cluster/memory_cluster.h"

namespace nodesmith::sim {
namespace {

using namespace std::chrono_literals;
using cloud::sim::InstanceState;

TEST(NodeNameForIp, FollowsEc2sPrivateDnsNames) {
  EXPECT_EQ(NodeNameForIp("192.168.132.54"), "ip-192-168-132-54");
}

class KubeletsTest : public ::testing::Test {
 protected:
  KubeletsTest() {
    auto catalog = cloud::LoadCatalog(cloud::CatalogSource::FromFlag("kwok"));
    EXPECT_TRUE(catalog.ok()) << catalog.status().message();
    cloud_ = std::make_unique<cloud::sim::SimulatedCloud>(clock_, std::move(catalog).value(), timings_);
    kubelets_ = std::make_unique<Kubelets>(loop_, cluster_, *cloud_, recorder_, timings_, 1s);
    kubelets_->Start();
  }

  // Launches an instance for a NodeClaim and reports it running after the launch latency.
  std::string Launch() {
    api::NodeClaim claim;
    claim.metadata.name = "default-abcde";
    claim.metadata.labels["karpenter.sh/nodepool"] = "default";
    claim.spec.taints.push_back(api::Taint{"dedicated", "web", "NoSchedule"});
    auto launched = cloud_->Create(claim);
    EXPECT_TRUE(launched.ok()) << launched.status().message();
    EXPECT_TRUE(cluster_.Create(*launched).ok());
    std::string id = launched->status.provider_id;
    clock_.Step(timings_.launch_latency);
    for (const auto& tr : cloud_->AdvanceTo(clock_.Now())) {
      kubelets_->OnInstanceTransition(tr.provider_id, tr.state, tr.at);
    }
    return id;
  }
  std::optional<api::Node> OnlyNode() {
    auto nodes = cluster_.List<api::Node>();
    if (nodes.size() != 1) return std::nullopt;
    return nodes[0];
  }
  static bool Ready(const api::Node& n) {
    for (const auto& c : n.status.conditions) {
      if (c.type == "Ready") return c.status == "True";
    }
    return false;
  }

  core::FakeClock clock_{*core::ParseRfc3339("2025-01-01T00:00:00Z")};
  runtime::EventLoop loop_{clock_};
  cluster::MemoryCluster cluster_{clock_};
  runtime::RecordingEventRecorder recorder_;
  cloud::sim::CloudTimings timings_;  // 3 s launch, 20 s registration, 10 s ready
  std::unique_ptr<cloud::sim::SimulatedCloud> cloud_;
  std::unique_ptr<Kubelets> kubelets_;
};

TEST_F(KubeletsTest, RegistersTheNodeAfterTheRegistrationDelayAndReadiesIt) {
  std::string id = Launch();
  loop_.RunUntil(clock_.Now() + 19s);
  EXPECT_FALSE(OnlyNode());
  loop_.RunUntil(clock_.Now() + 1s);
  auto node = OnlyNode();
  ASSERT_TRUE(node);
  EXPECT_EQ(node->spec.provider_id, id);
  EXPECT_EQ(node->metadata.name, NodeNameForIp(cloud_->FindInstance(id)->private_ip));
  EXPECT_EQ(node->metadata.labels.at("karpenter.sh/nodepool"), "default");
  EXPECT_EQ(node->metadata.labels.at("kubernetes.io/hostname"), node->metadata.name);
  ASSERT_EQ(node->spec.taints.size(), 2u);
  EXPECT_EQ(node->spec.taints[0].key, "dedicated");
  EXPECT_EQ(node->spec.taints[1].key, "karpenter.sh/unregistered");
  EXPECT_FALSE(node->status.allocatable.empty());
  EXPECT_FALSE(Ready(*node));

  loop_.RunUntil(clock_.Now() + 10s);
  EXPECT_TRUE(Ready(*OnlyNode()));
  EXPECT_EQ(recorder_.OfType("NodeReady").size(), 1u);
}

TEST_F(KubeletsTest, StartsBoundPodsOnceTheNodeIsReadyAndKeepsTheirLatency) {
  Launch();
  loop_.RunUntil(clock_.Now() + 30s);
  auto node = OnlyNode();
  ASSERT_TRUE(node && Ready(*node));
  api::Pod pod;
  pod.metadata.name = "web-1";
  pod.spec.containers.push_back(api::Container{.name = "c"});
  ASSERT_TRUE(cluster_.Create(pod).ok());
  clock_.Step(5s);
  ASSERT_TRUE(cluster_.Bind("default", "web-1", node->metadata.name).ok());
  loop_.RunUntil(clock_.Now() + 1s);
  auto running = cluster_.Get<api::Pod>("default", "web-1");
  EXPECT_EQ(running->status.phase, "Running");
  EXPECT_EQ(running->status.start_time, clock_.Now());
  ASSERT_EQ(kubelets_->start_latencies().size(), 1u);
  EXPECT_DOUBLE_EQ(kubelets_->start_latencies()[0], 6.0);
  EXPECT_EQ(recorder_.OfType("PodRunning").size(), 1u);
}

TEST_F(KubeletsTest, AnInstanceThatIsGoneTakesItsNodesPodsWithIt) {
  std::string id = Launch();
  loop_.RunUntil(clock_.Now() + 30s);
  auto node = OnlyNode();
  ASSERT_TRUE(node);
  api::Pod pod;
  pod.metadata.name = "web-1";
  pod.spec.node_name = node->metadata.name;
  pod.spec.containers.push_back(api::Container{.name = "c"});
  ASSERT_TRUE(cluster_.Create(pod).ok());
  loop_.RunUntil(clock_.Now() + 1s);

  kubelets_->OnInstanceTransition(id, InstanceState::kTerminated, clock_.Now());
  EXPECT_FALSE(Ready(*OnlyNode()));
  EXPECT_TRUE(cluster_.List<api::Pod>().empty());
}

TEST_F(KubeletsTest, AnInstanceGoneBeforeRegistrationNeverBecomesANode) {
  std::string id = Launch();
  loop_.RunUntil(clock_.Now() + 5s);
  auto claim = cloud_->Get(id);
  ASSERT_TRUE(claim.ok());
  ASSERT_TRUE(cloud_->Delete(*claim).ok());
  loop_.RunUntil(clock_.Now() + 60s);
  EXPECT_TRUE(cluster_.List<api::Node>().empty());
}

}  // namespace
}  // namespace nodesmith::sim
