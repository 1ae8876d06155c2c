// The disruption orchestration queue as a specification: replacements come up before the nodes
// they replace go; a replacement that fails or never initializes leaves the nodes as they were.
#include "controllers/disruption/orchestration_queue.h"

#include <gmock/gmock.h>
#include <gtest/gtest.h>

#include <algorithm>
#include <optional>

#include "controllers/controllers.h"
#include "controllers/disruption/disruption_controller.h"
#include "controllers/nodeclaim/lifecycle.h"
#include "controllers/testing/fixtures.h"
#include "runtime/controller_runtime.h"
#include "runtime/event_loop.h"

namespace nodesmith::controllers {
namespace {

using std::chrono::minutes;
using std::chrono::seconds;
using ::testing::Contains;
using ::testing::ElementsAre;
using ::testing::IsEmpty;
using ::testing::SizeIs;
using testing::World;
namespace s = scheduling;

class OrchestrationQueueTest : public ::testing::Test {
 protected:
  OrchestrationQueueTest() { world_.MustCreate(testing::Pool()); }

  // An initialized, Ready node ip-<i> of the default pool with its NodeClaim default-<i>, as a
  // disruption candidate.
  Candidate AddCandidate(int i) {
    const std::string id = std::to_string(i);
    api::NodeClaim c;
    c.metadata.name = "default-" + id;
    c.metadata.labels = {{s::kLabelNodePool, "default"}};
    c.metadata.finalizers = {kTerminationFinalizer};
    c.status.provider_id = "aws:///zone-a/i-" + id;
    c.status.node_name = "ip-" + id;
    c.status.conditions = {{kConditionLaunched, "True", "", "", world_.clock.Now()},
                           {kConditionRegistered, "True", "", "", world_.clock.Now()},
                           {kConditionInitialized, "True", "", "", world_.clock.Now()}};
    api::Node n;
    n.metadata.name = "ip-" + id;
    n.metadata.labels = {{s::kLabelNodePool, "default"}, {s::kLabelInstanceTypeStable, "large"}};
    n.spec.provider_id = c.status.provider_id;
    n.status.conditions = {{"Ready", "True", "", "", world_.clock.Now()}};
    Candidate candidate;
    candidate.node_claim = world_.MustCreate(c);
    candidate.node = world_.MustCreate(n);
    candidate.node_pool = world_.MustGet<api::NodePool>("", "default");
    candidate.instance_type = "large";
    candidate.price_per_hour = 0.12;
    return candidate;
  }

  // A single small spot node, as consolidation would plan it.
  static solver::NewNodeClaim SmallReplacement() {
    solver::NewNodeClaim p;
    p.name = "default-r1";
    p.node_pool = "default";
    p.instance_type_options = {"small"};
    p.launch = {"small", "zone-a", "spot", 0.03};
    p.requests = {{"cpu", api::Quantity::MustParse("1")}};
    p.requirements = s::Requirements::FromNodeSelectorRequirements(
        {{s::kLabelCapacityType, "In", {"spot"}, std::nullopt},
         {s::kLabelInstanceTypeStable, "In", {"small"}, std::nullopt}});
    return p;
  }

  static Command Replace(std::vector<Candidate> candidates, int replacements = 1) {
    Command cmd;
    cmd.method = "single";
    cmd.reason = "Underutilized";
    cmd.candidates = std::move(candidates);
    for (int i = 0; i < replacements; ++i) cmd.replacements.push_back(SmallReplacement());
    cmd.savings_per_hour = 0.09;
    return cmd;
  }

