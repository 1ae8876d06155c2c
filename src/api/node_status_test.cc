#include "api/node_status.h"

#include <gtest/gtest.h>

namespace nodesmith::api {
namespace {

TEST(NodeStatus, ANodeWithoutAReadyConditionIsNotReady) {
  Node node;
  EXPECT_FALSE(IsNodeReady(node));
  EXPECT_EQ(FindNodeCondition(node, "Ready"), nullptr);
}

TEST(NodeStatus, ReadyFollowsTheFirstReadyCondition) {
  Node node;
  node.status.conditions = {{"MemoryPressure", "False"}, {"Ready", "True"}};
  EXPECT_TRUE(IsNodeReady(node));
  node.status.conditions[1].status = "Unknown";
  EXPECT_FALSE(IsNodeReady(node));
  ASSERT_NE(FindNodeCondition(node, "MemoryPressure"), nullptr);
  EXPECT_EQ(FindNodeCondition(node, "MemoryPressure")->status, "False");
}

}  // namespace
}  // namespace nodesmith::api
