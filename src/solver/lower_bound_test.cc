#include "solver/lower_bound.h"

#include <algorithm>
#include <random>

#include <gtest/gtest.h>

#include "solver/repack.h"

namespace nodesmith::solver {
namespace {

// Resources: [cpu, memory].
TEST(LowerBound, FractionalCostOfTheCheapestCapacityPerUnit) {
  LowerBoundProblem p;
  p.bins.push_back({1.0, false, {4, 16}});  // 0.25 per cpu
  p.bins.push_back({1.5, false, {8, 16}});  // 0.1875 per cpu
  p.classes.push_back({10, {1, 1}, {0, 1}});
  EXPECT_NEAR(LowerBound(p), 10 * 0.1875, 1e-9);
}

TEST(LowerBound, TheBindingResourceDecides) {
  LowerBoundProblem p;
  p.bins.push_back({1.0, false, {4, 4}});
  p.classes.push_back({4, {0.5, 2}, {0}});  // memory-bound: 8 memory = 2 nodes
  EXPECT_NEAR(LowerBound(p), 2.0, 1e-9);
}

TEST(LowerBound, ExistingCapacityIsFreeButFinite) {
  LowerBoundProblem p;
  p.bins.push_back({1.0, false, {4, 100}});
  p.bins.push_back({0, true, {2, 100}});  // 2 cpu already paid for
  p.classes.push_back({6, {1, 1}, {0, 1}});
  EXPECT_NEAR(LowerBound(p), 1.0, 1e-9);
}

TEST(LowerBound, LargeProblemsGetTheAggregateBoundOfPerUnitPrices) {
  // 60 bin shapes x 50 pod shapes, every pod fits every bin: far above the full LP's size cap.
  // The cheapest cpu costs 0.1 per unit (the largest bin), memory is never binding, and 1 cpu
  // of existing capacity is free: the bound is 0.1 per cpu still to buy.
  LowerBoundProblem p;
  std::vector<int> all;
  for (int i = 1; i <= 60; ++i) {
    // Price per cpu falls towards 0.1 while memory per price falls too: no bin dominates.
    p.bins.push_back({1.0 + i, false, {10.0 * i, 2000.0}});
    all.push_back(i - 1);
  }
  p.bins.push_back({0, true, {1, 1000}});
  all.push_back(60);
  double cpu = 0;
  for (int c = 1; c <= 50; ++c) {
    p.classes.push_back({2, {0.1 * c, 1}, all});
    cpu += 2 * 0.1 * c;
  }
  const double expected = (cpu - 1) * (61.0 / 600.0);
  EXPECT_NEAR(LowerBound(p), expected, 1e-6);
  EXPECT_LE(LowerBound(p), expected);
}

TEST(LowerBound, ClassesOnlyUseCompatibleBins) {
  LowerBoundProblem p;
  p.bins.push_back({1.0, false, {4, 100}});
  p.bins.push_back({10.0, false, {4, 100}});  // e.g. the GPU pool
  p.classes.push_back({4, {1, 1}, {0}});
  p.classes.push_back({4, {1, 1}, {1}});
  EXPECT_NEAR(LowerBound(p), 11.0, 1e-9);
}

TEST(LowerBound, NothingToPlaceCostsNothing) {
  EXPECT_EQ(LowerBound(LowerBoundProblem{}), 0.0);
}

TEST(LowerBound, WholePodsPerNodeLiftTheBoundToTheTrueOptimum) {
  // 3 pods of 0.6 cpu on 1-cpu nodes at price 1: the fluid bound is 1.8, but a node holds one
  // such pod, so every plan (and the configuration LP) buys 3 nodes.
  LowerBoundProblem p;
  p.bins.push_back({1.0, false, {1, 10}});
  p.classes.push_back({3, {0.6, 1}, {0}});
  double lb = LowerBound(p);
  EXPECT_LE(lb, 3.0);
  EXPECT_NEAR(lb, 3.0, 1e-8);
}

TEST(LowerBound, TwoResourcesBindingAtOnceCountWholePods) {
  // Karpenter's KWOK "basic" in miniature: pods of 3.5 cpu and 28 memory on nodes of 16 cpu and
  // 64 memory (price 1) or 8 cpu and 32 memory (price 0.5). Memory alone prices a pod at 28/64
  // of a dollar; a node holds only 2 (or 1), so each pod costs 0.5 and 10 pods cost 5.
  LowerBoundProblem p;
  p.bins.push_back({1.0, false, {16, 64}});
  p.bins.push_back({0.5, false, {8, 32}});
  p.classes.push_back({10, {3.5, 28}, {0, 1}});
  const double lb = LowerBound(p);
  EXPECT_LE(lb, 5.0);
  EXPECT_NEAR(lb, 5.0, 1e-8);
}

TEST(LowerBound, SmallPodsFillTheRoomLargeOnesLeave) {
  // One large pod (3 cpu) per 4-cpu node leaves 1 cpu that four 0.25-cpu pods fill: 4 nodes
  // hold everything, which is also the fluid bound (16 cpu). The configuration LP must not
  // claim more than a plan that exists.
  LowerBoundProblem p;
  p.bins.push_back({1.0, false, {4, 100}});
  p.classes.push_back({4, {3, 1}, {0}});
  p.classes.push_back({16, {0.25, 1}, {0}});
  const double lb = LowerBound(p);
  EXPECT_LE(lb, 4.0);
  EXPECT_NEAR(lb, 4.0, 1e-8);
}

TEST(LowerBound, NeverAboveARealPlan) {
  // Seeded random problems: the bound never exceeds the price of the plan Repack builds (a
  // real packing of the same pods on the same types).
  std::mt19937 rng(7);
  std::uniform_int_distribution<int> cpu(1, 16), mem(1, 64), count(1, 30), price_cents(10, 200);
  for (int trial = 0; trial < 40; ++trial) {
    LowerBoundProblem p;
    std::vector<RepackType> types;
    std::vector<int> all;
    const int num_types = 1 + trial % 5;
    for (int t = 0; t < num_types; ++t) {
      const int64_t c = 4 * cpu(rng), m = 4 * mem(rng);
      const double price = price_cents(rng) / 100.0;
      p.bins.push_back({price, false, {static_cast<double>(c), static_cast<double>(m)}});
      types.push_back({{c, m}, price});
      all.push_back(t);
    }
    // Pods that fit the largest type on each resource, so a plan exists.
    int64_t max_c = 0, max_m = 0;
    for (const auto& t : types) {
      max_c = std::max(max_c, t.capacity[0]);
      max_m = std::max(max_m, t.capacity[1]);
    }
    std::vector<RepackClass> classes;
    for (int k = 0; k < 1 + trial % 4; ++k) {
      const int64_t c = 1 + cpu(rng) % max_c, m = 1 + mem(rng) % max_m, n = count(rng);
      p.classes.push_back({n, {static_cast<double>(c), static_cast<double>(m)}, all});
      classes.push_back({{c, m}, n});
    }
    const RepackPlan plan = Repack(types, classes, {});
    if (!plan.ok) continue;  // some pod fits no single type
    EXPECT_LE(LowerBound(p), plan.price * (1 + 1e-12)) << "trial " << trial;
    // The plan's own nodes as the configuration LP's starting columns change nothing proven.
    for (const RepackBin& bin : plan.new_bins) {
      LowerBoundPattern seed{bin.type, {}};
      for (size_t c = 0; c < bin.counts.size(); ++c) seed.counts.emplace_back(static_cast<int>(c), bin.counts[c]);
      p.seeds.push_back(std::move(seed));
    }
    EXPECT_LE(LowerBound(p), plan.price * (1 + 1e-12)) << "trial " << trial << " with seeds";
  }
}

}  // namespace
}  // namespace nodesmith::solver

