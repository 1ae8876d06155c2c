// The drift method as a specification: which drifted nodes go, together or one by one, what
// replaces them, and what holds them back (budgets, do-not-disrupt, pods with nowhere to go).
#include "controllers/disruption/drift.h"

#include <gmock/gmock.h>
#include <gtest/gtest.h>

#include "controllers/disruption/budgets.h"
#include "controllers/disruption/candidates.h"
#include "controllers/disruption/disruption_controller.h"
#include "controllers/nodeclaim/drift_detection.h"
#include "controllers/testing/fixtures.h"

namespace nodesmith::controllers {
namespace {

using ::testing::DoubleNear;
using ::testing::ElementsAre;
using ::testing::IsEmpty;
using ::testing::SizeIs;
using ::testing::UnorderedElementsAre;
using testing::World;
namespace s = scheduling;

std::vector<std::string> Names(const Command& cmd) {
  std::vector<std::string> out;
  for (const auto& c : cmd.candidates) out.push_back(c.name());
  return out;
}

class DriftTest : public ::testing::Test {
 protected:
  DriftTest() {
    api::NodePool pool = testing::Pool();
    pool.disruption.budgets = {api::Budget{"100%", std::nullopt, std::nullopt, {}}};
    world_.MustCreate(pool);
  }

  // An initialized spot node ip-<i> of `type` in zone-a with NodeClaim default-<i>, whose
  // Drifted condition is True when `drifted`.
  void AddNode(int i, const std::string& type = "small", bool drifted = true) {
    world_.AddManagedNode(std::to_string(i), "default", type, [&](api::NodeClaim& c) {
      if (drifted) {
        c.status.conditions.push_back({kConditionDrifted, "True", "AMIDrift", "", world_.clock.Now()});
      }
    });
  }
  void BindPod(const std::string& name, const std::string& node, const std::string& cpu = "500m",
               bool do_not_disrupt = false) {
    api::Pod p = testing::PendingPod(name, cpu);
    if (do_not_disrupt) p.metadata.annotations[kDoNotDisruptAnnotation] = "true";
    world_.MustCreate(p);
    ASSERT_TRUE(world_.cluster.Bind("default", name, node).ok());
  }
  void SetBudgets(std::vector<api::Budget> budgets) {
    api::NodePool p = world_.MustGet<api::NodePool>("", "default");
    p.disruption.budgets = std::move(budgets);
    ASSERT_TRUE(world_.cluster.Update(p).ok());
  }

  // Drifted small node ip-1 with two 500m pods, and a large NodeClaim of the pool still
  // launching: the only room for them is on the latter.
  void AddComingNodeClaim() {
    AddNode(1, "small");
    BindPod("web", "ip-1");
    BindPod("api", "ip-1");
    api::NodeClaim coming;
    coming.metadata.name = "nc-coming";
    coming.metadata.labels = {{s::kLabelNodePool, "default"}};
    coming.spec.requirements = {{s::kLabelInstanceTypeStable, "In", {"large"}, std::nullopt}};
    world_.MustCreate(coming);
  }

  // What the disruption controller does with one method: candidates it accepts, budgets for
  // its reason, and the commands it computes.
  std::vector<Command> Compute() {
    simulator_.Reset();
    return testing::ComputeCommandsOf(drift_, world_.clock, world_.cluster, world_.cloud);
  }

