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

TEST(Repack, APinnedBinIsOnlyBoughtAsATypeOfItsOwnSet) {
  // Set 1 offers the same node for half the price, but the pinned bin's NodeClaim requires what
  // set 0 describes. The movable pods may only go to set 1, so the pinned bin takes none of
  // them although it has room.
  std::vector<RepackType> types = {{{8, 100}, 1.0, 0}, {{8, 100}, 0.5, 1}};
  std::vector<RepackClass> classes = {{{1, 1}, 4, -1, {1}}};
  RepackPlan plan = Repack(types, classes, {{{{3, 1}, 1}}}, {0});
  ASSERT_TRUE(plan.ok);
  ASSERT_EQ(plan.pinned.size(), 1u);
  EXPECT_EQ(plan.pinned[0].type, 0);
  EXPECT_EQ(PodsIn(plan.pinned[0]), 0);
  ASSERT_EQ(plan.new_bins.size(), 1u);
  EXPECT_EQ(types[plan.new_bins[0].type].set, 1);
  EXPECT_DOUBLE_EQ(plan.price, 1.5);
}

TEST(Repack, PodsAllowedInOneSetNeverLandInAnother) {
  // Set 0 sells an 8-cpu node for 1, set 1 for 3. Four 2-cpu pods may only go to set 1; four
  // 1-cpu pods may go anywhere and end up on set 0's cheaper node rather than beside them.
  std::vector<RepackType> types = {{{8, 100}, 1.0, 0}, {{8, 100}, 3.0, 1}};
  std::vector<RepackClass> classes = {{{2, 1}, 4, -1, {1}}, {{1, 1}, 4, -1, {}}};
  RepackPlan plan = Repack(types, classes, {});
  ASSERT_TRUE(plan.ok);
  for (const RepackBin& bin : plan.new_bins) {
    if (bin.counts[0] > 0) {
      EXPECT_EQ(types[bin.type].set, 1);
    }
  }
  EXPECT_DOUBLE_EQ(plan.price, 4.0);
}

TEST(Repack, ANewBinIsBoughtInTheCheapestSetAllItsPodsMayGoTo) {
  // Two sets sell the same node at 2 and 1; pods every set allows go to the cheaper one.
  std::vector<RepackType> types = {{{8, 100}, 2.0, 0}, {{8, 100}, 1.0, 1}};
  RepackPlan plan = Repack(types, {{{1, 1}, 6}}, {});
  ASSERT_TRUE(plan.ok);
  ASSERT_EQ(plan.new_bins.size(), 1u);
  EXPECT_EQ(plan.new_bins[0].type, 1);
  EXPECT_DOUBLE_EQ(plan.price, 1.0);
}

TEST(Repack, FailsWhenAPodFitsNoTypeOfItsSets) {
  std::vector<RepackType> types = {{{8, 8}, 1.0, 0}, {{2, 2}, 1.0, 1}};
  EXPECT_FALSE(Repack(types, {{{4, 1}, 1, -1, {1}}}, {}).ok);
  EXPECT_TRUE(Repack(types, {{{4, 1}, 1, -1, {0}}}, {}).ok);
}

}  // namespace
}  // namespace nodesmith::solver
