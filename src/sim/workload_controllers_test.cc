#include "sim/workload_controllers.h"

#include <gtest/gtest.h>

#include "cluster/memory_cluster.h"

namespace nodesmith::sim {
namespace {

using namespace std::chrono_literals;

class WorkloadControllersTest : public ::testing::Test {
 protected:
  WorkloadControllersTest() { controllers_.Start(); }

  api::ReplicatedWorkload Deployment(const std::string& name, int replicas) {
    api::ReplicatedWorkload w;
    w.kind = "Deployment";
    w.metadata.name = name;
    w.metadata.namespace_ = "default";
    w.replicas = replicas;
    w.template_.metadata.labels = {{"app", name}};
    api::Container c;
    c.name = "c";
    c.resources.requests.Set("cpu", api::Quantity::MustParse("1"));
    w.template_.spec.containers.push_back(c);
    return w;
  }
  std::vector<std::string> PodNames() {
    std::vector<std::string> names;
    for (const auto& p : cluster_.List<api::Pod>()) names.push_back(p.metadata.name);
    return names;
  }
  void Settle() { loop_.RunUntil(clock_.Now()); }

  core::FakeClock clock_{*core::ParseRfc3339("2025-01-01T00:00:00Z")};
  runtime::EventLoop loop_{clock_};
  cluster::MemoryCluster cluster_{clock_};
  runtime::RecordingEventRecorder recorder_;
  WorkloadControllers controllers_{loop_, cluster_, recorder_};
};

TEST_F(WorkloadControllersTest, ADeploymentGetsReplicasPendingPodsNamedAfterIt) {
  ASSERT_TRUE(cluster_.Create(Deployment("inflate", 3)).ok());
  Settle();
  EXPECT_EQ(PodNames(), (std::vector<std::string>{"inflate-1", "inflate-2", "inflate-3"}));
  auto pod = cluster_.Get<api::Pod>("default", "inflate-1");
  ASSERT_TRUE(pod.ok());
  EXPECT_TRUE(pod->spec.node_name.empty());
  EXPECT_EQ(pod->metadata.labels.at("app"), "inflate");
  ASSERT_EQ(pod->metadata.owner_references.size(), 1u);
  EXPECT_EQ(pod->metadata.owner_references[0].kind, "Deployment");
  EXPECT_TRUE(pod->metadata.owner_references[0].controller);
}

TEST_F(WorkloadControllersTest, ScalingUpAddsNewNamesAndScalingDownRemovesTheNewestFirst) {
  ASSERT_TRUE(cluster_.Create(Deployment("inflate", 2)).ok());
  Settle();
  clock_.Step(1s);
  auto w = cluster_.Get<api::ReplicatedWorkload>("default", "Deployment/inflate");
  w->replicas = 4;
  ASSERT_TRUE(cluster_.Update(*w).ok());
  Settle();
  EXPECT_EQ(PodNames(), (std::vector<std::string>{"inflate-1", "inflate-2", "inflate-3", "inflate-4"}));
  w = cluster_.Get<api::ReplicatedWorkload>("default", "Deployment/inflate");
  w->replicas = 1;
  ASSERT_TRUE(cluster_.Update(*w).ok());
  Settle();
  EXPECT_EQ(PodNames(), (std::vector<std::string>{"inflate-1"}));
}

TEST_F(WorkloadControllersTest, ADeletedPodIsReplacedByANewPendingOne) {
  ASSERT_TRUE(cluster_.Create(Deployment("inflate", 2)).ok());
  Settle();
  ASSERT_TRUE(cluster_.Delete<api::Pod>("default", "inflate-1").ok());
  Settle();
  EXPECT_EQ(PodNames(), (std::vector<std::string>{"inflate-2", "inflate-3"}));
}

TEST_F(WorkloadControllersTest, DeletingTheWorkloadDeletesItsPods) {
  ASSERT_TRUE(cluster_.Create(Deployment("inflate", 2)).ok());
  ASSERT_TRUE(cluster_.Create(Deployment("other", 1)).ok());
  Settle();
  ASSERT_TRUE(cluster_.Delete<api::ReplicatedWorkload>("default", "Deployment/inflate").ok());
  Settle();
  EXPECT_EQ(PodNames(), (std::vector<std::string>{"other-1"}));
}

TEST_F(WorkloadControllersTest, AJobKeepsParallelismPodsCappedByCompletions) {
  api::Job job;
  job.metadata.name = "batch";
  job.parallelism = 5;
  job.completions = 2;
  job.template_.spec.containers.push_back(api::Container{.name = "c"});
  ASSERT_TRUE(cluster_.Create(job).ok());
  Settle();
  EXPECT_EQ(PodNames(), (std::vector<std::string>{"batch-1", "batch-2"}));
}

TEST_F(WorkloadControllersTest, ADaemonSetRunsOnePodPerNodeItTolerates) {
  api::DaemonSet ds;
  ds.metadata.name = "agent";
  ds.metadata.namespace_ = "kube-system";
  ds.template_.spec.containers.push_back(api::Container{.name = "c"});
  ASSERT_TRUE(cluster_.Create(ds).ok());
  api::Node open, tainted, not_ready;
  open.metadata.name = "open";
  tainted.metadata.name = "tainted";
  tainted.spec.taints.push_back(api::Taint{"karpenter.sh/unregistered", "", "NoExecute"});
  not_ready.metadata.name = "not-ready";
  not_ready.spec.taints.push_back(api::Taint{"node.kubernetes.io/not-ready", "", "NoSchedule"});
  for (const auto& n : {open, tainted, not_ready}) ASSERT_TRUE(cluster_.Create(n).ok());
  Settle();
  EXPECT_EQ(PodNames(), (std::vector<std::string>{"agent-not-ready", "agent-open"}));
  auto pod = cluster_.Get<api::Pod>("kube-system", "agent-open");
  EXPECT_EQ(pod->spec.node_name, "open");

  // The node registers: its taint goes and it gets its pod. A deleted node loses its pod.
  auto node = cluster_.Get<api::Node>("", "tainted");
  node->spec.taints.clear();
  ASSERT_TRUE(cluster_.Update(*node).ok());
  ASSERT_TRUE(cluster_.Delete<api::Node>("", "open").ok());
  Settle();
  EXPECT_EQ(PodNames(), (std::vector<std::string>{"agent-not-ready", "agent-tainted"}));
}

TEST_F(WorkloadControllersTest, InputPodsOfAReplicaSetCountForTheirDeployment) {
  api::Pod pod;
  pod.metadata.name = "inflate-7d9f8c-abcde";
  pod.metadata.namespace_ = "default";
  pod.metadata.owner_references.push_back({"apps/v1", "ReplicaSet", "inflate-7d9f8c", "", true});
  pod.spec.containers.push_back(api::Container{.name = "c"});
  ASSERT_TRUE(cluster_.Create(pod).ok());
  ASSERT_TRUE(cluster_.Create(Deployment("inflate", 2)).ok());
  Settle();
  EXPECT_EQ(PodNames(), (std::vector<std::string>{"inflate-1", "inflate-7d9f8c-abcde"}));
}

}  // namespace
}  // namespace nodesmith::sim
