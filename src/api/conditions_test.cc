#include "api/conditions.h"

#include <gtest/gtest.h>

namespace nodesmith::api {
namespace {

const core::Time kT0 = core::Time::FromUnixSeconds(100);
const core::Time kT1 = core::Time::FromUnixSeconds(200);

TEST(Conditions, FindReturnsTheFirstOfThatTypeOrNull) {
  std::vector<Condition> cs{{"Ready", "False"}, {"Ready", "True"}};
  ASSERT_NE(FindCondition(cs, "Ready"), nullptr);
  EXPECT_EQ(FindCondition(cs, "Ready")->status, "False");
  EXPECT_EQ(FindCondition(cs, "Launched"), nullptr);
}

TEST(Conditions, TrueOnlyWhenPresentWithStatusTrue) {
  EXPECT_FALSE(IsConditionTrue({}, "Ready"));
  EXPECT_FALSE(IsConditionTrue({{"Ready", "Unknown"}}, "Ready"));
  EXPECT_TRUE(IsConditionTrue({{"Ready", "True"}}, "Ready"));
}

TEST(Conditions, SetAppendsAMissingConditionStampedNow) {
  std::vector<Condition> cs;
  EXPECT_TRUE(SetCondition(cs, "Launched", "True", "Launched", kT0));
  ASSERT_EQ(cs.size(), 1u);
  EXPECT_EQ(cs[0].last_transition_time, kT0);
}

TEST(Conditions, SetMovesTheTransitionTimeOnlyWhenTheStatusChanges) {
  std::vector<Condition> cs{{"Ready", "True", "Up", "", kT0}};
  EXPECT_FALSE(SetCondition(cs, "Ready", "True", "Up", kT1));
  EXPECT_TRUE(SetCondition(cs, "Ready", "True", "StillUp", kT1, "msg"));
  EXPECT_EQ(cs[0].last_transition_time, kT0);
  EXPECT_EQ(cs[0].reason, "StillUp");
  EXPECT_TRUE(SetCondition(cs, "Ready", "False", "Down", kT1));
  EXPECT_EQ(cs[0].last_transition_time, kT1);
  EXPECT_EQ(cs[0].message, "");
}

TEST(Conditions, SetWithAGenerationRecordsItAndAGenerationAloneIsAChange) {
  std::vector<Condition> cs;
  EXPECT_TRUE(SetCondition(cs, "Ready", "True", "Ready", kT0, "", 1));
  EXPECT_EQ(cs[0].observed_generation, 1);
  EXPECT_FALSE(SetCondition(cs, "Ready", "True", "Ready", kT1, "", 1));
  EXPECT_TRUE(SetCondition(cs, "Ready", "True", "Ready", kT1, "", 2));
  EXPECT_EQ(cs[0].observed_generation, 2);
  EXPECT_EQ(cs[0].last_transition_time, kT0) << "the status did not change";
}

TEST(Conditions, ClearRemovesTheConditionAndSaysWhetherItWasThere) {
  std::vector<Condition> cs{{"Drifted", "True"}, {"Ready", "True"}};
  EXPECT_TRUE(ClearCondition(cs, "Drifted"));
  EXPECT_FALSE(ClearCondition(cs, "Drifted"));
  ASSERT_EQ(cs.size(), 1u);
  EXPECT_EQ(cs[0].type, "Ready");
}

}  // namespace
}  // namespace nodesmith::api
