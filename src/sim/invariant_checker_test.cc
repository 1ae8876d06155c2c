#include "sim/invariant_checker.h"

#include <gmock/gmock.h>
#include <gtest/gtest.h>

#include "cloud/catalog.h"
#include "cluster/memory_cluster.h"
#include "core/time.h"

namespace nodesmith::sim {
namespace {

using namespace std::chrono_literals;
using ::testing::AllOf;
using ::testing::ElementsAre;
using ::testing::Field;
using ::testing::HasSubstr;
using ::testing::IsEmpty;

// A hand-built cluster and cloud: NodeClaims with instances and Nodes, a Deployment's pods on
// them, budgets, and the checker watching. Tests break one rule at a time by hand.
class InvariantCheckerTest : public ::testing::Test {
 protected:
  InvariantCheckerTest() {
    auto catalog = cloud::LoadCatalog(cloud::CatalogSource::FromFlag("kwok"));
    EXPECT_TRUE(catalog.ok()) << catalog.status().message();
    cloud_ = std::make_unique<cloud::sim::SimulatedCloud>(clock_, std::move(catalog).value());
    options_.orphan_grace = 150s;
    options_.replica_grace = 5s;
  }

  void StartChecker() {
    checker_ = std::make_unique<InvariantChecker>(clock_, cluster_, *cloud_, options_);
    checker_->Start();
  }

  // A launched NodeClaim `name` (with the termination finalizer, as nodesmith makes them), its
  // instance and its Node "node-<name>". Returns the provider id.
  std::string AddNode(const std::string& name,
                      std::optional<core::Duration> termination_grace_period = std::nullopt) {
    api::NodeClaim claim;
    claim.metadata.name = name;
    claim.metadata.finalizers.push_back("karpenter.sh/termination");
    claim.spec.termination_grace_period = termination_grace_period;
    auto launched = cloud_->Create(claim);
    EXPECT_TRUE(launched.ok()) << launched.status().message();
    EXPECT_TRUE(cluster_.Create(*launched).ok());
    api::Node node;
    node.metadata.name = "node-" + name;
    node.spec.provider_id = launched->status.provider_id;
    EXPECT_TRUE(cluster_.Create(node).ok());
    return launched->status.provider_id;
  }

  void AddDeployment(const std::string& name, int replicas) {
    api::ReplicatedWorkload d;
    d.kind = "Deployment";
    d.metadata.name = name;
    d.metadata.namespace_ = "default";
    d.replicas = replicas;
    d.selector = api::LabelSelector{{{"app", name}}, {}};
    d.template_.metadata.labels = {{"app", name}};
    auto created = cluster_.Create(d);
    EXPECT_TRUE(created.ok()) << created.status().message();
    deployment_uids_[name] = created->metadata.uid;
  }

  void ScaleDeployment(const std::string& name, int replicas) {
    auto d = cluster_.Get<api::ReplicatedWorkload>("default", "Deployment/" + name);
    ASSERT_TRUE(d.ok());
    d->replicas = replicas;
    ASSERT_TRUE(cluster_.Update(*d).ok());
  }

  // A Ready, Running pod of the Deployment, bound to `node` ("" for pending).
  void AddPod(const std::string& deployment, int n, const std::string& node) {
    api::Pod pod;
    pod.metadata.name = deployment + "-" + std::to_string(n);
    pod.metadata.namespace_ = "default";
    pod.metadata.labels = {{"app", deployment}};
    pod.metadata.owner_references.push_back(
        api::OwnerReference{"apps/v1", "Deployment", deployment, deployment_uids_[deployment], true});
    pod.spec.node_name = node;
    if (!node.empty()) {
      pod.status.phase = "Running";
      pod.status.conditions.push_back(api::Condition{"Ready", "True", "", "", clock_.Now()});
    }
    ASSERT_TRUE(cluster_.Create(pod).ok());
  }

  void AddBudget(const std::string& app, int min_available) {
    api::PodDisruptionBudget pdb;
    pdb.metadata.name = app + "-pdb";
    pdb.metadata.namespace_ = "default";
    pdb.min_available = api::IntOrString{false, min_available, ""};
    pdb.selector = api::LabelSelector{{{"app", app}}, {}};
    ASSERT_TRUE(cluster_.Create(pdb).ok());
  }

  // nodesmith starts taking the node away: its NodeClaim gets a deletionTimestamp.
  void DisruptNode(const std::string& claim) {
    ASSERT_TRUE(cluster_.Delete<api::NodeClaim>("", claim).ok());
  }

  void DeletePod(const std::string& name) {
    ASSERT_TRUE(cluster_.Delete<api::Pod>("default", name).ok());
  }

  std::vector<std::string> Invariants() const {
    std::vector<std::string> out;
    for (const auto& v : checker_->violations()) out.push_back(v.invariant);
    return out;
  }

