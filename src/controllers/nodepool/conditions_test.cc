// A NodePool's condition set as a specification: a new NodePool reads Unknown, Ready follows its
// dependents at the current generation, and lastTransitionTime moves only with a status.
#include "controllers/nodepool/conditions.h"

#include <gmock/gmock.h>
#include <gtest/gtest.h>

#include "api/conditions.h"
#include "controllers/testing/fixtures.h"

namespace nodesmith::controllers {
namespace {

using std::chrono::seconds;
using ::testing::ElementsAre;
using testing::kStart;

class NodePoolConditionsTest : public ::testing::Test {
 protected:
  NodePoolConditionsTest() {
    pool_ = testing::Pool();
    pool_.metadata.generation = 1;
    pool_.metadata.creation_timestamp = kStart;
  }
  const api::Condition& Get(const std::string& type) {
    const api::Condition* c = api::FindCondition(pool_.conditions, type);
    EXPECT_NE(c, nullptr) << type;
    static const api::Condition kMissing;
    return c != nullptr ? *c : kMissing;
  }
  std::vector<std::string> Types() const {
    std::vector<std::string> out;
    for (const auto& c : pool_.conditions) out.push_back(c.type);
    return out;
  }

  api::NodePool pool_;
  const core::Time later_ = kStart + seconds(40);
};

TEST_F(NodePoolConditionsTest, AFirstWriteLeavesTheOtherConditionsAwaitingReconciliation) {
  ASSERT_TRUE(SetNodePoolCondition(pool_, kConditionValidationSucceeded, "True",
                                   kConditionValidationSucceeded, "", later_));
  EXPECT_THAT(Types(), ElementsAre(kConditionNodeClassReady, kConditionValidationSucceeded,
                                   kConditionReady))
      << "in transition order, Ready last";
  const api::Condition& node_class = Get(kConditionNodeClassReady);
  EXPECT_EQ(node_class.status, "Unknown");
  EXPECT_EQ(node_class.reason, "AwaitingReconciliation");
  EXPECT_EQ(node_class.message, "object is awaiting reconciliation");
  EXPECT_EQ(node_class.last_transition_time, kStart) << "dated from the NodePool's creation";
  EXPECT_EQ(node_class.observed_generation, 1);

  const api::Condition& validation = Get(kConditionValidationSucceeded);
  EXPECT_EQ(validation.status, "True");
  EXPECT_EQ(validation.last_transition_time, later_);

  const api::Condition& ready = Get(kConditionReady);
  EXPECT_EQ(ready.status, "Unknown");
  EXPECT_EQ(ready.reason, "ReconcilingDependents");
  EXPECT_EQ(ready.message, "NodeClassReady=Unknown");
}

TEST_F(NodePoolConditionsTest, ReadyIsTrueOnlyWhenEveryDependentIs) {
  SetNodePoolCondition(pool_, kConditionValidationSucceeded, "True", kConditionValidationSucceeded,
                       "", later_);
  ASSERT_TRUE(SetNodePoolCondition(pool_, kConditionNodeClassReady, "True",
                                   kConditionNodeClassReady, "", later_));
  EXPECT_EQ(Get(kConditionReady).status, "True");
  EXPECT_EQ(Get(kConditionReady).reason, "Ready");
  EXPECT_EQ(Get(kConditionReady).message, "");
  EXPECT_EQ(Get(kConditionReady).last_transition_time, later_);
  EXPECT_FALSE(SetNodePoolCondition(pool_, kConditionNodeClassReady, "True",
                                    kConditionNodeClassReady, "", later_ + seconds(5)))
      << "the same again is no change";
}

TEST_F(NodePoolConditionsTest, ADependentFalseMakesReadyFalseMostRecentFirst) {
  SetNodePoolCondition(pool_, kConditionValidationSucceeded, "False", "NodePoolValidationFailed",
                       "spec.weight: bad", later_);
  SetNodePoolCondition(pool_, kConditionNodeClassReady, "False", "NodeClassNotFound",
                       "NodeClass not found on cluster", later_ + seconds(1));
  const api::Condition& ready = Get(kConditionReady);
  EXPECT_EQ(ready.status, "False");
  EXPECT_EQ(ready.reason, "UnhealthyDependents");
  EXPECT_EQ(ready.message, "NodeClassReady=False, ValidationSucceeded=False");
}

TEST_F(NodePoolConditionsTest, ReadyWaitsForDependentsToObserveANewGeneration) {
  SetNodePoolCondition(pool_, kConditionValidationSucceeded, "True", kConditionValidationSucceeded,
                       "", later_);
  SetNodePoolCondition(pool_, kConditionNodeClassReady, "True", kConditionNodeClassReady, "",
                       later_);
  ASSERT_EQ(Get(kConditionReady).status, "True");

  pool_.metadata.generation = 2;  // the spec changed
  const core::Time t = later_ + seconds(60);
  ASSERT_TRUE(SetNodePoolCondition(pool_, kConditionValidationSucceeded, "True",
                                   kConditionValidationSucceeded, "", t));
  EXPECT_EQ(Get(kConditionValidationSucceeded).observed_generation, 2);
  EXPECT_EQ(Get(kConditionValidationSucceeded).last_transition_time, later_)
      << "still True: no transition";
  EXPECT_EQ(Get(kConditionReady).status, "Unknown");
  EXPECT_EQ(Get(kConditionReady).message, "NodeClassReady=True");
  EXPECT_EQ(Get(kConditionReady).last_transition_time, t);

  SetNodePoolCondition(pool_, kConditionNodeClassReady, "True", kConditionNodeClassReady, "", t);
  EXPECT_EQ(Get(kConditionReady).status, "True");
}

TEST_F(NodePoolConditionsTest, NodeRegistrationHealthyIsNotADependentOfReady) {
  pool_.conditions.push_back({kConditionNodeRegistrationHealthy, "False", "RegistrationFailed",
                              "Failed to register node", kStart, 1});
  SetNodePoolCondition(pool_, kConditionValidationSucceeded, "True", kConditionValidationSucceeded,
                       "", later_);
  SetNodePoolCondition(pool_, kConditionNodeClassReady, "True", kConditionNodeClassReady, "",
                       later_);
  EXPECT_EQ(Get(kConditionReady).status, "True");
  EXPECT_EQ(Get(kConditionNodeRegistrationHealthy).status, "False") << "kept as it was";
}

TEST(WriteNodePool, AStaleCopyIsLeftForTheNextReconcile) {
  testing::World world;
  api::NodePool stale = world.MustCreate(testing::Pool());
  api::NodePool fresh = stale;
  fresh.weight = 5;
  ASSERT_TRUE(world.cluster.Update(fresh).ok());
  stale.nodes = 1;
  EXPECT_TRUE(WriteNodePool(world.cluster, stale, "counting").ok());
  EXPECT_FALSE(world.MustGet<api::NodePool>("", "default").nodes.has_value());
  ASSERT_TRUE(world.cluster.Delete<api::NodePool>("", "default").ok());
  EXPECT_TRUE(WriteNodePool(world.cluster, stale, "counting").ok()) << "gone: nothing to do";
}

}  // namespace
}  // namespace nodesmith::controllers
