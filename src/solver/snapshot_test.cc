// What the provisioner takes from the cluster before it solves (Karpenter's provisioner.go
// NewScheduler and getDaemonSetPods): which NodePools may launch, and which pod each DaemonSet
// adds to a new node.
#include "solver/snapshot.h"

#include <gmock/gmock.h>
#include <gtest/gtest.h>

#include "solver/scheduler.h"
#include "solver/solver_test_fixtures.h"

namespace nodesmith::solver {
namespace {

using ::testing::ElementsAre;
using ::testing::IsEmpty;
using ::testing::SizeIs;
using namespace nodesmith::solver::testing;

api::NodePool PoolWithReady(const std::string& name, const std::string& status, int weight) {
  api::NodePool np = MakePool(name, weight);
  np.conditions.push_back({api::kNodePoolConditionReady, status, "", "", {}});
  return np;
}

std::vector<std::string> PoolNames(const Cluster& c) {
  auto snap = BuildSnapshot(c.objects, {}, c.types, scheduling::WellKnownLabels());
  EXPECT_TRUE(snap.ok()) << snap.status().message();
  std::vector<std::string> out;
  if (snap.ok()) {
    for (const auto& np : snap->node_pools) out.push_back(np.metadata.name);
  }
  return out;
}

TEST(SnapshotNodePools, OneWhoseReadyConditionIsNotTrueIsPassedOver) {
  Cluster c;
  c.Add(TypeSpec{.name = "m", .price = 0.2});
  c.Add(PoolWithReady("broken", "False", 100))
      .Add(PoolWithReady("unknown", "Unknown", 90))
      .Add(PoolWithReady("ready", "True", 10))
      .Add(MakePool("manifest", 1));
  EXPECT_THAT(PoolNames(c), ElementsAre("ready", "manifest"))
      << "a NodePool without status (a user's manifest) counts as ready";

  c.Add(MakePod("p", "1"));
  Results r = c.Solve();
  ASSERT_THAT(r.new_node_claims, SizeIs(1));
  EXPECT_EQ(r.new_node_claims[0].node_pool, "ready") << "the heavier pools are not ready";
}

TEST(SnapshotNodePools, NoReadyNodePoolLeavesThePodsPending) {
  Cluster c;
  c.Add(TypeSpec{.name = "m", .price = 0.2}).Add(PoolWithReady("broken", "False", 10));
  c.Add(MakePod("p", "1"));
  Results r = c.Solve();
  EXPECT_THAT(r.new_node_claims, IsEmpty());
  EXPECT_THAT(r.unschedulable, SizeIs(1));
}

class SnapshotDaemonSets : public ::testing::Test {
 protected:
  SnapshotDaemonSets() {
    c_.Add(TypeSpec{.name = "two", .cpu = "2", .price = 0.1})
        .Add(TypeSpec{.name = "four", .cpu = "4", .price = 0.2})
        .Add(TypeSpec{.name = "eight", .cpu = "8", .price = 0.4})
        .Add(MakePool("default"));
    ds_.metadata.name = "logging";
    ds_.metadata.namespace_ = "kube-system";
    ds_.metadata.uid = "uid-logging";
    ds_.template_.spec.containers.push_back(api::Container{});
    ds_.template_.spec.containers[0].resources.requests.Set("cpu", Q("1"));
  }

  // A pod of the DaemonSet on `node`, created at `second`, asking for `cpu`, with the required
  // node affinity the DaemonSet controller writes for the node it runs on.
  api::Pod DaemonPod(const std::string& name, const std::string& node, const std::string& cpu,
                     int second) {
    api::Pod p = MakePod(name, cpu, "", second);
    p.metadata.namespace_ = "kube-system";
    p.metadata.owner_references.push_back(
        {"apps/v1", "DaemonSet", ds_.metadata.name, ds_.metadata.uid, true});
    p.spec.node_name = node;
    api::NodeSelectorTerm pinned;
    pinned.match_fields.push_back(Req("metadata.name", "In", {node}));
    p.spec.affinity.emplace();
    p.spec.affinity->node_affinity.emplace();
    p.spec.affinity->node_affinity->required = api::NodeSelector{{pinned}};
    return p;
  }