namespace nodesmith::solver {
namespace {

TEST(LowerBound, DominatedBinsDoNotChangeTheOptimum) {
  LowerBoundProblem p;
  p.bins.push_back({1.0, false, {4, 16}});   // 4 cpu per dollar
  p.bins.push_back({2.5, false, {8, 32}});   // 3.2 cpu per dollar: dominated
  p.bins.push_back({0.5, false, {1, 64}});   // memory-rich, 2 cpu per dollar
  p.classes.push_back({8, {1, 1}, {0, 1, 2}});
  // 8 cpu at best 4 per dollar, in two whole nodes of the first bin.
  double lb = LowerBound(p);
  EXPECT_NEAR(lb, 2.0, 1e-9);
  p.bins[1].price = 2.0;  // now equally efficient, still no better
  EXPECT_NEAR(LowerBound(p), lb, 1e-9);
}

}  // namespace
}  // namespace nodesmith::solver

namespace nodesmith::solver {
namespace {

TEST(LowerBound, GpuPodsPayForTheCoresOfGpuNodesEvenInThePooledBound) {
  // Resources: [cpu, gpu, memory]. 90 GPU node shapes (8 cpu, 4 GPUs, price ~4) and 90 CPU-only
  // ones (8 cpu, price ~1); 25 classes x 4 pods of 6 cpu + 1 GPU: 25 x 180 columns, far above
  // the full LP's cap. The pods' 600 cpu must come from GPU nodes (a pod runs where it fits
  // alone), so at least 75 of them: 300, not the ~125 of buying GPUs on GPU nodes and cores on
  // CPU-only ones. Whole pods make it 100 nodes (one 6-cpu pod per 8-cpu node), which the
  // configuration LP proves.
  LowerBoundProblem p;
  std::vector<int> all;
  for (int i = 1; i <= 90; ++i) {
    p.bins.push_back({4.0 + 1e-4 * i, false, {8, 4, 1000.0 + i}});
    p.bins.push_back({1.0 + 1e-4 * i, false, {8, 0, 1000.0 + i}});
    all.push_back(2 * i - 2);
    all.push_back(2 * i - 1);
  }
  for (int c = 1; c <= 25; ++c) p.classes.push_back({4, {6, 1, static_cast<double>(c)}, all});
  const double lb = LowerBound(p);
  EXPECT_GE(lb, 100 * (4.0 + 1e-4) * (1 - 1e-8));  // 100 of the cheapest GPU nodes
  EXPECT_LE(lb, 100 * (4.0 + 1e-4 * 90));          // 100 of the dearest hold every pod
}

}  // namespace
}  // namespace nodesmith::solver