  core::FakeClock clock_{*core::ParseRfc3339("2025-01-01T00:00:00Z")};
  cluster::MemoryCluster cluster_{clock_};
  std::unique_ptr<cloud::sim::SimulatedCloud> cloud_;
  InvariantOptions options_;
  std::unique_ptr<InvariantChecker> checker_;
  std::map<std::string, std::string> deployment_uids_;
};

// --- PodDisruptionBudget ---

TEST_F(InvariantCheckerTest, TakingAHealthyPodWhileItsBudgetAllowsNoneIsReported) {
  AddNode("a");
  AddDeployment("web", 2);
  AddPod("web", 1, "node-a");
  AddPod("web", 2, "node-a");
  AddBudget("web", 2);
  StartChecker();
  clock_.Step(10s);
  DisruptNode("a");
  DeletePod("web-1");  // a drain that skipped the Eviction API

  ASSERT_THAT(checker_->violations(),
              ElementsAre(AllOf(Field(&InvariantViolation::invariant, "PodDisruptionBudget"),
                                Field(&InvariantViolation::at, clock_.Now()),
                                Field(&InvariantViolation::message,
                                      AllOf(HasSubstr("pod default/web-1"), HasSubstr("node-a"),
                                            HasSubstr("NodeClaim a"),
                                            HasSubstr("PodDisruptionBudget default/web-pdb"),
                                            HasSubstr("1 healthy pods left, 2 desired"))))));
}

TEST_F(InvariantCheckerTest, EachDeletionNeedsABudgetOfItsOwn) {
  AddNode("a");
  AddDeployment("web", 3);
  for (int i = 1; i <= 3; ++i) AddPod("web", i, "node-a");
  AddBudget("web", 2);  // one disruption allowed
  StartChecker();
  DisruptNode("a");
  DeletePod("web-1");
  EXPECT_THAT(checker_->violations(), IsEmpty());
  // The replacement is not healthy yet: a second pod may not go.
  AddPod("web", 4, "");
  DeletePod("web-2");
  EXPECT_THAT(Invariants(), ElementsAre("PodDisruptionBudget"));
}

TEST_F(InvariantCheckerTest, PodsOfAnInstanceTheCloudTookAreExcused) {
  std::string reclaimed = AddNode("a");
  std::string failed = AddNode("b");
  AddDeployment("web", 2);
  AddPod("web", 1, "node-a");
  AddPod("web", 2, "node-b");
  AddBudget("web", 2);
  StartChecker();
  // A spot reclaim the world noted, then the kubelet's pod garbage collection.
  checker_->NoteInvoluntaryLoss(reclaimed, clock_.Now());
  DisruptNode("a");
  DeletePod("web-1");
  // A host failure nobody noted: the instance went down before nodesmith touched its NodeClaim.
  ASSERT_TRUE(cloud_->Fail(failed).ok());
  clock_.Step(1s);
  DisruptNode("b");
  DeletePod("web-2");
  EXPECT_THAT(checker_->violations(), IsEmpty());
}

TEST_F(InvariantCheckerTest, ALossNotedForLaterDoesNotExcuseTheDrainBeforeIt) {
  std::string id = AddNode("a");
  AddDeployment("web", 1);
  AddPod("web", 1, "node-a");
  AddBudget("web", 1);
  StartChecker();
  // A spot warning: the instance is reclaimed in two minutes; the drain before that must still
  // respect the budget.
  checker_->NoteInvoluntaryLoss(id, clock_.Now() + 2min);
  DisruptNode("a");
  DeletePod("web-1");
  EXPECT_THAT(Invariants(), ElementsAre("PodDisruptionBudget"));
}

TEST_F(InvariantCheckerTest, PodsForceDeletedAtTheTerminationGracePeriodAreExcused) {
  AddNode("a", 5min);
  AddDeployment("web", 1);
  AddPod("web", 1, "node-a");
  AddBudget("web", 1);
  StartChecker();
  DisruptNode("a");
  clock_.Step(5min);
  DeletePod("web-1");
  EXPECT_THAT(checker_->violations(), IsEmpty());
}

TEST_F(InvariantCheckerTest, AScaleDownOrADeletedWorkloadIsNotADisruption) {
  AddNode("a");
  AddDeployment("web", 2);
  AddPod("web", 1, "node-a");
  AddPod("web", 2, "node-a");
  AddBudget("web", 2);
  StartChecker();
  DisruptNode("a");
  ScaleDeployment("web", 1);
  DeletePod("web-2");
  ASSERT_TRUE(cluster_.Delete<api::ReplicatedWorkload>("default", "Deployment/web").ok());
  DeletePod("web-1");
  EXPECT_THAT(checker_->violations(), IsEmpty());
}

TEST_F(InvariantCheckerTest, ABudgetBrokenByOthersRaisesNothingUntilNodesmithTakesOneOfItsPods) {
  AddNode("a");
  AddNode("b");
  AddDeployment("web", 3);
  AddPod("web", 1, "node-a");
  AddPod("web", 2, "node-a");
  AddPod("web", 3, "node-b");
  AddBudget("web", 4);  // can never be met
  StartChecker();
  checker_->Check();
  // Someone deletes a pod from a node nodesmith is not taking away.
  DeletePod("web-3");
  clock_.Step(1s);
  AddPod("web", 4, "node-b");
  checker_->Check();
  EXPECT_THAT(checker_->violations(), IsEmpty());
  // nodesmith drains node a without asking the budget.
  DisruptNode("a");
  DeletePod("web-1");
  EXPECT_THAT(Invariants(), ElementsAre("PodDisruptionBudget"));
}

// --- OrphanInstance ---

TEST_F(InvariantCheckerTest, AnInstanceThatOutlivesItsNodeClaimIsReported) {
  std::string id = AddNode("a");
  api::NodeClaim claim = *cluster_.Get<api::NodeClaim>("", "a");
  StartChecker();
  checker_->NoteInstance(id);
  claim.metadata.finalizers.clear();
  ASSERT_TRUE(cluster_.Update(claim).ok());
  ASSERT_TRUE(cluster_.Delete<api::NodeClaim>("", "a").ok());  // gone, the instance runs on
  checker_->Check();
  clock_.Step(150s);
  checker_->Check();
  EXPECT_THAT(checker_->violations(), IsEmpty());
  clock_.Step(1s);
  checker_->Check();
  ASSERT_EQ(checker_->violations().size(), 1u);
  EXPECT_EQ(checker_->violations()[0].invariant, "OrphanInstance");
  EXPECT_THAT(checker_->violations()[0].message,
              AllOf(HasSubstr(cloud_->FindInstance(id)->instance_id), HasSubstr("NodeClaim a"),
                    HasSubstr("since 2025-01-01T00:00:00Z")));
  // Reported once.
  clock_.Step(10min);
  checker_->Check();
  EXPECT_EQ(checker_->violations().size(), 1u);
}

TEST_F(InvariantCheckerTest, AnOrphanTerminatedWithinTheGraceIsFine) {
  std::string id = AddNode("a");
  api::NodeClaim claim = *cluster_.Get<api::NodeClaim>("", "a");
  StartChecker();
  claim.metadata.finalizers.clear();
  ASSERT_TRUE(cluster_.Update(claim).ok());
  ASSERT_TRUE(cluster_.Delete<api::NodeClaim>("", "a").ok());
  checker_->Check();
  clock_.Step(2min);
  ASSERT_TRUE(cloud_->Delete(claim).ok());  // the garbage collector's pass
  checker_->Check();
  clock_.Step(1h);
  checker_->Check();
  EXPECT_THAT(checker_->violations(), IsEmpty());
}

TEST_F(InvariantCheckerTest, AnInstanceWhoseNodeClaimIsStillLaunchingIsOwned) {
  api::NodeClaim claim;
  claim.metadata.name = "launching";
  ASSERT_TRUE(cluster_.Create(claim).ok());
  StartChecker();
  auto launched = cloud_->Create(claim);  // no providerID written back yet
  ASSERT_TRUE(launched.ok());
  checker_->NoteInstance(launched->status.provider_id);
  clock_.Step(1h);
  checker_->Check();
  EXPECT_THAT(checker_->violations(), IsEmpty());
  // Once the NodeClaim is gone without ever naming it, the instance is an orphan.
  ASSERT_TRUE(cluster_.Delete<api::NodeClaim>("", "launching").ok());
  checker_->Check();
  clock_.Step(151s);
  checker_->Check();
  EXPECT_THAT(Invariants(), ElementsAre("OrphanInstance"));
}

// --- LostPods ---

TEST_F(InvariantCheckerTest, APodNotReplacedWithinTheGraceIsReported) {
  AddNode("a");
  AddDeployment("web", 3);
  for (int i = 1; i <= 3; ++i) AddPod("web", i, "node-a");
  StartChecker();
  checker_->Check();
  DeletePod("web-2");
  checker_->Check();
  clock_.Step(5s);
  checker_->Check();
  EXPECT_THAT(checker_->violations(), IsEmpty());
  clock_.Step(1s);
  checker_->Check();
  ASSERT_THAT(Invariants(), ElementsAre("LostPods"));
  EXPECT_THAT(checker_->violations()[0].message,
              HasSubstr("Deployment default/web has 2 live pods for 3 replicas"));
  // Replaced at last: the stretch ends; a later loss is a new one.
  AddPod("web", 4, "");
  checker_->Check();
  DeletePod("web-4");
  clock_.Step(6s);
  checker_->Check();
  EXPECT_THAT(Invariants(), ElementsAre("LostPods", "LostPods"));
}

TEST_F(InvariantCheckerTest, APodReplacedAtOnceAndAScaleFollowedAtOnceAreFine) {
  AddNode("a");
  AddDeployment("web", 2);
  AddPod("web", 1, "node-a");
  AddPod("web", 2, "node-a");
  StartChecker();
  DeletePod("web-1");
  AddPod("web", 3, "");
  ScaleDeployment("web", 3);
  checker_->Check();
  clock_.Step(2s);
  AddPod("web", 4, "");
  clock_.Step(1min);
  checker_->Check();
  EXPECT_THAT(checker_->violations(), IsEmpty());
}

}  // namespace
}  // namespace nodesmith::sim
