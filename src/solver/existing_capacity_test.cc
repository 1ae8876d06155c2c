// Existing capacity as the scheduler sees it (Karpenter's state/statenode.go Taints and
// scheduler.go sortExistingNodes): which taints of a node count, and in which order nodes are
// tried.
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

class ExistingCapacityTest : public ::testing::Test {
 protected:
  ExistingCapacityTest() {
    c_.Add(TypeSpec{.name = "small", .cpu = "2", .price = 0.1}).Add(MakePool("default"));
  }

  // A Node of the default pool with its NodeClaim (paired by provider ID), registered, and
  // initialized or not.
  api::Node& AddManaged(const std::string& name, bool initialized,
                        std::vector<api::Taint> startup_taints = {}) {
    api::Node n = MakeNode(name, "2", "4Gi", {{"karpenter.sh/nodepool", "default"},
                                              {"karpenter.sh/registered", "true"}});
    if (initialized) n.metadata.labels["karpenter.sh/initialized"] = "true";
    n.spec.provider_id = "test:///" + name;
    api::NodeClaim claim;
    claim.metadata.name = "claim-" + name;
    claim.metadata.labels["karpenter.sh/nodepool"] = "default";
    claim.spec.startup_taints = std::move(startup_taints);
    claim.status.provider_id = n.spec.provider_id;
    claim.status.node_name = name;
    c_.Add(claim);
    c_.Add(n);
    return c_.objects.nodes.back().object;
  }

  // The existing nodes the pending pods went to, by name.
  std::vector<std::string> Placed() {
    std::vector<std::string> out;
    for (const auto& e : c_.Solve().existing_nodes) out.push_back(e.name);
    return out;
  }

  Cluster c_;
};

TEST_F(ExistingCapacityTest, AnUninitializedNodeIgnoresItsEphemeralAndStartupTaints) {
  api::Node& n = AddManaged("node-a", /*initialized=*/false, {{"example.com/agent", "", "NoSchedule"}});
  n.spec.taints = {{"node.kubernetes.io/not-ready", "", "NoSchedule"},
                   {"node.kubernetes.io/not-ready", "", "NoExecute"},
                   {"readiness.k8s.io/network", "", "NoSchedule"},
                   {"example.com/agent", "", "NoSchedule"}};
  c_.Add(MakePod("p", "1"));
  EXPECT_THAT(Placed(), ElementsAre("node-a"));
}

TEST_F(ExistingCapacityTest, AnUninitializedNodeKeepsTaintsThatAreNeitherEphemeralNorStartup) {
  api::Node& n = AddManaged("node-a", /*initialized=*/false);
  n.spec.taints = {{"dedicated", "gpu", "NoSchedule"}};
  c_.Add(MakePod("p", "1"));
  EXPECT_THAT(Placed(), IsEmpty());
}

TEST_F(ExistingCapacityTest, AnInitializedNodeKeepsEveryTaint) {
  // Once initialized, a not-ready taint means the node went unhealthy, not that it is starting.
  api::Node& n = AddManaged("node-a", /*initialized=*/true);
  n.spec.taints = {{"node.kubernetes.io/not-ready", "", "NoSchedule"}};
  c_.Add(MakePod("p", "1"));
  EXPECT_THAT(Placed(), IsEmpty());
}

TEST_F(ExistingCapacityTest, ANodeNobodyManagesCountsAsInitialized) {
  api::Node n = MakeNode("unmanaged", "2", "4Gi");
  n.spec.taints = {{"node.kubernetes.io/not-ready", "", "NoSchedule"}};
  c_.Add(n);
  c_.Add(MakePod("p", "1"));
  EXPECT_THAT(Placed(), IsEmpty());
}

TEST_F(ExistingCapacityTest, InitializedNodesAreTriedFirstThenByName) {
  AddManaged("a-starting", /*initialized=*/false);
  AddManaged("c-ready", /*initialized=*/true);
  AddManaged("b-ready", /*initialized=*/true);
  c_.Add(MakePod("p", "1"));
  EXPECT_THAT(Placed(), ElementsAre("b-ready"));
}

}  // namespace
}  // namespace nodesmith::solver