  // The NodeClaims the queue created (the candidates' have fixed names), in name order.
  std::vector<api::NodeClaim> Replacements() {
    std::vector<api::NodeClaim> out;
    for (auto& c : world_.cluster.List<api::NodeClaim>()) {
      if (c.metadata.generate_name == "default-") out.push_back(std::move(c));
    }
    return out;
  }
  bool Deleting(const std::string& claim) {
    auto c = world_.cluster.Get<api::NodeClaim>("", claim);
    return c.ok() && c->metadata.deletion_timestamp.has_value();
  }
  // The DisruptionReason condition of a NodeClaim, nullopt when it has none.
  std::optional<api::Condition> DisruptionReason(const std::string& claim) {
    // Keep the NodeClaim: FindCondition points into it.
    const api::NodeClaim stored = world_.MustGet<api::NodeClaim>("", claim);
    const api::Condition* c = stored.FindCondition(kConditionDisruptionReason);
    return c != nullptr ? std::optional<api::Condition>(*c) : std::nullopt;
  }
  bool Tainted(const std::string& node) {
    api::Node n = world_.MustGet<api::Node>("", node);
    return std::any_of(n.spec.taints.begin(), n.spec.taints.end(), [](const api::Taint& t) {
      return t.key == s::kTaintDisrupted && t.effect == s::kTaintEffectNoSchedule;
    });
  }
  // The kubelet and the lifecycle controller bring a replacement up to Initialized.
  void Initialize(const std::string& replacement, const std::string& node) {
    ASSERT_TRUE(lifecycle_.Reconcile({"", replacement}).ok());
    world_.RegisterNode(world_.MustGet<api::NodeClaim>("", replacement), node);
    ASSERT_TRUE(lifecycle_.Reconcile({"", replacement}).ok());
    ASSERT_TRUE(world_.MustGet<api::NodeClaim>("", replacement).IsTrue(kConditionInitialized));
  }
  // Removes a NodeClaim for good, finalizer and all.
  void Vanish(const std::string& claim) {
    api::NodeClaim c = world_.MustGet<api::NodeClaim>("", claim);
    c.metadata.finalizers.clear();
    ASSERT_TRUE(world_.cluster.Update(c).ok());
    ASSERT_TRUE(world_.cluster.Delete<api::NodeClaim>("", claim).ok());
  }
  core::Result<runtime::ReconcileResult> Reconcile() { return queue_.Reconcile({}); }

