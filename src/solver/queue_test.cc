#include "solver/queue.h"

#include <gmock/gmock.h>
#include <gtest/gtest.h>

namespace nodesmith::solver {
namespace {

using ::testing::ElementsAre;

TEST(Queue, OrdersByCpuThenMemoryDescendingThenCreationThenUid) {
  Queue q({{1000, 1, 0, "a"},     // 0
           {2000, 1, 0, "b"},     // 1: most cpu
           {1000, 5, 0, "c"},     // 2: same cpu as 0, more memory
           {1000, 1, -5, "d"},    // 3: same as 0, created earlier
           {1000, 1, 0, "0"}});   // 4: same as 0, smaller uid
  std::vector<int> order;
  for (int p = q.Pop(); p >= 0; p = q.Pop()) order.push_back(p);
  EXPECT_THAT(order, ElementsAre(1, 2, 3, 4, 0));
}

TEST(Queue, StopsAfterAFullCycleWithoutProgress) {
  Queue q({{1, 0, 0, "a"}, {2, 0, 0, "b"}});
  EXPECT_EQ(q.Pop(), 1);
  q.Push(1);  // failed
  EXPECT_EQ(q.Pop(), 0);
  q.Push(0);  // failed
  EXPECT_EQ(q.Pop(), -1);  // both failed since their last push: no progress possible
  EXPECT_THAT(q.List(), ElementsAre(1, 0));
}

TEST(Queue, ProgressByAnotherPodGivesAFailedPodAnotherTry) {
  Queue q({{3, 0, 0, "a"}, {2, 0, 0, "b"}, {1, 0, 0, "c"}});
  EXPECT_EQ(q.Pop(), 0);
  q.Push(0);              // a failed, queue [b c a]
  EXPECT_EQ(q.Pop(), 1);  // b succeeds, queue [c a]
  EXPECT_EQ(q.Pop(), 2);
  q.Push(2);              // c failed, queue [a c]
  EXPECT_EQ(q.Pop(), 0);  // a was pushed when the queue held 3: retried
  q.Push(0);              // queue [c a]
  EXPECT_EQ(q.Pop(), -1);
}

TEST(Queue, ARelaxedPodRestartsProgressDetection) {
  Queue q({{2, 0, 0, "a"}, {1, 0, 0, "b"}});
  EXPECT_EQ(q.Pop(), 0);
  q.Push(0);
  EXPECT_EQ(q.Pop(), 1);
  q.Push(1, /*relaxed=*/true);
  EXPECT_EQ(q.Pop(), 0);  // would have stopped without the relaxation
  q.Push(0);
  EXPECT_EQ(q.Pop(), 1);
  q.Push(1);
  EXPECT_EQ(q.Pop(), -1);
}

}  // namespace
}  // namespace nodesmith::solver
