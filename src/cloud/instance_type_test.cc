// InstanceType basics: overhead totals, allocatable, requirements from offerings, and the
// cheapest compatible offering.
#include "cloud/instance_type.h"

#include <gtest/gtest.h>

#include "scheduling/well_known_labels.h"

namespace nodesmith::cloud {
namespace {

namespace s = scheduling;
using api::Quantity;

TEST(Overhead, TotalSumsAllThreeReservations) {
  Overhead o;
  o.kube_reserved = {{"cpu", Quantity::MustParse("70m")}, {"memory", Quantity::MustParse("574Mi")}};
  o.system_reserved = {{"cpu", Quantity::MustParse("30m")}};
  o.eviction_threshold = {{"memory", Quantity::MustParse("100Mi")}};
  const api::ResourceList total = o.Total();
  EXPECT_EQ(total.Get("cpu"), Quantity::MustParse("100m"));
  EXPECT_EQ(total.Get("memory"), Quantity::MustParse("674Mi"));
  EXPECT_EQ(Overhead{}.Total(), api::ResourceList{});
}

InstanceTypePtr Sample(std::vector<Offering> offerings) {
  Overhead o;
  o.kube_reserved = {{"cpu", Quantity::MustParse("100m")}};
  return NewInstanceType("sample", s::Requirements::FromLabels({{"size", "small"}}),
                         {{"cpu", Quantity::MustParse("2")}, {"pods", Quantity::MustParse("10")}},
                         o, std::move(offerings));
}

TEST(NewInstanceType, ComputesAllocatableOnce) {
  auto it = Sample({{"z1", kCapacityTypeSpot, 1.0, true, {}}});
  EXPECT_EQ(it->allocatable.Get("cpu"), Quantity::MustParse("1900m"));
  EXPECT_EQ(it->allocatable.Get("pods"), Quantity::MustParse("10"));
  EXPECT_EQ(it->capacity.Get("cpu"), Quantity::MustParse("2"));
}

TEST(NewInstanceType, RequirementsNameTheTypeAndOnlyAvailableOfferings) {
  auto it = Sample({{"z2", kCapacityTypeSpot, 1.0, true, {}},
                    {"z1", kCapacityTypeOnDemand, 2.0, true, {}},
                    {"z3", kCapacityTypeReserved, 0.5, false, {}}});
  EXPECT_EQ(it->requirements.Get(s::kLabelInstanceTypeStable).Values(),
            std::vector<std::string>{"sample"});
  EXPECT_EQ(it->requirements.Get(s::kLabelTopologyZone).Values(),
            (std::vector<std::string>{"z1", "z2"}));
  EXPECT_EQ(it->requirements.Get(s::kLabelCapacityType).Values(),
            (std::vector<std::string>{"on-demand", "spot"}));
  EXPECT_EQ(it->requirements.Get("size").Any(), "small");
}

TEST(NewInstanceType, NoAvailableOfferingMeansNothingCanSelectIt) {
  auto it = Sample({{"z1", kCapacityTypeSpot, 1.0, false, {}}});
  EXPECT_EQ(it->requirements.Get(s::kLabelTopologyZone).Len(), 0);
  EXPECT_EQ(it->CheapestOffering(s::Requirements{}), nullptr);
}

TEST(CheapestOffering, PicksTheLowestPriceAmongCompatibleAvailableOfferings) {
  auto it = Sample({{"z1", kCapacityTypeOnDemand, 2.0, true, {}},
                    {"z2", kCapacityTypeSpot, 0.5, false, {}},  // cheapest but unavailable
                    {"z3", kCapacityTypeSpot, 0.8, true, {}},
                    {"z1", kCapacityTypeSpot, 0.9, true, {}}});
  const Offering* any = it->CheapestOffering(s::Requirements{});
  ASSERT_NE(any, nullptr);
  EXPECT_EQ(any->zone, "z3");

  s::Requirements in_z1;
  in_z1.Add(s::Requirement::In(s::kLabelTopologyZone, {"z1"}));
  const Offering* z1 = it->CheapestOffering(in_z1);
  ASSERT_NE(z1, nullptr);
  EXPECT_EQ(z1->capacity_type, "spot");

  s::Requirements on_demand_z3;
  on_demand_z3.Add(s::Requirement::In(s::kLabelTopologyZone, {"z3"}));
  on_demand_z3.Add(s::Requirement::In(s::kLabelCapacityType, {"on-demand"}));
  EXPECT_EQ(it->CheapestOffering(on_demand_z3), nullptr);
}

TEST(CheapestOffering, EqualPricesBreakTiesByZoneName) {
  auto it =
      Sample({{"zb", kCapacityTypeSpot, 1.0, true, {}}, {"za", kCapacityTypeSpot, 1.0, true, {}}});
  EXPECT_EQ(it->CheapestOffering(s::Requirements{})->zone, "za");
}

TEST(SortByName, OrdersTypesByName) {
  InstanceTypes types = {NewInstanceType("b", {}, {}, {}, {}),
                         NewInstanceType("a", {}, {}, {}, {})};
  SortByName(types);
  EXPECT_EQ(types[0]->name, "a");
  EXPECT_EQ(types[1]->name, "b");
}

}  // namespace
}  // namespace nodesmith::cloud