  World world_;
  OrchestrationQueue queue_{world_.clock, world_.cluster, world_.recorder};
  NodeClaimLifecycle lifecycle_{world_.clock, world_.cluster, world_.cloud, world_.recorder};
};

TEST_F(OrchestrationQueueTest, CandidatesAreDeletedOnlyOnceTheirReplacementIsInitialized) {
  Candidate old = AddCandidate(1);
  ASSERT_TRUE(queue_.Add(Replace({old})).ok());

  EXPECT_TRUE(Tainted("ip-1")) << "nothing new may land on a node about to go";
  auto replacements = Replacements();
  ASSERT_THAT(replacements, SizeIs(1));
  const std::string replacement = replacements[0].metadata.name;
  EXPECT_EQ(replacements[0].spec.requirements.back().values, std::vector<std::string>{"small"});
  EXPECT_THAT(world_.Messages(),
              Contains("Launching replacement nodeclaim " + replacement +
                       " for node(s) ip-1 via single (Underutilized)"));
  EXPECT_FALSE(Deleting("default-1"));
  EXPECT_TRUE(queue_.InProgress("ip-1"));
  EXPECT_FALSE(queue_.InProgress("ip-2"));
  EXPECT_EQ(queue_.size(), 1u);

  auto r = Reconcile();
  ASSERT_TRUE(r.ok());
  EXPECT_EQ(r->requeue_after, seconds(5));
  ASSERT_TRUE(lifecycle_.Reconcile({"", replacement}).ok());  // launched, not registered
  world_.clock.Step(seconds(30));
  ASSERT_TRUE(Reconcile().ok());
  EXPECT_FALSE(Deleting("default-1")) << "the replacement is not initialized yet";

  Initialize(replacement, "ip-new");
  r = Reconcile();
  ASSERT_TRUE(r.ok());
  EXPECT_TRUE(Deleting("default-1"));
  EXPECT_TRUE(Tainted("ip-1")) << "the terminator drains it under the same taint";
  EXPECT_FALSE(Deleting(replacement));
  EXPECT_EQ(queue_.size(), 0u);
  EXPECT_FALSE(queue_.InProgress("ip-1"));
  EXPECT_FALSE(r->requeue_after.has_value()) << "nothing left in flight";
  EXPECT_THAT(world_.recorder.OfType("DisruptionAbandoned"), IsEmpty());
}

TEST_F(OrchestrationQueueTest, EveryReplacementMustBeInitialized) {
  Candidate a = AddCandidate(1), b = AddCandidate(2);
  ASSERT_TRUE(queue_.Add(Replace({a, b}, 2)).ok());
  auto replacements = Replacements();
  ASSERT_THAT(replacements, SizeIs(2));
  Initialize(replacements[0].metadata.name, "ip-new-0");
  ASSERT_TRUE(Reconcile().ok());
  EXPECT_FALSE(Deleting("default-1"));
  EXPECT_FALSE(Deleting("default-2"));

  Initialize(replacements[1].metadata.name, "ip-new-1");
  ASSERT_TRUE(Reconcile().ok());
  EXPECT_TRUE(Deleting("default-1"));
  EXPECT_TRUE(Deleting("default-2"));
}

TEST_F(OrchestrationQueueTest, AFailedLaunchLeavesTheCandidatesAsTheyWere) {
  Candidate old = AddCandidate(1);
  ASSERT_TRUE(queue_.Add(Replace({old})).ok());
  const std::string replacement = Replacements().at(0).metadata.name;
  // No spot capacity for the replacement: the lifecycle controller deletes it.
  world_.cloud.MarkUnavailable({"small", "zone-a", "spot"}, world_.clock.Now() + minutes(3));
  ASSERT_TRUE(lifecycle_.Reconcile({"", replacement}).ok());
  ASSERT_TRUE(Deleting(replacement));

  auto r = Reconcile();
  ASSERT_TRUE(r.ok());
  EXPECT_FALSE(Tainted("ip-1")) << "the node takes pods again";
  EXPECT_FALSE(Deleting("default-1"));
  EXPECT_EQ(queue_.size(), 0u);
  EXPECT_FALSE(r->requeue_after.has_value());
  auto abandoned = world_.recorder.OfType("DisruptionAbandoned");
  ASSERT_THAT(abandoned, SizeIs(1));
  EXPECT_EQ(World::Field(abandoned[0], "nodes"), "ip-1");
  EXPECT_EQ(World::Field(abandoned[0], "nodeClaims"), "default-1");
  EXPECT_EQ(World::Field(abandoned[0], "replacements"), replacement);
  EXPECT_EQ(World::Field(abandoned[0], "cause"),
            "replacement nodeclaim " + replacement + " is being deleted");
  EXPECT_THAT(world_.Messages(),
              Contains("Abandoning disruption of node(s) ip-1 via single: replacement nodeclaim " +
                       replacement + " is being deleted"));
}

TEST_F(OrchestrationQueueTest, AReplacementThatIsGoneAbandonsTheCommand) {
  Candidate old = AddCandidate(1);
  ASSERT_TRUE(queue_.Add(Replace({old})).ok());
  const std::string replacement = Replacements().at(0).metadata.name;
  Vanish(replacement);
  ASSERT_TRUE(Reconcile().ok());
  EXPECT_FALSE(Tainted("ip-1"));
  EXPECT_FALSE(Deleting("default-1"));
  auto abandoned = world_.recorder.OfType("DisruptionAbandoned");
  ASSERT_THAT(abandoned, SizeIs(1));
  EXPECT_EQ(World::Field(abandoned[0], "cause"),
            "replacement nodeclaim " + replacement + " was deleted");
}

TEST_F(OrchestrationQueueTest, ReplacementsNotInitializedWithinTenMinutesAreGivenUpOn) {
  Candidate old = AddCandidate(1);
  ASSERT_TRUE(queue_.Add(Replace({old})).ok());
  const std::string replacement = Replacements().at(0).metadata.name;
  ASSERT_TRUE(lifecycle_.Reconcile({"", replacement}).ok());  // launched; never registers

  world_.clock.Step(minutes(10) - seconds(2));
  auto r = Reconcile();
  ASSERT_TRUE(r.ok());
  EXPECT_EQ(r->requeue_after, seconds(2)) << "woken at the timeout, not a poll later";
  EXPECT_TRUE(Tainted("ip-1"));

  world_.clock.Step(seconds(2));
  ASSERT_TRUE(Reconcile().ok());
  EXPECT_FALSE(Tainted("ip-1"));
  EXPECT_FALSE(Deleting("default-1"));
  EXPECT_EQ(queue_.size(), 0u);
  EXPECT_FALSE(Deleting(replacement)) << "a launched replacement is left to consolidation";
  auto abandoned = world_.recorder.OfType("DisruptionAbandoned");
  ASSERT_THAT(abandoned, SizeIs(1));
  EXPECT_EQ(World::Field(abandoned[0], "cause"),
            "replacement(s) " + replacement + " not initialized after 10m0s");
}

TEST_F(OrchestrationQueueTest, WithoutReplacementsTheCandidatesAreDeletedAtOnce) {
  Candidate a = AddCandidate(1), b = AddCandidate(2);
  Command cmd;
  cmd.method = "emptiness";
  cmd.reason = "Empty";
  cmd.candidates = {a, b};
  ASSERT_TRUE(queue_.Add(cmd).ok());
  EXPECT_TRUE(Tainted("ip-1"));
  EXPECT_TRUE(Tainted("ip-2"));
  EXPECT_TRUE(Deleting("default-1"));
  EXPECT_TRUE(Deleting("default-2"));
  EXPECT_THAT(Replacements(), IsEmpty());
  EXPECT_EQ(queue_.size(), 0u);
  EXPECT_THAT(world_.recorder.OfType("NodeTainted"), SizeIs(2));
  EXPECT_THAT(world_.Messages(), Contains("Cordoned node ip-1"));
}

TEST_F(OrchestrationQueueTest, ANodeAlreadyInFlightCannotBeAddedAgain) {
  Candidate old = AddCandidate(1);
  ASSERT_TRUE(queue_.Add(Replace({old})).ok());
  core::Status again = queue_.Add(Replace({old}));
  EXPECT_EQ(again.code(), core::StatusCode::kFailedPrecondition);
  EXPECT_THAT(Replacements(), SizeIs(1)) << "no second replacement";
  EXPECT_TRUE(Tainted("ip-1")) << "the first command still holds the node";
}

TEST_F(OrchestrationQueueTest, AnUnknownNodePoolUndoesTheTaint) {
  Candidate old = AddCandidate(1);
  Command cmd = Replace({old});
  cmd.replacements[0].node_pool = "gone";
  EXPECT_FALSE(queue_.Add(cmd).ok());
  EXPECT_FALSE(Tainted("ip-1"));
  EXPECT_THAT(Replacements(), IsEmpty());
  EXPECT_EQ(queue_.size(), 0u);
  EXPECT_THAT(world_.recorder.OfType("DisruptionAbandoned"), SizeIs(1));
}

TEST_F(OrchestrationQueueTest, CandidatesDeletedElsewhereDropTheCommand) {
  Candidate old = AddCandidate(1);
  ASSERT_TRUE(queue_.Add(Replace({old})).ok());
  // Something else (an interruption, a user) deletes the node first.
  ASSERT_TRUE(world_.cluster.Delete<api::NodeClaim>("", "default-1").ok());
  auto r = Reconcile();
  ASSERT_TRUE(r.ok());
  EXPECT_EQ(queue_.size(), 0u);
  EXPECT_FALSE(queue_.InProgress("ip-1"));
  EXPECT_TRUE(Tainted("ip-1")) << "the terminator is draining it: the taint stays";
  EXPECT_THAT(world_.recorder.OfType("DisruptionAbandoned"), IsEmpty());
}

TEST_F(OrchestrationQueueTest, ACandidateThatVanishedDoesNotStopTheOthers) {
  Candidate a = AddCandidate(1), b = AddCandidate(2);
  ASSERT_TRUE(queue_.Add(Replace({a, b})).ok());
  Vanish("default-2");
  ASSERT_TRUE(world_.cluster.Delete<api::Node>("", "ip-2").ok());
  Initialize(Replacements().at(0).metadata.name, "ip-new");
  auto r = Reconcile();
  ASSERT_TRUE(r.ok()) << r.status().message();
  EXPECT_TRUE(Deleting("default-1"));
  EXPECT_EQ(queue_.size(), 0u);
}

TEST_F(OrchestrationQueueTest, AbandoningLeavesANodeBeingTerminatedTainted) {
  Candidate a = AddCandidate(1), b = AddCandidate(2);
  ASSERT_TRUE(queue_.Add(Replace({a, b})).ok());
  ASSERT_TRUE(world_.cluster.Delete<api::NodeClaim>("", "default-2").ok());  // terminating
  Vanish(Replacements().at(0).metadata.name);
  ASSERT_TRUE(Reconcile().ok());
  EXPECT_FALSE(Tainted("ip-1"));
  EXPECT_TRUE(Tainted("ip-2"));
}

TEST_F(OrchestrationQueueTest, CandidatesCarryTheReasonTheyAreDisruptedFor) {
  Candidate a = AddCandidate(1), b = AddCandidate(2);
  AddCandidate(3);
  ASSERT_TRUE(queue_.Add(Replace({a, b})).ok());
  for (const char* claim : {"default-1", "default-2"}) {
    auto reason = DisruptionReason(claim);
    ASSERT_TRUE(reason.has_value()) << claim;
    EXPECT_EQ(reason->status, "True");
    EXPECT_EQ(reason->reason, "Underutilized");
    EXPECT_EQ(reason->message, "Underutilized");
    EXPECT_EQ(reason->last_transition_time, world_.clock.Now());
    EXPECT_EQ(reason->observed_generation, 1);
  }
  EXPECT_FALSE(DisruptionReason("default-3").has_value()) << "not a candidate";
  EXPECT_FALSE(DisruptionReason(Replacements().at(0).metadata.name).has_value());

  Initialize(Replacements().at(0).metadata.name, "ip-new");
  ASSERT_TRUE(Reconcile().ok());
  ASSERT_TRUE(Deleting("default-1"));
  EXPECT_TRUE(DisruptionReason("default-1").has_value()) << "kept while it goes";
}

TEST_F(OrchestrationQueueTest, CandidatesDeletedAtOnceCarryTheirReasonToo) {
  Command cmd;
  cmd.method = "drift";
  cmd.reason = "Drifted";
  cmd.candidates = {AddCandidate(1)};
  ASSERT_TRUE(queue_.Add(cmd).ok());
  ASSERT_TRUE(Deleting("default-1"));
  ASSERT_TRUE(DisruptionReason("default-1").has_value());
  EXPECT_EQ(DisruptionReason("default-1")->reason, "Drifted");
}

TEST_F(OrchestrationQueueTest, AnAbandonedCommandRemovesTheReason) {
  Candidate old = AddCandidate(1);
  ASSERT_TRUE(queue_.Add(Replace({old})).ok());
  ASSERT_TRUE(DisruptionReason("default-1").has_value());
  Vanish(Replacements().at(0).metadata.name);
  ASSERT_TRUE(Reconcile().ok());
  ASSERT_THAT(world_.recorder.OfType("DisruptionAbandoned"), SizeIs(1));
  EXPECT_FALSE(DisruptionReason("default-1").has_value());
}

TEST_F(OrchestrationQueueTest, ACommandThatCannotStartLeavesNoReason) {
  Command cmd = Replace({AddCandidate(1)});
  cmd.replacements[0].node_pool = "gone";
  EXPECT_FALSE(queue_.Add(cmd).ok());
  EXPECT_FALSE(DisruptionReason("default-1").has_value());
}

// A restart in the middle of a command: the new process's queue knows nothing of it, and the
// candidate keeps the taint (and the reason) the old one put there. The new queue takes them off;
// a node whose NodeClaim is being terminated keeps its taint, and so does the candidate of a
// command this queue has in flight.
TEST_F(OrchestrationQueueTest, TaintsOfACommandCutShortByARestartAreRemoved) {
  Candidate a = AddCandidate(1), b = AddCandidate(2), c = AddCandidate(3);
  {
    OrchestrationQueue before_the_restart{world_.clock, world_.cluster, world_.recorder};
    ASSERT_TRUE(before_the_restart.Add(Replace({a, b})).ok());
  }
  ASSERT_TRUE(world_.cluster.Delete<api::NodeClaim>("", "default-2").ok());  // terminating
  ASSERT_TRUE(queue_.Add(Replace({c})).ok());
  ASSERT_TRUE(Tainted("ip-1"));

  ASSERT_TRUE(queue_.RemoveOutdatedTaints().ok());
  EXPECT_FALSE(Tainted("ip-1")) << "no command holds it any more";
  EXPECT_FALSE(DisruptionReason("default-1").has_value());
  EXPECT_TRUE(Tainted("ip-2")) << "the terminator owns a terminating node's taint";
  EXPECT_TRUE(Tainted("ip-3")) << "its command is in flight";
  EXPECT_THAT(world_.Messages(),
              Contains("Removing the disrupted taint from node(s) ip-1: no disruption of them is "
                       "in flight (one was cut short by a restart)"));
}

// The disruption controller has the queue clean up at its first pass: a restarted nodesmith
// does not leave a node cordoned for ever.
TEST_F(OrchestrationQueueTest, TheDisruptionControllersFirstPassRemovesLeftoverTaints) {
  Candidate a = AddCandidate(1);
  {
    OrchestrationQueue before_the_restart{world_.clock, world_.cluster, world_.recorder};
    ASSERT_TRUE(before_the_restart.Add(Replace({a})).ok());
  }
  DisruptionOptions options;
  options.queue = &queue_;
  DisruptionController disruption{world_.clock, world_.cluster, world_.cloud, world_.recorder,
                                  {}, options};
  ASSERT_TRUE(disruption.Reconcile({}).ok());
  EXPECT_FALSE(Tainted("ip-1"));
}

// The queue's own taint is left to its command even when the command is no longer in flight
// (candidates deleted at once): the cache may not show the deletion yet.
TEST_F(OrchestrationQueueTest, ItsOwnTaintIsNotTakenForALeftover) {
  Candidate a = AddCandidate(1);
  ASSERT_TRUE(queue_.Add(Replace({a}, 0)).ok());
  ASSERT_EQ(queue_.size(), 0u);
  ASSERT_TRUE(queue_.RemoveOutdatedTaints().ok());
  EXPECT_TRUE(Tainted("ip-1"));
}

// On the simulated runtime the queue hears of the replacement's initialization through its
// NodeClaim watch, not at its next poll.
TEST_F(OrchestrationQueueTest, InitializationIsNoticedWhenItHappens) {
  runtime::EventLoop loop{world_.clock};
  runtime::SimulatedRuntime runtime{loop, world_.cluster};
  runtime.Register(lifecycle_);
  runtime.Register(queue_);
  Candidate old = AddCandidate(1);
  ASSERT_TRUE(queue_.Add(Replace({old})).ok());
  const std::string replacement = Replacements().at(0).metadata.name;
  // The kubelet registers the node 17 s in, between two 5 s polls.
  loop.After(seconds(17), [&] {
    world_.RegisterNode(world_.MustGet<api::NodeClaim>("", replacement), "ip-new");
  });
  loop.RunUntil(world_.clock.Now() + seconds(60));

  api::NodeClaim initialized = world_.MustGet<api::NodeClaim>("", replacement);
  ASSERT_TRUE(initialized.IsTrue(kConditionInitialized));
  api::NodeClaim deleted = world_.MustGet<api::NodeClaim>("", "default-1");
  ASSERT_TRUE(deleted.metadata.deletion_timestamp.has_value());
  EXPECT_EQ(*deleted.metadata.deletion_timestamp, testing::kStart + seconds(17));
  EXPECT_EQ(queue_.size(), 0u);
  EXPECT_EQ(runtime.ErrorCount(kDisruptionQueueName), 0);
  EXPECT_EQ(runtime.QueueLength(kDisruptionQueueName), 0u) << "no polling once nothing is in flight";
}

}  // namespace
}  // namespace nodesmith::controllers