  World world_;
  SchedulingSimulator simulator_{world_.cluster, world_.cloud};
  Drift drift_{world_.clock, simulator_};
};

TEST_F(DriftTest, IsAnEventualMethodCountingAgainstTheDriftedBudget) {
  EXPECT_EQ(drift_.Name(), "drift");
  EXPECT_EQ(drift_.Reason(), "Drifted");
  EXPECT_EQ(drift_.ConsolidationType(), "");
  EXPECT_FALSE(drift_.Forceful());
}

TEST_F(DriftTest, ADriftedNodeIsReplacedByWhatItsPodsNeed) {
  AddNode(1, "large");
  BindPod("web", "ip-1");
  BindPod("api", "ip-1");
  auto commands = Compute();
  ASSERT_THAT(commands, SizeIs(1));
  const Command& cmd = commands[0];
  EXPECT_EQ(cmd.method, "drift");
  EXPECT_EQ(cmd.reason, "Drifted");
  EXPECT_THAT(Names(cmd), ElementsAre("ip-1"));
  ASSERT_THAT(cmd.replacements, SizeIs(1)) << "two 500m pods fit one small node";
  EXPECT_EQ(cmd.replacements[0].node_pool, "default");
  EXPECT_THAT(cmd.replacements[0].pods, UnorderedElementsAre("default/web", "default/api"));
  EXPECT_EQ(cmd.replacements[0].instance_type_options.front(), "small");
  EXPECT_THAT(cmd.savings_per_hour, DoubleNear(0.12 - 0.03, 1e-9));
}

TEST_F(DriftTest, AReplacementMayCostMoreThanTheDriftedNode) {
  AddNode(1, "small");
  BindPod("web", "ip-1", "1500m");
  // Retire "small": the pod needs a large node now.
  cloud::Catalog only_large = testing::TestCatalog();
  std::erase_if(only_large.instance_types,
                [](const cloud::InstanceTypePtr& t) { return t->name == "small"; });
  world_.cloud.SetCatalog(only_large);
  auto commands = Compute();
  ASSERT_THAT(commands, SizeIs(1));
  ASSERT_THAT(commands[0].replacements, SizeIs(1));
  EXPECT_THAT(commands[0].replacements[0].pods, ElementsAre("default/web"));
  EXPECT_LT(commands[0].savings_per_hour, 0) << "drift is not about cost";
}

TEST_F(DriftTest, EmptyDriftedNodesAreDeletedTogetherBeforeAnyReplacement) {
  AddNode(1);
  BindPod("web", "ip-1");
  AddNode(2);
  AddNode(3);
  AddNode(4, "small", /*drifted=*/false);
  auto commands = Compute();
  ASSERT_THAT(commands, SizeIs(1));
  EXPECT_THAT(Names(commands[0]), UnorderedElementsAre("ip-2", "ip-3"));
  EXPECT_THAT(commands[0].replacements, IsEmpty());
  EXPECT_THAT(commands[0].savings_per_hour, DoubleNear(0.06, 1e-9));
  EXPECT_EQ(simulator_.solves(), 0) << "empty nodes need no simulation";
}

TEST_F(DriftTest, TheFirstNodeWhosePodsCanAllMoveIsTaken) {
  AddNode(1);
  BindPod("huge", "ip-1", "16");  // no instance type holds 16 cpu: it cannot move
  AddNode(2);
  BindPod("web", "ip-2");
  BindPod("api", "ip-2");  // drifted at the same moment: ip-2 is tried second, as built
  auto commands = Compute();
  ASSERT_THAT(commands, SizeIs(1));
  EXPECT_THAT(Names(commands[0]), ElementsAre("ip-2"));
  EXPECT_EQ(simulator_.solves(), 2);
}

TEST_F(DriftTest, TheNodeThatDriftedFirstIsReplacedFirst) {
  AddNode(2);
  BindPod("web", "ip-2");
  BindPod("api", "ip-2");
  world_.clock.Step(std::chrono::minutes(5));
  AddNode(1);  // cheaper to disrupt (one pod), but drifted five minutes later
  BindPod("db", "ip-1");
  auto commands = Compute();
  ASSERT_THAT(commands, SizeIs(1));
  EXPECT_THAT(Names(commands[0]), ElementsAre("ip-2"));
  EXPECT_EQ(simulator_.solves(), 1);
}

TEST_F(DriftTest, ADriftedNodeWhosePodsWouldUseANodeStillComingUpWaitsForIt) {
  // The room for ip-1's pods is a large NodeClaim still launching (say the replacement of the
  // drifted node before it): ip-1 waits until it is up (Karpenter's UninitializedNodeError), and
  // the method says it is waiting for capacity, not stuck.
  AddComingNodeClaim();
  EXPECT_THAT(Compute(), IsEmpty());
  EXPECT_TRUE(drift_.WaitingForCapacity());
}

TEST_F(DriftTest, ANodeWhosePodsCannotMoveAtAllIsNotWaitingForCapacity) {
  AddNode(1);
  BindPod("huge", "ip-1", "16");
  EXPECT_THAT(Compute(), IsEmpty());
  EXPECT_FALSE(drift_.WaitingForCapacity());
}

TEST_F(DriftTest, WhileCapacityComesUpTheControllerLooksAgainWithinASecond) {
  // Not a 10-second poll: the replacement a drift command launched is up within seconds, and the
  // next drifted node should follow then (one node per poll made 80 drifted nodes take minutes).
  AddComingNodeClaim();
  auto simulator = std::make_shared<SchedulingSimulator>(world_.cluster, world_.cloud);
  DisruptionOptions options;
  options.simulator = simulator;
  DisruptionController controller(world_.clock, world_.cluster, world_.cloud, world_.recorder,
                                  DefaultMethods(world_.clock, *simulator), options);
  auto r = controller.Reconcile({});
  ASSERT_TRUE(r.ok()) << r.status().message();
  EXPECT_EQ(r->requeue_after, std::chrono::seconds(1));
}

TEST_F(DriftTest, PodsPendingAlreadyAreTheProvisionersNotAReplacement) {
  // "waiting" and "web" cannot share a node (one host port), so the simulation opens a NodeClaim
  // for each; only web's is the drift command's to launch.
  AddNode(1, "small");
  auto with_port = [](api::Pod& p) { p.spec.containers[0].ports.push_back({"http", 8080, 80, "TCP", ""}); };
  api::Pod web = testing::PendingPod("web", "500m");
  with_port(web);
  world_.MustCreate(web);
  ASSERT_TRUE(world_.cluster.Bind("default", "web", "ip-1").ok());
  api::Pod waiting = testing::PendingPod("waiting", "500m");
  with_port(waiting);
  world_.MustCreate(waiting);
  auto commands = Compute();
  ASSERT_THAT(commands, SizeIs(1));
  ASSERT_THAT(commands[0].replacements, SizeIs(1));
  EXPECT_THAT(commands[0].replacements[0].pods, ElementsAre("default/web"));
  EXPECT_THAT(commands[0].savings_per_hour, DoubleNear(0.0, 1e-9)) << "small for small";
}

TEST_F(DriftTest, NothingHappensWhenNoDriftedNodesPodsCanMove) {
  AddNode(1);
  BindPod("huge", "ip-1", "16");
  AddNode(2, "small", /*drifted=*/false);
  BindPod("web", "ip-2");
  EXPECT_THAT(Compute(), IsEmpty());
}

TEST_F(DriftTest, ABudgetOfZeroForDriftedBlocksEveryDriftedNode) {
  AddNode(1);
  BindPod("web", "ip-1");
  AddNode(2);
  SetBudgets({api::Budget{"100%", std::nullopt, std::nullopt, {}},
              api::Budget{"0", std::nullopt, std::nullopt, {"Drifted"}}});
  EXPECT_THAT(Compute(), IsEmpty());

  SetBudgets({api::Budget{"0", std::nullopt, std::nullopt, {"Empty", "Underutilized"}}});
  EXPECT_THAT(Compute(), SizeIs(1)) << "budgets for other reasons do not apply";
}

TEST_F(DriftTest, ABudgetBoundsHowManyEmptyDriftedNodesGoAtOnce) {
  for (int i = 1; i <= 3; ++i) AddNode(i);
  SetBudgets({api::Budget{"2", std::nullopt, std::nullopt, {"Drifted"}}});
  auto commands = Compute();
  ASSERT_THAT(commands, SizeIs(1));
  EXPECT_THAT(commands[0].candidates, SizeIs(2));
}

TEST_F(DriftTest, DoNotDisruptOnAPodOrTheNodeHoldsADriftedNode) {
  AddNode(1);
  BindPod("db", "ip-1", "500m", /*do_not_disrupt=*/true);
  AddNode(2);
  api::Node n = world_.MustGet<api::Node>("", "ip-2");
  n.metadata.annotations[kDoNotDisruptAnnotation] = "true";
  ASSERT_TRUE(world_.cluster.Update(n).ok());
  EXPECT_THAT(Compute(), IsEmpty());
}

TEST_F(DriftTest, ADriftedConditionThatIsNotTrueIsNotDrift) {
  AddNode(1, "small", /*drifted=*/false);
  api::NodeClaim c = world_.MustGet<api::NodeClaim>("", "default-1");
  c.status.conditions.push_back({kConditionDrifted, "False", "", "", world_.clock.Now()});
  ASSERT_TRUE(world_.cluster.Update(c).ok());
  EXPECT_THAT(Compute(), IsEmpty());
}

// Detection and disruption together: a requirement change on the pool makes the node drift,
// and the disruption controller's pass picks the drift method for it.
TEST_F(DriftTest, TheDisruptionControllerReplacesANodeDriftDetectionMarked) {
  AddNode(1, "small", /*drifted=*/false);
  BindPod("web", "ip-1");
  api::NodePool p = world_.MustGet<api::NodePool>("", "default");
  p.template_.spec.requirements = {{s::kLabelCapacityType, "In", {"on-demand"}, std::nullopt}};
  ASSERT_TRUE(world_.cluster.Update(p).ok());
  ASSERT_TRUE(MarkDrift(world_.clock, world_.cluster, world_.cloud).ok());
  EXPECT_EQ(world_.MustGet<api::NodeClaim>("", "default-1").FindCondition(kConditionDrifted)->reason,
            kDriftReasonRequirementsDrifted);

  auto decision = testing::DecideWithDefaultMethods(world_);
  ASSERT_TRUE(decision.ok()) << decision.status().message();
  ASSERT_TRUE(decision->command.has_value());
  EXPECT_EQ(decision->command->method, "drift");
  EXPECT_THAT(Names(*decision->command), ElementsAre("ip-1"));
  ASSERT_THAT(decision->command->replacements, SizeIs(1));
  EXPECT_EQ(decision->command->replacements[0].launch.capacity_type, "on-demand")
      << "the replacement follows the pool's new requirements";
}

}  // namespace
}  // namespace nodesmith::controllers
