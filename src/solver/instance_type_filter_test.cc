#include "solver/instance_type_filter.h"

#include <gmock/gmock.h>
#include <gtest/gtest.h>

#include "solver/solver_test_fixtures.h"

namespace nodesmith::solver {
namespace {

using ::testing::ElementsAre;
using ::testing::IsEmpty;
using namespace nodesmith::solver::testing;

std::vector<std::string> Names(const std::vector<const cloud::InstanceType*>& types) {
  std::vector<std::string> out;
  for (const auto* t : types) out.push_back(t->name);
  return out;
}

TEST(InstanceTypeFilter, OrdersByCheapestCompatibleOfferingThenName) {
  auto a = MakeType({.name = "a", .price = 0.3});
  auto b = MakeType({.name = "b", .price = 0.1, .capacity_types = {"on-demand", "spot"}});
  auto c = MakeType({.name = "c", .price = 0.3});
  scheduling::Requirements on_demand{{scheduling::Requirement::In("karpenter.sh/capacity-type", {"on-demand"})}};
  auto ordered = OrderAndTruncate({a.get(), b.get(), c.get()}, on_demand,
                                  scheduling::AllowUndefinedWellKnownLabels(), 60, nullptr);
  EXPECT_THAT(Names(ordered), ElementsAre("b", "a", "c"));
  EXPECT_DOUBLE_EQ(CheapestPrice(*b, scheduling::Requirements{}, scheduling::AllowUndefinedWellKnownLabels()), 0.05);
  EXPECT_DOUBLE_EQ(CheapestPrice(*b, on_demand, scheduling::AllowUndefinedWellKnownLabels()), 0.1);
}

TEST(InstanceTypeFilter, TruncationKeepsMinValuesSatisfiable) {
  // Three cheap types of family x, one dearer of family y; keep 2 with minValues 2 on family.
  auto x1 = MakeType({.name = "x1", .price = 0.1, .labels = {{"example.com/family", "x"}}});
  auto x2 = MakeType({.name = "x2", .price = 0.2, .labels = {{"example.com/family", "x"}}});
  auto x3 = MakeType({.name = "x3", .price = 0.3, .labels = {{"example.com/family", "x"}}});
  auto y1 = MakeType({.name = "y1", .price = 0.9, .labels = {{"example.com/family", "y"}}});
  scheduling::Requirements reqs{{scheduling::Requirement("example.com/family", scheduling::Operator::kExists, {}, 2)}};
  std::vector<MinValuesShortfall> shortfalls;
  auto kept = OrderAndTruncate({y1.get(), x3.get(), x2.get(), x1.get()}, reqs,
                               scheduling::AllowUndefinedWellKnownLabels(), 2, &shortfalls);
  EXPECT_THAT(Names(kept), ElementsAre("x1", "y1"));
  EXPECT_THAT(shortfalls, IsEmpty());
}

TEST(InstanceTypeFilter, ReportsMinValuesThatCannotBeMet) {
  auto x1 = MakeType({.name = "x1", .labels = {{"example.com/family", "x"}}});
  scheduling::Requirements reqs{{scheduling::Requirement("example.com/family", scheduling::Operator::kExists, {}, 2)}};
  auto shortfalls = CheckMinValues({x1.get()}, reqs);
  ASSERT_EQ(shortfalls.size(), 1u);
  EXPECT_EQ(shortfalls[0].key, "example.com/family");
  EXPECT_EQ(shortfalls[0].required, 2);
  EXPECT_EQ(shortfalls[0].available, 1);
}

TEST(InstanceTypeFilter, OfferingMustMatchZoneAndCapacityType) {
  auto t = MakeType({.name = "t", .zones = {"z1"}, .capacity_types = {"spot"}});
  auto opts = scheduling::AllowUndefinedWellKnownLabels();
  EXPECT_TRUE(HasCompatibleOffering(*t, scheduling::Requirements{}, opts));
  EXPECT_FALSE(HasCompatibleOffering(
      *t, scheduling::Requirements{{scheduling::Requirement::In("topology.kubernetes.io/zone", {"z2"})}}, opts));
  EXPECT_FALSE(HasCompatibleOffering(
      *t, scheduling::Requirements{{scheduling::Requirement::In("karpenter.sh/capacity-type", {"on-demand"})}}, opts));
}

}  // namespace
}  // namespace nodesmith::solver
