// NodePool validation as a specification: ValidationSucceeded says whether the NodePool passes
// the CRD's rules, with the first violation as the message.
#include "controllers/nodepool/validation.h"

#include <gtest/gtest.h>

#include "api/conditions.h"
#include "controllers/nodepool/conditions.h"
#include "controllers/testing/fixtures.h"

namespace nodesmith::controllers {
namespace {

using std::chrono::seconds;

class NodePoolValidationTest : public ::testing::Test {
 protected:
  api::NodePool Reconciled(const std::string& name = "default") {
    auto r = controller_.Reconcile({"", name});
    EXPECT_TRUE(r.ok()) << r.status().message();
    return world_.MustGet<api::NodePool>("", name);
  }
  static const api::Condition* Validation(const api::NodePool& p) {
    return api::FindCondition(p.conditions, kConditionValidationSucceeded);
  }

  testing::World world_;
  NodePoolValidation controller_{world_.clock, world_.cluster};
};

TEST_F(NodePoolValidationTest, AValidNodePoolHasSucceeded) {
  world_.MustCreate(testing::Pool());
  api::NodePool p = Reconciled();
  ASSERT_NE(Validation(p), nullptr);
  EXPECT_EQ(Validation(p)->status, "True");
  EXPECT_EQ(Validation(p)->reason, kConditionValidationSucceeded);
  EXPECT_EQ(Validation(p)->observed_generation, p.metadata.generation);
}

TEST_F(NodePoolValidationTest, AnInvalidNodePoolSaysWhyUntilItIsFixed) {
  api::NodePool pool = testing::Pool();
  pool.weight = 101;
  world_.MustCreate(pool);
  api::NodePool p = Reconciled();
  ASSERT_NE(Validation(p), nullptr);
  EXPECT_EQ(Validation(p)->status, "False");
  EXPECT_EQ(Validation(p)->reason, kReasonNodePoolValidationFailed);
  EXPECT_EQ(Validation(p)->message, "spec.weight: must be between 1 and 100, got 101");
  EXPECT_EQ(api::FindCondition(p.conditions, kConditionReady)->status, "False");

  world_.clock.Step(seconds(30));
  p.weight = 100;
  ASSERT_TRUE(world_.cluster.Update(p).ok());
  p = Reconciled();
  EXPECT_EQ(Validation(p)->status, "True");
  EXPECT_EQ(Validation(p)->message, "");
  EXPECT_EQ(Validation(p)->last_transition_time, world_.clock.Now());
}

TEST_F(NodePoolValidationTest, NothingIsWrittenWhenNothingChanged) {
  world_.MustCreate(testing::Pool());
  const std::string version = Reconciled().metadata.resource_version;
  world_.clock.Step(seconds(10));
  EXPECT_EQ(Reconciled().metadata.resource_version, version);
}

TEST_F(NodePoolValidationTest, ANodePoolThatIsGoneIsNoError) {
  EXPECT_TRUE(controller_.Reconcile({"", "gone"}).ok());
}

}  // namespace
}  // namespace nodesmith::controllers
