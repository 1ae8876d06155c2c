// The built-in aws catalog: its table agrees with the shared AWS data, and regions, zones and
// prices follow the rules documented in aws_catalog.h.
#include "cloud/aws_catalog.h"

#include <gtest/gtest.h>

#include <cmath>
#include <fstream>
#include <map>
#include <nlohmann/json.hpp>
#include <set>

#include "cloud/aws_instance_data.h"
#include "scheduling/well_known_labels.h"

namespace nodesmith::cloud {
namespace {

const Offering* Find(const InstanceType& it, const std::string& zone, const std::string& ct) {
  for (const auto& o : it.offerings) {
    if (o.zone == zone && o.capacity_type == ct) return &o;
  }
  return nullptr;
}

InstanceTypePtr ByName(const InstanceTypes& types, const std::string& name) {
  for (const auto& t : types) {
    if (t->name == name) return t;
  }
  return nullptr;
}

TEST(AwsCatalog, DefaultRegionIsUsWest2WithThreeZonesSpotAndOnDemand) {
  auto types = AwsInstanceTypes(AwsCatalogOptions{});
  ASSERT_TRUE(types.ok()) << types.status().message();
  auto m5 = ByName(*types, "m5.large");
  ASSERT_NE(m5, nullptr);
  EXPECT_EQ(m5->offerings.size(), 6u);
  for (const char* zone : {"us-west-2a", "us-west-2b", "us-west-2c"}) {
    const Offering* od = Find(*m5, zone, kCapacityTypeOnDemand);
    const Offering* spot = Find(*m5, zone, kCapacityTypeSpot);
    ASSERT_NE(od, nullptr) << zone;
    ASSERT_NE(spot, nullptr) << zone;
    EXPECT_DOUBLE_EQ(od->price, 0.096);      // us-west-2 lists us-east-1's price
    EXPECT_DOUBLE_EQ(spot->price, 0.03648);  // 0.096 × (1 − 0.62)
    EXPECT_LT(spot->price, od->price);
  }
  EXPECT_EQ(m5->requirements.Get(scheduling::kLabelTopologyRegion).Any(), "us-west-2");
}

TEST(AwsCatalog, SortedByNameAndCoversTheRequestedFamilies) {
  auto types = AwsInstanceTypes(AwsCatalogOptions{});
  ASSERT_TRUE(types.ok());
  std::set<std::string> families;
  for (size_t i = 0; i < types->size(); ++i) {
    if (i > 0) {
      EXPECT_LT((*types)[i - 1]->name, (*types)[i]->name);
    }
    families.insert((*types)[i]->name.substr(0, (*types)[i]->name.find('.')));
  }
  for (const char* f : {"c5",  "c5a", "c5n", "c6i", "c6a", "c6g",  "c6gn", "c7i", "c7a", "c7g",
                        "m5",  "m5a", "m6i", "m6a", "m6g", "m7i",  "m7a",  "m7g", "r5",  "r5a",
                        "r6i", "r6a", "r6g", "r7i", "r7a", "r7g",  "t3",   "t3a", "t4g", "g4dn",
                        "g5",  "g6",  "p3",  "p4d", "p5",  "inf2", "trn1"}) {
    EXPECT_TRUE(families.count(f)) << f;
  }
}

TEST(AwsCatalog, OtherRegionsScaleByTheEstimatedMultiplier) {
  AwsCatalogOptions opts;
  opts.region = "eu-west-1";
  auto types = AwsInstanceTypes(opts);
  ASSERT_TRUE(types.ok());
  auto m5 = ByName(*types, "m5.large");
  ASSERT_NE(m5, nullptr);
  const Offering* od = Find(*m5, "eu-west-1a", kCapacityTypeOnDemand);
  ASSERT_NE(od, nullptr);
  EXPECT_NEAR(od->price, 0.107, 0.0005);
  EXPECT_EQ(m5->requirements.Get(scheduling::kLabelTopologyRegion).Any(), "eu-west-1");
}

TEST(AwsCatalog, UsEast1AndUsWest2PriceTheSame) {
  AwsCatalogOptions east;
  east.region = "us-east-1";
  auto a = AwsInstanceTypes(east);
  auto b = AwsInstanceTypes(AwsCatalogOptions{});
  ASSERT_TRUE(a.ok() && b.ok());
  ASSERT_EQ(a->size(), b->size());
  for (size_t i = 0; i < a->size(); ++i) {
    EXPECT_EQ((*a)[i]->offerings[1].price, (*b)[i]->offerings[1].price) << (*a)[i]->name;
  }
}

TEST(AwsCatalog, UnknownRegionIsInvalidAndListsTheKnownOnes) {
  AwsCatalogOptions opts;
  opts.region = "mars-north-1";
  auto types = AwsInstanceTypes(opts);
  ASSERT_FALSE(types.ok());
  EXPECT_EQ(types.status().code(), core::StatusCode::kInvalidArgument);
  EXPECT_NE(types.status().message().find("us-west-2"), std::string::npos);
}

TEST(AwsCatalog, SpotPriceOverride) {
  AwsCatalogOptions opts;
  opts.spot_prices["m5.large"] = 0.05;
  auto types = AwsInstanceTypes(opts);
  ASSERT_TRUE(types.ok());
  auto m5 = ByName(*types, "m5.large");
  ASSERT_NE(m5, nullptr);
  EXPECT_DOUBLE_EQ(Find(*m5, "us-west-2b", kCapacityTypeSpot)->price, 0.05);
}

TEST(AwsCatalog, SpotDiscountIsAFractionForEveryFamily) {
  for (const auto& spec : AwsInstanceSpecs()) {
    const double d = AwsSpotDiscount(spec.family());
    EXPECT_GT(d, 0.0) << spec.name;
    EXPECT_LT(d, 1.0) << spec.name;
  }
}

TEST(AwsCatalog, CheapestOfferingHonoursZoneAndCapacityType) {
  auto types = AwsInstanceTypes(AwsCatalogOptions{});
  ASSERT_TRUE(types.ok());
  auto m5 = ByName(*types, "m5.large");
  ASSERT_NE(m5, nullptr);
  scheduling::Requirements none;
  const Offering* any = m5->CheapestOffering(none);
  ASSERT_NE(any, nullptr);
  EXPECT_EQ(any->capacity_type, "spot");
  EXPECT_EQ(any->zone, "us-west-2a");  // equal prices: first zone by name
  scheduling::Requirements od_in_c;
  od_in_c.Add(scheduling::Requirement::In(scheduling::kLabelCapacityType, {"on-demand"}));
  od_in_c.Add(scheduling::Requirement::In(scheduling::kLabelTopologyZone, {"us-west-2c"}));
  const Offering* chosen = m5->CheapestOffering(od_in_c);
  ASSERT_NE(chosen, nullptr);
  EXPECT_EQ(chosen->zone, "us-west-2c");
  EXPECT_EQ(chosen->capacity_type, "on-demand");
}

// Where the shared DescribeInstanceTypes fixture covers a type of the table, the facts kept per
// family (processor maker, in-transit encryption) and the EFA / NVMe columns agree with it.
TEST(AwsCatalog, AgreesWithDescribeInstanceTypesFixture) {
  std::ifstream in(std::string(NODESMITH_SHARED_DATA) + "/aws/describe_instance_types.json");
  const nlohmann::json doc = nlohmann::json::parse(in);
  int compared = 0;
  for (const auto& info : doc["InstanceTypes"]) {
    const Ec2InstanceSpec* spec = FindAwsInstanceSpec(info["InstanceType"].get<std::string>());
    if (spec == nullptr) continue;
    ++compared;
    SCOPED_TRACE(std::string(spec->name));
    std::string maker = info["ProcessorInfo"]["Manufacturer"].get<std::string>();
    for (char& c : maker) c = static_cast<char>(std::tolower(static_cast<unsigned char>(c)));
    auto facts = FindEc2FamilyFacts(spec->family());
    ASSERT_TRUE(facts.has_value());
    EXPECT_EQ(facts->cpu_manufacturer, maker);
    EXPECT_EQ(facts->encryption_in_transit,
              info["NetworkInfo"]["EncryptionInTransitSupported"].get<bool>());
    const auto& efa = info["NetworkInfo"].value("EfaInfo", nlohmann::json::object());
    EXPECT_EQ(spec->efa_interfaces, efa.value("MaximumEfaInterfaces", int64_t{0}));
    const auto& storage = info.value("InstanceStorageInfo", nlohmann::json::object());
    EXPECT_EQ(spec->local_nvme_gb, storage.value("TotalSizeInGB", int64_t{0}));
    EXPECT_EQ(spec->vcpus, info["VCpuInfo"]["DefaultVCpus"].get<int64_t>());
    EXPECT_EQ(spec->memory_mib, info["MemoryInfo"]["SizeInMiB"].get<int64_t>());
  }
  EXPECT_GE(compared, 10);
}

// Each row of the built-in table against the shared merged table (instance_types.json) and the
// VPC limits it came from: one test per instance type.
class AwsTableRow : public ::testing::TestWithParam<std::string> {
 protected:
  static const std::map<std::string, nlohmann::json>& Shared() {
    static const std::map<std::string, nlohmann::json> kRows = [] {
      std::ifstream in(std::string(NODESMITH_SHARED_DATA) + "/aws/instance_types.json");
      nlohmann::json doc = nlohmann::json::parse(in);
      std::map<std::string, nlohmann::json> rows;
      for (auto& t : doc["instanceTypes"]) rows[t["name"].get<std::string>()] = t;
      return rows;
    }();
    return kRows;
  }
  static const nlohmann::json& VpcLimits() {
    static const nlohmann::json kLimits = [] {
      std::ifstream in(std::string(NODESMITH_SHARED_DATA) + "/aws/vpclimits.json");
      return nlohmann::json::parse(in);
    }();
    return kLimits;
  }
};

TEST_P(AwsTableRow, AgreesWithSharedData) {
  const Ec2InstanceSpec* spec = FindAwsInstanceSpec(GetParam());
  ASSERT_NE(spec, nullptr);
  auto it = Shared().find(GetParam());
  ASSERT_NE(it, Shared().end());
  const nlohmann::json& t = it->second;
  EXPECT_EQ(spec->vcpus, t["vcpu"].get<int64_t>());
  EXPECT_EQ(spec->memory_mib, t["memoryMiB"].get<int64_t>());
  EXPECT_EQ(spec->arch, t["arch"].get<std::string>());
  EXPECT_EQ(spec->hypervisor, t["hypervisor"].is_null() ? "" : t["hypervisor"].get<std::string>());
  EXPECT_EQ(spec->bare_metal, t["bareMetal"].get<bool>());
  EXPECT_EQ(spec->gpu_count, t["gpuCount"].get<int64_t>());
  EXPECT_EQ(spec->gpu_name, t.value("gpuName", ""));
  EXPECT_EQ(spec->gpu_manufacturer, t.value("gpuManufacturer", ""));
  EXPECT_EQ(spec->gpu_memory_mib, t.value("gpuMemoryMiB", int64_t{0}));
  EXPECT_EQ(spec->accelerator_name, t.value("acceleratorName", ""));
  EXPECT_EQ(spec->accelerator_count, t.value("acceleratorCount", int64_t{0}));
  EXPECT_EQ(spec->neuron_cores, t.value("neuronCores", int64_t{0}));
  EXPECT_EQ(spec->enis, t["enis"].get<int64_t>());
  EXPECT_EQ(spec->ipv4_per_eni, t["ipv4PerEni"].get<int64_t>());
  EXPECT_EQ(EniLimitedPods(spec->enis, spec->ipv4_per_eni), t["maxPodsEni"].get<int64_t>());
  EXPECT_EQ(spec->network_bandwidth_mbps, t.value("networkBandwidthMbps", int64_t{0}));
  EXPECT_DOUBLE_EQ(spec->on_demand_price, t["onDemandPriceUsdPerHour"]["us-east-1"].get<double>());
  const nlohmann::json& vpc = VpcLimits()[GetParam()];
  EXPECT_EQ(spec->branch_enis,
            vpc["IsTrunkingCompatible"].get<bool>() ? vpc["BranchInterface"].get<int64_t>() : 0);
  EXPECT_TRUE(FindEc2FamilyFacts(spec->family()).has_value()) << spec->family();
}

std::vector<std::string> TableNames() {
  std::vector<std::string> names;
  for (const auto& s : AwsInstanceSpecs()) names.emplace_back(s.name);
  return names;
}

INSTANTIATE_TEST_SUITE_P(Table, AwsTableRow, ::testing::ValuesIn(TableNames()),
                         [](const ::testing::TestParamInfo<std::string>& info) {
                           std::string s = info.param;
                           for (char& c : s) {
                             if (!std::isalnum(static_cast<unsigned char>(c))) c = '_';
                           }
                           return s;
                         });

}  // namespace
}  // namespace nodesmith::cloud
