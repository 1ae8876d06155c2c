#include "solver/queue.h"

#include <gmock/gmock.h>
#include <gtest/gtest.h>

#include <string>
#include <vector>

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

// The order whatever the input looks like: a few sorted runs (as pods of a few shapes listed by
// name arrive), many (shuffled), or one.
TEST(Queue, OrderDoesNotDependOnHowTheInputIsArranged) {
  constexpr int kPods = 40;
  std::vector<std::string> uids;
  for (int i = 0; i < kPods; ++i) uids.push_back("uid-pod-" + std::to_string(100 + i));
  // Pod ids in the order the queue gives them, the pods listed as `arrangement` says.
  auto order_of = [&](const std::vector<int>& arrangement) {
    std::vector<QueueKey> keys;
    for (int id : arrangement) keys.push_back({id % 4 == 0 ? 2000 : 1000, 1, 0, uids[id]});
    Queue q(keys);
    std::vector<int> out;
    for (int p = q.Pop(); p >= 0; p = q.Pop()) out.push_back(arrangement[p]);
    return out;
  };
  std::vector<int> by_name, shuffled;
  for (int i = 0; i < kPods; ++i) by_name.push_back(i);
  for (int i = 0; i < kPods; ++i) shuffled.push_back((i * 17) % kPods);
  const std::vector<int> expected = order_of(by_name);
  ASSERT_EQ(expected.size(), static_cast<size_t>(kPods));
  EXPECT_EQ(expected[0], 0);   // the 2000m pods first, by uid
  EXPECT_EQ(expected[1], 4);
  EXPECT_EQ(expected[10], 1);  // then the 1000m ones
  // Three interleaved slices of the result: each is a sorted run of its own.
  std::vector<int> runs;
  for (int r = 0; r < 3; ++r) {
    for (int i = r; i < kPods; i += 3) runs.push_back(expected[i]);
  }
  EXPECT_EQ(order_of(runs), expected);
  EXPECT_EQ(order_of(shuffled), expected);
  EXPECT_EQ(order_of(expected), expected);
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
