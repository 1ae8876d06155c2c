// ResourceList: named quantities where an absent name means zero.
#include "api/resource_list.h"

#include <gmock/gmock.h>
#include <gtest/gtest.h>

#include <string>
#include <vector>

namespace nodesmith::api {
namespace {

using ::testing::ElementsAre;
using ::testing::IsEmpty;

Quantity Q(const char* s) { return Quantity::MustParse(s); }

TEST(ResourceList, GetOfAnAbsentNameIsZero) {
  ResourceList r{{"cpu", Q("500m")}};
  EXPECT_EQ(r.Get("cpu"), Q("500m"));
  EXPECT_TRUE(r.Get("memory").IsZero());
  EXPECT_TRUE(r.Has("cpu"));
  EXPECT_FALSE(r.Has("memory"));
  r.Erase("cpu");
  EXPECT_TRUE(r.empty());
}

TEST(ResourceList, AddMergesNamesFromBothSides) {
  ResourceList a{{"cpu", Q("500m")}, {"memory", Q("1Gi")}};
  a.Add(ResourceList{{"cpu", Q("1.5")}, {"pods", Q("1")}});
  EXPECT_EQ(a.String(), "cpu: 2, memory: 1Gi, pods: 1");
}

TEST(ResourceList, AddTimesIsRepeatedAdditionFormatsIncluded) {
  // A zero sum takes the addend's format (BinarySI "1Gi"), a non-zero one keeps its own.
  ResourceList once{{"cpu", Q("0")}, {"pods", Q("2")}};
  ResourceList times = once;
  const ResourceList pod{{"cpu", Q("250m")}, {"memory", Q("1Gi")}, {"pods", Q("1")}};
  for (int i = 0; i < 3; ++i) once.Add(pod);
  times.AddTimes(pod, 3);
  EXPECT_EQ(times.String(), "cpu: 750m, memory: 3Gi, pods: 5");
  EXPECT_EQ(times.String(), once.String());
  for (const auto& [name, q] : once.items()) {
    EXPECT_EQ(times.Get(name).format(), q.format()) << name;
  }
  times.AddTimes(pod, 0);
  EXPECT_EQ(times.String(), once.String());
}

TEST(ResourceList, AddTimesThroughZeroMatchesRepeatedAddition) {
  // -1024 + 1Ki reaches zero, where the next addend's format (BinarySI, "1Ki") is taken
  // over; one product would have kept DecimalSI ("1024").
  ResourceList once{{"memory", Q("-1024")}};
  ResourceList times = once;
  const ResourceList pod{{"memory", Q("1Ki")}};
  for (int i = 0; i < 2; ++i) once.Add(pod);
  times.AddTimes(pod, 2);
  EXPECT_EQ(once.String(), "memory: 1Ki");
  EXPECT_EQ(times.String(), once.String());
}

TEST(ResourceList, SubtractMayGoNegativeAndAddsMissingNames) {
  ResourceList a{{"cpu", Q("1")}};
  a.Subtract(ResourceList{{"cpu", Q("1500m")}, {"memory", Q("1Gi")}});
  EXPECT_EQ(a.Get("cpu"), Q("-500m"));
  EXPECT_EQ(a.Get("memory"), Q("-1Gi"));
  EXPECT_EQ(a.String(), "cpu: -500m, memory: -1Gi");
}

TEST(ResourceList, SumLeavesItsOperandsAlone) {
  const ResourceList a{{"cpu", Q("1")}};
  const ResourceList b{{"cpu", Q("2")}, {"memory", Q("512Mi")}};
  const ResourceList sum = ResourceList::Sum(a, b);
  EXPECT_EQ(sum.String(), "cpu: 3, memory: 512Mi");
  EXPECT_EQ(a.String(), "cpu: 1");
  EXPECT_EQ(b.String(), "cpu: 2, memory: 512Mi");
}

TEST(ResourceList, MaxIsEntryWiseOverNamesInEither) {
  const ResourceList a{{"cpu", Q("2")}, {"memory", Q("1Gi")}};
  const ResourceList b{{"cpu", Q("500m")}, {"memory", Q("2Gi")}, {"nvidia.com/gpu", Q("1")}};
  const ResourceList m = ResourceList::Max(a, b);
  EXPECT_EQ(m.String(), "cpu: 2, memory: 2Gi, nvidia.com/gpu: 1");
  EXPECT_EQ(ResourceList::Max(b, a), m);
  // A name in only one list keeps its quantity, even a negative one.
  EXPECT_EQ(ResourceList::Max(ResourceList{{"cpu", Q("-1")}}, ResourceList{}).Get("cpu"), Q("-1"));
}

TEST(ResourceList, FitsWhenEveryRequestIsWithinCapacity) {
  const ResourceList capacity{{"cpu", Q("4")}, {"memory", Q("16Gi")}, {"pods", Q("110")}};
  EXPECT_TRUE((ResourceList{{"cpu", Q("4")}, {"memory", Q("16Gi")}}).Fits(capacity));
  EXPECT_TRUE((ResourceList{{"cpu", Q("3999m")}}).Fits(capacity));
  EXPECT_TRUE(ResourceList{}.Fits(capacity));
  EXPECT_FALSE((ResourceList{{"cpu", Q("4001m")}}).Fits(capacity));
  // Capacity lacking a name has none of it...
  EXPECT_FALSE((ResourceList{{"nvidia.com/gpu", Q("1")}}).Fits(capacity));
  // ...but asking for zero of it still fits.
  EXPECT_TRUE((ResourceList{{"nvidia.com/gpu", Q("0")}}).Fits(capacity));
}

TEST(ResourceList, ExceedingNamesTheOffendersInOrder) {
  const ResourceList capacity{{"cpu", Q("4")}, {"memory", Q("16Gi")}};
  const ResourceList request{
      {"memory", Q("17Gi")}, {"cpu", Q("1")}, {"amd.com/gpu", Q("1")}, {"pods", Q("0")}};
  EXPECT_THAT(request.Exceeding(capacity), ElementsAre("amd.com/gpu", "memory"));
  EXPECT_THAT(ResourceList{}.Exceeding(capacity), IsEmpty());
}

TEST(ResourceList, StringListsNamesInOrder) {
  const ResourceList r{{"memory", Q("1Gi")}, {"cpu", Q("0.5")}, {"pods", Q("1")}};
  EXPECT_EQ(r.String(), "cpu: 500m, memory: 1Gi, pods: 1");
  EXPECT_EQ(ResourceList{}.String(), "");
}

TEST(ResourceList, EqualityComparesValuesWithAbsentAsZero) {
  EXPECT_EQ((ResourceList{{"memory", Q("1Gi")}}), (ResourceList{{"memory", Q("1024Mi")}}));
  EXPECT_EQ((ResourceList{{"cpu", Q("0")}}), ResourceList{});
  EXPECT_EQ(ResourceList{}, (ResourceList{{"cpu", Q("0")}}));
  EXPECT_FALSE((ResourceList{{"cpu", Q("1")}}) == ResourceList{});
  EXPECT_FALSE(ResourceList{} == (ResourceList{{"cpu", Q("1")}}));
  EXPECT_FALSE((ResourceList{{"cpu", Q("1")}}) == (ResourceList{{"cpu", Q("1001m")}}));
}

TEST(ResourceList, ConstantsNameTheWellKnownResources) {
  ResourceList r;
  r.Set(kResourceCpu, Q("1"));
  r.Set(kResourceMemory, Q("1Gi"));
  r.Set(kResourceEphemeralStorage, Q("20Gi"));
  r.Set(kResourceNvidiaGpu, Q("1"));
  EXPECT_EQ(r.String(), "cpu: 1, ephemeral-storage: 20Gi, memory: 1Gi, nvidia.com/gpu: 1");
}

}  // namespace
}  // namespace nodesmith::api
