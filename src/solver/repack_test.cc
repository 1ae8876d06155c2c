// Specification of Repack: which types it buys for interchangeable pods, and what it leaves in
// place. Resources are [cpu, memory] in arbitrary units.
#include "solver/repack.h"

#include <gtest/gtest.h>

namespace nodesmith::solver {
namespace {

int64_t PodsIn(const RepackBin& bin) {
  int64_t n = 0;
  for (int64_t c : bin.counts) n += c;
  return n;
}

TEST(Repack, BuysTheTypeThatHoldsMostPerDollar) {
  // Eight 1-cpu pods: four 2-cpu nodes cost 4, one 8-cpu node costs 3.
  std::vector<RepackType> types = {{{2, 100}, 1.0}, {{8, 100}, 3.0}};
  RepackPlan plan = Repack(types, {{{1, 1}, 8}}, {});
  ASSERT_TRUE(plan.ok);
  ASSERT_EQ(plan.new_bins.size(), 1u);
  EXPECT_EQ(plan.new_bins[0].type, 1);
  EXPECT_EQ(PodsIn(plan.new_bins[0]), 8);
  EXPECT_DOUBLE_EQ(plan.price, 3.0);
}

TEST(Repack, PairsCpuHeavyWithMemoryHeavyPods) {
  // A balanced node holds two CPU-heavy and two memory-heavy pods; the one-sided nodes would
  // need one node per two pods of a kind at the same price.
  std::vector<RepackType> types = {{{4, 4}, 1.0}};
  std::vector<RepackClass> classes = {{{2, 0}, 4}, {{0, 2}, 4}};
  RepackPlan plan = Repack(types, classes, {});
  ASSERT_TRUE(plan.ok);
  EXPECT_EQ(plan.new_bins.size(), 2u);
  EXPECT_DOUBLE_EQ(plan.price, 2.0);
}

TEST(Repack, PinnedBinsKeepTheirPodsAndTakeMovableOnes) {
  // One bin must keep a 3-cpu pod; it is bought as the 8-cpu type and takes the five 1-cpu pods
  // too, rather than opening a second node.
  std::vector<RepackType> types = {{{4, 100}, 1.0}, {{8, 100}, 1.5}};
  RepackPlan plan = Repack(types, {{{1, 1}, 5}}, {{{{3, 1}, 1}}});
  ASSERT_TRUE(plan.ok);
  ASSERT_EQ(plan.pinned.size(), 1u);
  EXPECT_EQ(plan.pinned[0].type, 1);
  EXPECT_EQ(PodsIn(plan.pinned[0]), 5);
  EXPECT_TRUE(plan.new_bins.empty());
  EXPECT_DOUBLE_EQ(plan.price, 1.5);
}

TEST(Repack, EachBinEndsOnTheCheapestTypeThatHoldsIt) {
  // The 8-cpu type is cheaper per cpu, but three 1-cpu pods fit the 4-cpu type, which costs less.
  std::vector<RepackType> types = {{{4, 100}, 1.0}, {{8, 100}, 1.6}};
  RepackPlan plan = Repack(types, {{{1, 1}, 3}}, {});
  ASSERT_TRUE(plan.ok);
  ASSERT_EQ(plan.new_bins.size(), 1u);
  EXPECT_EQ(plan.new_bins[0].type, 0);
  EXPECT_DOUBLE_EQ(plan.price, 1.0);
}

TEST(Repack, FailsWhenAPodFitsNoType) {
  std::vector<RepackType> types = {{{4, 4}, 1.0}};
  EXPECT_FALSE(Repack(types, {{{8, 1}, 1}}, {}).ok);
  EXPECT_FALSE(Repack(types, {}, {{{{8, 1}, 1}}}).ok);
}

}  // namespace
}  // namespace nodesmith::solver
