// The expiration method as a specification: a node goes at exactly creation + expireAfter,
// never with expireAfter Never, and nothing that holds graceful methods back holds it.
#include "controllers/disruption/expiration.h"

#include <gmock/gmock.h>
#include <gtest/gtest.h>

#include "controllers/disruption/budgets.h"
#include "controllers/disruption/candidates.h"
#include "controllers/disruption/disruption_controller.h"
#include "controllers/disruption/drift.h"
#include "controllers/testing/fixtures.h"

namespace nodesmith::controllers {
namespace {

using std::chrono::hours;
using std::chrono::seconds;
using ::testing::ElementsAre;
using ::testing::IsEmpty;
using ::testing::SizeIs;
using ::testing::UnorderedElementsAre;
using testing::World;
namespace s = scheduling;

class ExpirationTest : public ::testing::Test {
 protected:
  ExpirationTest() {
    api::NodePool pool = testing::Pool();
    // Nothing but expiration may disrupt in these tests.
    pool.disruption.consolidation_policy = "WhenEmpty";
    pool.disruption.consolidate_after = core::NillableDuration{};
    world_.MustCreate(pool);
  }

  // An initialized spot node ip-<i> with NodeClaim default-<i>, created now, expiring after
  // `expire_after`.
  void AddNode(int i, core::NillableDuration expire_after) {
    world_.AddManagedNode(std::to_string(i), "default", "small",
                          [&](api::NodeClaim& c) { c.spec.expire_after = expire_after; });
  }
  void BindPod(const std::string& name, const std::string& node, bool do_not_disrupt = false) {
    api::Pod p = testing::PendingPod(name, "500m");
    if (do_not_disrupt) p.metadata.annotations[kDoNotDisruptAnnotation] = "true";
    world_.MustCreate(p);
    ASSERT_TRUE(world_.cluster.Bind("default", name, node).ok());
  }
  void SetBudgets(std::vector<api::Budget> budgets) {
    api::NodePool p = world_.MustGet<api::NodePool>("", "default");
    p.disruption.budgets = std::move(budgets);
    ASSERT_TRUE(world_.cluster.Update(p).ok());
  }

  // The candidates `method` accepts and the commands it computes over them.
  std::vector<Command> Compute(Method& method) {
    return testing::ComputeCommandsOf(method, world_.clock, world_.cluster, world_.cloud);
  }

  World world_;
  Expiration expiration_{world_.clock};
};

std::vector<std::string> Names(const Command& cmd) {
  std::vector<std::string> out;
  for (const auto& c : cmd.candidates) out.push_back(c.name());
  return out;
}

TEST_F(ExpirationTest, IsAForcefulMethod) {
  EXPECT_EQ(expiration_.Name(), "expiration");
  EXPECT_EQ(expiration_.Reason(), "Expired");
  EXPECT_EQ(expiration_.ConsolidationType(), "");
  EXPECT_TRUE(expiration_.Forceful());
}

TEST_F(ExpirationTest, ANodeExpiresAtExactlyCreationPlusExpireAfter) {
  AddNode(1, core::NillableDuration{hours(1)});
  BindPod("web", "ip-1");
  world_.clock.Step(hours(1) - seconds(1));
  EXPECT_THAT(Compute(expiration_), IsEmpty());

  world_.clock.Step(seconds(1));
  auto commands = Compute(expiration_);
  ASSERT_THAT(commands, SizeIs(1));
  EXPECT_EQ(commands[0].method, "expiration");
  EXPECT_EQ(commands[0].reason, "Expired");
  EXPECT_THAT(Names(commands[0]), ElementsAre("ip-1"));
  EXPECT_THAT(commands[0].replacements, IsEmpty())
      << "its pods go pending and the provisioner launches capacity";
}

TEST_F(ExpirationTest, ExpireAfterNeverNeverExpires) {
  AddNode(1, core::NillableDuration{});
  world_.clock.Step(hours(24 * 365 * 10));
  EXPECT_THAT(Compute(expiration_), IsEmpty());
  EXPECT_FALSE(IsExpired(world_.MustGet<api::NodeClaim>("", "default-1"), world_.clock.Now()));
}

TEST_F(ExpirationTest, EveryExpiredNodeGoesInOneCommand) {
  AddNode(1, core::NillableDuration{hours(1)});
  AddNode(2, core::NillableDuration{hours(2)});
  world_.clock.Step(hours(1));
  AddNode(3, core::NillableDuration{hours(1)});  // created an hour later
  world_.clock.Step(hours(1));
  auto commands = Compute(expiration_);
  ASSERT_THAT(commands, SizeIs(1));
  EXPECT_THAT(Names(commands[0]), UnorderedElementsAre("ip-1", "ip-2", "ip-3"));
}

TEST_F(ExpirationTest, NeitherBudgetsNorDoNotDisruptHoldAnExpiredNode) {
  AddNode(1, core::NillableDuration{hours(1)});
  BindPod("db", "ip-1", /*do_not_disrupt=*/true);
  AddNode(2, core::NillableDuration{hours(1)});
  SetBudgets({api::Budget{"0", std::nullopt, std::nullopt, {}}});
  world_.clock.Step(hours(1));
  auto commands = Compute(expiration_);
  ASSERT_THAT(commands, SizeIs(1));
  EXPECT_THAT(Names(commands[0]), UnorderedElementsAre("ip-1", "ip-2"));
}

TEST_F(ExpirationTest, DoNotDisruptHoldsTheSameNodeAgainstDrift) {
  AddNode(1, core::NillableDuration{hours(1)});
  BindPod("db", "ip-1", /*do_not_disrupt=*/true);
  api::NodeClaim c = world_.MustGet<api::NodeClaim>("", "default-1");
  c.status.conditions.push_back({kConditionDrifted, "True", "AMIDrift", "", world_.clock.Now()});
  ASSERT_TRUE(world_.cluster.Update(c).ok());
  SchedulingSimulator simulator(world_.cluster, world_.cloud);
  Drift drift(world_.clock, simulator);
  EXPECT_THAT(Compute(drift), IsEmpty());

  world_.clock.Step(hours(1));
  EXPECT_THAT(Compute(expiration_), SizeIs(1));
}

// Through the disruption controller: expiration is tried after emptiness and drift, and its
// command is not held back by a budget of zero.
TEST_F(ExpirationTest, TheDisruptionControllerExpiresANodeDespiteAZeroBudget) {
  AddNode(1, core::NillableDuration{hours(1)});
  BindPod("web", "ip-1");
  SetBudgets({api::Budget{"0", std::nullopt, std::nullopt, {}}});
  world_.clock.Step(hours(1));
  auto decision = testing::DecideWithDefaultMethods(world_);
  ASSERT_TRUE(decision.ok()) << decision.status().message();
  ASSERT_TRUE(decision->command.has_value());
  EXPECT_EQ(decision->command->method, "expiration");
  EXPECT_THAT(Names(*decision->command), ElementsAre("ip-1"));
}

}  // namespace
}  // namespace nodesmith::controllers
