// The kwok catalog is generated exactly as Karpenter's KWOK provider generates its types: each
// generated type is compared with shared/data/kwok/instance_types.json (one test per type).
#include "cloud/kwok_catalog.h"

#include <gtest/gtest.h>

#include <fstream>
#include <map>
#include <nlohmann/json.hpp>

#include "cloud/labels.h"

namespace nodesmith::cloud {
namespace {

namespace s = scheduling;
using api::Quantity;

const std::map<std::string, nlohmann::json>& SharedKwok() {
  static const std::map<std::string, nlohmann::json> kTypes = [] {
    std::ifstream in(std::string(NODESMITH_SHARED_DATA) + "/kwok/instance_types.json");
    std::map<std::string, nlohmann::json> out;
    for (auto& t : nlohmann::json::parse(in)) out[t["name"].get<std::string>()] = t;
    return out;
  }();
  return kTypes;
}

TEST(KwokCatalog, Generates144TypesLikeTheSharedFile) {
  const auto options = KwokInstanceTypeOptionsList();
  EXPECT_EQ(options.size(), 144u);
  EXPECT_EQ(options.size(), SharedKwok().size());
  EXPECT_EQ(options.front().name, "c-1x-amd64-linux");
  EXPECT_EQ(KwokInstanceTypes().size(), 144u);
}

class KwokType : public ::testing::TestWithParam<std::string> {};

TEST_P(KwokType, MatchesKarpentersGeneratedFile) {
  KwokInstanceTypeOptions generated;
  for (auto& o : KwokInstanceTypeOptionsList()) {
    if (o.name == GetParam()) generated = o;
  }
  ASSERT_EQ(generated.name, GetParam());
  const nlohmann::json& want = SharedKwok().at(GetParam());
  EXPECT_EQ(generated.architecture, want["architecture"].get<std::string>());
  EXPECT_EQ(generated.operating_systems, want["operatingSystems"].get<std::vector<std::string>>());
  ASSERT_EQ(generated.resources.items().size(), want["resources"].size());
  for (const auto& [name, q] : want["resources"].items()) {
    EXPECT_EQ(generated.resources.Get(name), Quantity::MustParse(q.get<std::string>())) << name;
    EXPECT_EQ(generated.resources.Get(name).String(), q.get<std::string>()) << name;
  }
  ASSERT_EQ(generated.offerings.size(), want["offerings"].size());
  for (size_t i = 0; i < generated.offerings.size(); ++i) {
    const nlohmann::json& o = want["offerings"][i];
    std::map<std::string, std::string> reqs;
    for (const auto& r : o["Requirements"]) reqs[r["key"]] = r["values"][0];
    EXPECT_EQ(generated.offerings[i].zone, reqs.at(s::kLabelTopologyZone));
    EXPECT_EQ(generated.offerings[i].capacity_type, reqs.at(s::kLabelCapacityType));
    EXPECT_DOUBLE_EQ(generated.offerings[i].price, o["Price"].get<double>());
    EXPECT_EQ(generated.offerings[i].available, o["Available"].get<bool>());
  }
}

INSTANTIATE_TEST_SUITE_P(Generated, KwokType, ::testing::ValuesIn([] {
                           std::vector<std::string> names;
                           for (const auto& o : KwokInstanceTypeOptionsList())
                             names.push_back(o.name);
                           return names;
                         }()),
                         [](const ::testing::TestParamInfo<std::string>& info) {
                           std::string n = info.param;
                           for (char& c : n) {
                             if (c == '-') c = '_';
                           }
                           return n;
                         });

TEST(KwokCatalog, InstanceTypeLabelsOverheadAndAllocatable) {
  InstanceTypePtr c1;
  for (const auto& t : KwokInstanceTypes()) {
    if (t->name == "c-1x-amd64-linux") c1 = t;
  }
  ASSERT_NE(c1, nullptr);
  EXPECT_EQ(c1->requirements.Get(kLabelKwokInstanceSize).Any(), "1");
  EXPECT_EQ(c1->requirements.Get(kLabelKwokInstanceFamily).Any(), "c");
  EXPECT_EQ(c1->requirements.Get(kLabelKwokInstanceCpu).Any(), "1");
  EXPECT_EQ(c1->requirements.Get(kLabelKwokInstanceMemory).Any(), "2Gi");
  EXPECT_EQ(c1->requirements.Get(s::kLabelOSStable).Any(), "linux");
  EXPECT_EQ(c1->requirements.Get(s::kLabelTopologyZone).Values().size(), 4u);
  EXPECT_EQ(c1->overhead.kube_reserved.Get("cpu"), Quantity::MustParse("100m"));
  EXPECT_EQ(c1->overhead.kube_reserved.Get("memory"), Quantity::MustParse("10Mi"));
  EXPECT_EQ(c1->allocatable.Get("cpu"), Quantity::MustParse("900m"));
  EXPECT_EQ(c1->allocatable.Get("memory"), Quantity::MustParse("2038Mi"));
  EXPECT_EQ(c1->allocatable.Get("pods"), Quantity::MustParse("16"));
}

TEST(KwokCatalog, AwsStyleNamesUseTheirSizeAndMissingPodsDefaultTo110) {
  KwokInstanceTypeOptions o;
  o.name = "g5.4xlarge";
  o.architecture = "amd64";
  o.operating_systems = {"linux"};
  o.resources.Set("cpu", Quantity::MustParse("16"));
  o.resources.Set("memory", Quantity::MustParse("64Gi"));
  o.offerings = {{"us-east-1a", kCapacityTypeOnDemand, 1.624, false, {}}};
  InstanceTypePtr it = NewKwokInstanceType(o);
  EXPECT_EQ(it->requirements.Get(kLabelKwokInstanceSize).Any(), "4xlarge");
  EXPECT_EQ(it->requirements.Get(kLabelKwokInstanceFamily).Any(), "g5");
  EXPECT_EQ(it->capacity.Get("pods"), Quantity::MustParse("110"));
  EXPECT_TRUE(it->offerings[0].available);  // the provider marks every offering available
}

TEST(KwokCatalog, WellKnownLabelsIncludeTheKwokKeys) {
  const s::LabelKeySet keys = KwokWellKnownLabels();
  EXPECT_TRUE(keys.Contains(kLabelKwokInstanceFamily));
  EXPECT_TRUE(keys.Contains(s::kLabelInstanceTypeStable));
}

}  // namespace
}  // namespace nodesmith::cloud
