#include "solver/lower_bound.h"

#include <gtest/gtest.h>

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

TEST(LowerBound, NeverAboveTheTrueOptimum) {
  // 3 pods of 0.6 cpu on 1-cpu nodes at price 1: integral optimum 3, fractional 1.8.
  LowerBoundProblem p;
  p.bins.push_back({1.0, false, {1, 10}});
  p.classes.push_back({3, {0.6, 1}, {0}});
  double lb = LowerBound(p);
  EXPECT_LE(lb, 1.8 + 1e-12);
  EXPECT_NEAR(lb, 1.8, 1e-9);
}

}  // namespace
}  // namespace nodesmith::solver

namespace nodesmith::solver {
namespace {

TEST(LowerBound, DominatedBinsDoNotChangeTheOptimum) {
  LowerBoundProblem p;
  p.bins.push_back({1.0, false, {4, 16}});   // 4 cpu per dollar
  p.bins.push_back({2.5, false, {8, 32}});   // 3.2 cpu per dollar: dominated
  p.bins.push_back({0.5, false, {1, 64}});   // memory-rich
  p.classes.push_back({8, {1, 1}, {0, 1, 2}});
  p.classes.push_back({4, {0, 16}, {0, 1, 2}});
  // 8 cpu at best 4/$ = 2$, 72 memory: the memory-rich bin supplies it cheaply alongside.
  double lb = LowerBound(p);
  p.bins[1].price = 2.0;  // now equally efficient, still no better
  EXPECT_NEAR(LowerBound(p), lb, 1e-9);
  EXPECT_GT(lb, 0);
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
  // CPU-only ones.
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
  EXPECT_GE(lb, 300.0 * (1 - 1e-9));
  EXPECT_LE(lb, 75 * (4.0 + 1e-4 * 90));  // 75 of the dearest GPU nodes hold every pod
}

}  // namespace
}  // namespace nodesmith::solver