  std::vector<api::Pod> DaemonSetPods() {
    auto snap = BuildSnapshot(c_.objects, {}, c_.types, scheduling::WellKnownLabels());
    EXPECT_TRUE(snap.ok()) << snap.status().message();
    return snap.ok() ? snap->daemon_set_pods : std::vector<api::Pod>{};
  }

  Cluster c_;
  api::DaemonSet ds_;
};

TEST_F(SnapshotDaemonSets, WithoutPodsTheTemplateCounts) {
  c_.Add(ds_).Add(MakePod("p", "1500m"));
  Results r = c_.Solve();
  ASSERT_THAT(r.new_node_claims, SizeIs(1));
  EXPECT_EQ(r.new_node_claims[0].requests.Get("cpu").String(), "2500m");
}

TEST_F(SnapshotDaemonSets, TheNewestExistingPodCountsNotTheTemplate) {
  // Admission raised the requests of the DaemonSet's pods after the template was written.
  c_.Add(ds_)
      .Add(DaemonPod("logging-old", "node-1", "1500m", 10))
      .Add(DaemonPod("logging-new", "node-2", "3", 20))
      .Add(DaemonPod("logging-mid", "node-3", "2", 15))
      .Add(MakePod("p", "1500m"));
  std::vector<api::Pod> daemons = DaemonSetPods();
  ASSERT_THAT(daemons, SizeIs(1));
  EXPECT_EQ(daemons[0].metadata.name, "logging-new");
  EXPECT_EQ(daemons[0].spec.node_name, "") << "the pod a new node would get is not bound";

  Results r = c_.Solve();
  ASSERT_THAT(r.new_node_claims, SizeIs(1));
  EXPECT_EQ(r.new_node_claims[0].requests.Get("cpu").String(), "4500m");
  EXPECT_THAT(r.new_node_claims[0].instance_type_options, ElementsAre("eight"));
}

TEST_F(SnapshotDaemonSets, ThePodsPinToItsOwnNodeGivesWayToTheTemplatesAffinity) {
  api::NodeSelectorTerm ssd;
  ssd.match_expressions.push_back(Req("example.com/disk", "In", {"ssd"}));
  ds_.template_.spec.affinity.emplace();
  ds_.template_.spec.affinity->node_affinity.emplace();
  ds_.template_.spec.affinity->node_affinity->required = api::NodeSelector{{ssd}};
  c_.Add(ds_).Add(DaemonPod("logging-a", "node-1", "1", 10));
  std::vector<api::Pod> daemons = DaemonSetPods();
  ASSERT_THAT(daemons, SizeIs(1));
  const auto& required = daemons[0].spec.affinity->node_affinity->required;
  ASSERT_TRUE(required.has_value());
  ASSERT_THAT(required->node_selector_terms, SizeIs(1));
  EXPECT_THAT(required->node_selector_terms[0].match_fields, IsEmpty());
  EXPECT_EQ(required->node_selector_terms[0].match_expressions[0].key, "example.com/disk");

  // Without a required affinity in the template the pod keeps none.
  ds_.template_.spec.affinity.reset();
  c_.objects.daemon_sets.clear();
  c_.Add(ds_);
  daemons = DaemonSetPods();
  ASSERT_THAT(daemons, SizeIs(1));
  EXPECT_FALSE(daemons[0].spec.affinity->node_affinity->required.has_value());
}

TEST_F(SnapshotDaemonSets, APodOfAnEarlierDaemonSetOfTheSameNameIsNotTaken) {
  api::Pod stale = DaemonPod("logging-x", "node-1", "3", 30);
  stale.metadata.owner_references[0].uid = "uid-of-a-deleted-daemonset";
  c_.Add(ds_).Add(stale);
  std::vector<api::Pod> daemons = DaemonSetPods();
  ASSERT_THAT(daemons, SizeIs(1));
  EXPECT_EQ(daemons[0].metadata.name, "logging") << "from the template";
}

}  // namespace
}  // namespace nodesmith::solver