namespace nodesmith::solver {
namespace {

// Karpenter's KWOK "basic" in miniature again (10 pods of 3.5 cpu and 28 memory; whole pods
// make each cost 0.5), next to `extra` compatible types that each hold one pod for more.
LowerBoundProblem MemoryBoundPodsAmongManyTypes(int extra) {
  LowerBoundProblem p;
  p.bins.push_back({1.0, false, {16, 64}});
  p.bins.push_back({0.5, false, {8, 32}});
  for (int i = 0; i < extra; ++i) p.bins.push_back({0.6 + 0.01 * i, false, {64.0 + i, 30.0 + 0.01 * i}});
  std::vector<int> all(p.bins.size());
  for (size_t b = 0; b < all.size(); ++b) all[b] = static_cast<int>(b);
  p.classes.push_back({10, {3.5, 28}, all});
  return p;
}

TEST(LowerBound, HundredsOfTypesStillGetTheConfigurationBound) {
  // 300 types (an instance catalog's general-purpose pool): the fluid bound is 10 x 28/64 =
  // 4.375; every plan pays 5.
  const double lb = LowerBound(MemoryBoundPodsAmongManyTypes(298));
  EXPECT_LE(lb, 5.0);
  EXPECT_NEAR(lb, 5.0, 1e-8);
}

TEST(LowerBound, SeedsThatDoNotFitOrNameNothingAreIgnored) {
  LowerBoundProblem p = MemoryBoundPodsAmongManyTypes(3);
  const double unseeded = LowerBound(p);
  p.seeds.push_back({1, {{0, 5}}});    // five 28-memory pods in 32: does not fit
  p.seeds.push_back({0, {{7, 1}}});    // no class 7
  p.seeds.push_back({42, {{0, 1}}});   // no bin 42
  p.seeds.push_back({0, {{0, -1}}});   // a negative count
  p.seeds.push_back({0, {{0, 2}}});    // fits: two pods on the 64-memory node
  EXPECT_NEAR(LowerBound(p), unseeded, 1e-9);
  EXPECT_LE(LowerBound(p), 5.0);
}

TEST(LowerBound, ManyPodShapesOnFewLargeNodesSeededByAPlan) {
  // 16-cpu nodes (price 1); 40 shapes of 9-10 cpu (two pods each: no node holds two of them)
  // and 20 shapes of 5 cpu (two each), which fit beside one. Every plan needs a node per large
  // pod, 80, where the fluid bound (total cpu / 16) says 60.
  LowerBoundProblem p;
  p.bins.push_back({1.0, false, {16, 1000}});
  std::vector<RepackType> types{{{16, 1000}, 1.0}};
  std::vector<RepackClass> classes;
  for (int c = 0; c < 60; ++c) {
    const int64_t q = c < 40 ? 9 + c % 2 : 5;
    p.classes.push_back({2, {static_cast<double>(q), 1.0 + c}, {0}});
    classes.push_back({{q, 1 + c}, 2});
  }
  const RepackPlan plan = Repack(types, classes, {});
  ASSERT_TRUE(plan.ok);
  EXPECT_NEAR(plan.price, 80.0, 1e-9);
  for (const RepackBin& bin : plan.new_bins) {
    LowerBoundPattern seed{bin.type, {}};
    for (size_t c = 0; c < bin.counts.size(); ++c) seed.counts.emplace_back(static_cast<int>(c), bin.counts[c]);
    p.seeds.push_back(std::move(seed));
  }
  const double lb = LowerBound(p);
  EXPECT_LE(lb, 80.0);
  EXPECT_NEAR(lb, 80.0, 1e-6);
}

}  // namespace
}  // namespace nodesmith::solver
