// NodeClaim condition lookups.
#include "api/nodeclaim.h"

#include <gtest/gtest.h>

namespace nodesmith::api {
namespace {

NodeClaim WithConditions(std::vector<Condition> conditions) {
  NodeClaim nc;
  nc.status.conditions = std::move(conditions);
  return nc;
}

TEST(NodeClaim, FindConditionReturnsTheConditionOfThatType) {
  const NodeClaim nc = WithConditions({{"Launched", "True", "", "", std::nullopt},
                                       {"Registered", "False", "NotYet", "waiting", std::nullopt}});
  const Condition* c = nc.FindCondition("Registered");
  ASSERT_NE(c, nullptr);
  EXPECT_EQ(c->status, "False");
  EXPECT_EQ(c->reason, "NotYet");
  EXPECT_EQ(nc.FindCondition("Initialized"), nullptr);
}

TEST(NodeClaim, IsTrueOnlyForStatusTrue) {
  const NodeClaim nc = WithConditions({{"Launched", "True", "", "", std::nullopt},
                                       {"Registered", "False", "", "", std::nullopt},
                                       {"Initialized", "Unknown", "", "", std::nullopt},
                                       {"Drifted", "true", "", "", std::nullopt}});
  EXPECT_TRUE(nc.IsTrue("Launched"));
  EXPECT_FALSE(nc.IsTrue("Registered"));
  EXPECT_FALSE(nc.IsTrue("Initialized"));
  EXPECT_FALSE(nc.IsTrue("Drifted"));  // condition status values are case-sensitive
  EXPECT_FALSE(nc.IsTrue("Consolidatable"));
}

TEST(NodeClaim, DefaultsExpireAfterTo720Hours) {
  NodeClaim nc;
  ASSERT_FALSE(nc.spec.expire_after.never());
  EXPECT_EQ(*nc.spec.expire_after.value, std::chrono::hours(720));
}

}  // namespace
}  // namespace nodesmith::api
