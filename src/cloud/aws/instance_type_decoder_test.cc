// The live instance-type decoder: items as EC2 answers them (trimmed to what Karpenter reads)
// must give the InstanceType the built-in table gives for the same facts; what only the live answer
// carries lands in its labels; offerings follow the zones and the PriceBook.
#include "cloud/aws/instance_type_decoder.h"

#include <gmock/gmock.h>
#include <gtest/gtest.h>

#include "cloud/aws_catalog.h"
#include "cloud/labels.h"
#include "scheduling/well_known_labels.h"

namespace nodesmith::aws {
namespace {

namespace s = scheduling;
using ::testing::ElementsAre;
using ::testing::HasSubstr;

constexpr const char* kRegion = "us-west-2";

// As moto (and EC2) answer them, less the fields nobody reads.
constexpr const char* kM5Large = R"(<item><instanceType>m5.large</instanceType>
  <supportedUsageClasses><item>on-demand</item><item>spot</item></supportedUsageClasses>
  <bareMetal>false</bareMetal><hypervisor>nitro</hypervisor>
  <processorInfo><supportedArchitectures><item>x86_64</item></supportedArchitectures>
    <sustainedClockSpeedInGhz>3.1</sustainedClockSpeedInGhz><manufacturer>Intel</manufacturer></processorInfo>
  <vCpuInfo><defaultVCpus>2</defaultVCpus><defaultCores>1</defaultCores></vCpuInfo>
  <memoryInfo><sizeInMiB>8192</sizeInMiB></memoryInfo>
  <instanceStorageSupported>false</instanceStorageSupported>
  <ebsInfo><ebsOptimizedSupport>default</ebsOptimizedSupport>
    <ebsOptimizedInfo><baselineBandwidthInMbps>650</baselineBandwidthInMbps><maximumBandwidthInMbps>4750</maximumBandwidthInMbps></ebsOptimizedInfo></ebsInfo>
  <networkInfo><maximumNetworkInterfaces>3</maximumNetworkInterfaces><defaultNetworkCardIndex>0</defaultNetworkCardIndex>
    <networkCards><item><networkCardIndex>0</networkCardIndex><maximumNetworkInterfaces>3</maximumNetworkInterfaces>
      <baselineBandwidthInGbps>0.75</baselineBandwidthInGbps><peakBandwidthInGbps>10.0</peakBandwidthInGbps></item></networkCards>
    <ipv4AddressesPerInterface>10</ipv4AddressesPerInterface><efaSupported>false</efaSupported>
    <encryptionInTransitSupported>false</encryptionInTransitSupported></networkInfo>
</item>)";

constexpr const char* kG5Xlarge = R"(<item><instanceType>g5.xlarge</instanceType>
  <supportedUsageClasses><item>on-demand</item><item>spot</item></supportedUsageClasses>
  <bareMetal>false</bareMetal><hypervisor>nitro</hypervisor>
  <processorInfo><supportedArchitectures><item>x86_64</item></supportedArchitectures>
    <sustainedClockSpeedInGhz>3.3</sustainedClockSpeedInGhz><manufacturer>AMD</manufacturer></processorInfo>
  <vCpuInfo><defaultVCpus>4</defaultVCpus></vCpuInfo><memoryInfo><sizeInMiB>16384</sizeInMiB></memoryInfo>
  <instanceStorageSupported>true</instanceStorageSupported>
  <instanceStorageInfo><totalSizeInGB>250</totalSizeInGB><nvmeSupport>required</nvmeSupport></instanceStorageInfo>
  <ebsInfo><ebsOptimizedSupport>default</ebsOptimizedSupport>
    <ebsOptimizedInfo><maximumBandwidthInMbps>3500</maximumBandwidthInMbps></ebsOptimizedInfo></ebsInfo>
  <networkInfo><maximumNetworkInterfaces>4</maximumNetworkInterfaces><defaultNetworkCardIndex>0</defaultNetworkCardIndex>
    <networkCards><item><networkCardIndex>0</networkCardIndex><maximumNetworkInterfaces>4</maximumNetworkInterfaces>
      <baselineBandwidthInGbps>2.5</baselineBandwidthInGbps></item></networkCards>
    <ipv4AddressesPerInterface>15</ipv4AddressesPerInterface><efaSupported>false</efaSupported>
    <encryptionInTransitSupported>true</encryptionInTransitSupported></networkInfo>
  <gpuInfo><gpus><item><name>A10G</name><manufacturer>NVIDIA</manufacturer><count>1</count>
    <memoryInfo><sizeInMiB>22888</sizeInMiB></memoryInfo></item></gpus><totalGpuMemoryInMiB>22888</totalGpuMemoryInMiB></gpuInfo>
</item>)";

constexpr const char* kM6gLarge = R"(<item><instanceType>m6g.large</instanceType>
  <supportedUsageClasses><item>on-demand</item><item>spot</item></supportedUsageClasses>
  <bareMetal>false</bareMetal><hypervisor>nitro</hypervisor>
  <processorInfo><supportedArchitectures><item>arm64</item></supportedArchitectures>
    <sustainedClockSpeedInGhz>2.5</sustainedClockSpeedInGhz><manufacturer>AWS</manufacturer></processorInfo>
  <vCpuInfo><defaultVCpus>2</defaultVCpus></vCpuInfo><memoryInfo><sizeInMiB>8192</sizeInMiB></memoryInfo>
  <ebsInfo><ebsOptimizedSupport>default</ebsOptimizedSupport>
    <ebsOptimizedInfo><maximumBandwidthInMbps>4750</maximumBandwidthInMbps></ebsOptimizedInfo></ebsInfo>
  <networkInfo><maximumNetworkInterfaces>3</maximumNetworkInterfaces><defaultNetworkCardIndex>0</defaultNetworkCardIndex>
    <networkCards><item><networkCardIndex>0</networkCardIndex><maximumNetworkInterfaces>3</maximumNetworkInterfaces>
      <baselineBandwidthInGbps>0.75</baselineBandwidthInGbps></item></networkCards>
    <ipv4AddressesPerInterface>10</ipv4AddressesPerInterface>
    <encryptionInTransitSupported>false</encryptionInTransitSupported></networkInfo>
</item>)";

// Bare metal: no <hypervisor> element at all.
constexpr const char* kM5Metal = R"(<item><instanceType>m5.metal</instanceType>
  <supportedUsageClasses><item>on-demand</item><item>spot</item></supportedUsageClasses>
  <bareMetal>true</bareMetal>
  <processorInfo><supportedArchitectures><item>x86_64</item></supportedArchitectures>
    <sustainedClockSpeedInGhz>3.1</sustainedClockSpeedInGhz><manufacturer>Intel</manufacturer></processorInfo>
  <vCpuInfo><defaultVCpus>96</defaultVCpus></vCpuInfo><memoryInfo><sizeInMiB>393216</sizeInMiB></memoryInfo>
  <ebsInfo><ebsOptimizedSupport>default</ebsOptimizedSupport>
    <ebsOptimizedInfo><maximumBandwidthInMbps>19000</maximumBandwidthInMbps></ebsOptimizedInfo></ebsInfo>
  <networkInfo><maximumNetworkInterfaces>15</maximumNetworkInterfaces><defaultNetworkCardIndex>0</defaultNetworkCardIndex>
    <networkCards><item><networkCardIndex>0</networkCardIndex><maximumNetworkInterfaces>15</maximumNetworkInterfaces>
      <baselineBandwidthInGbps>25.0</baselineBandwidthInGbps></item></networkCards>
    <ipv4AddressesPerInterface>50</ipv4AddressesPerInterface>
    <encryptionInTransitSupported>false</encryptionInTransitSupported></networkInfo>
</item>)";

constexpr const char* kInf2Xlarge = R"(<item><instanceType>inf2.xlarge</instanceType>
  <supportedUsageClasses><item>on-demand</item><item>spot</item></supportedUsageClasses>
  <bareMetal>false</bareMetal><hypervisor>nitro</hypervisor>
  <processorInfo><supportedArchitectures><item>x86_64</item></supportedArchitectures>
    <sustainedClockSpeedInGhz>3.6</sustainedClockSpeedInGhz><manufacturer>AMD</manufacturer></processorInfo>
  <vCpuInfo><defaultVCpus>4</defaultVCpus></vCpuInfo><memoryInfo><sizeInMiB>16384</sizeInMiB></memoryInfo>
  <networkInfo><maximumNetworkInterfaces>4</maximumNetworkInterfaces><defaultNetworkCardIndex>0</defaultNetworkCardIndex>
    <networkCards><item><networkCardIndex>0</networkCardIndex><maximumNetworkInterfaces>4</maximumNetworkInterfaces>
      <baselineBandwidthInGbps>2.083</baselineBandwidthInGbps></item></networkCards>
    <ipv4AddressesPerInterface>15</ipv4AddressesPerInterface>
    <encryptionInTransitSupported>true</encryptionInTransitSupported></networkInfo>
  <neuronInfo><neuronDevices><item><count>1</count><name>Inferentia2</name><coreInfo><count>2</count><version>2</version></coreInfo>
    <memoryInfo><sizeInMiB>32768</sizeInMiB></memoryInfo></item></neuronDevices></neuronInfo>
</item>)";

// A DescribeInstanceTypes answer page holding `items`.
XmlAnswer Page(const std::string& items) {
  XmlAnswer a;
  a.document = std::make_shared<pugi::xml_document>();
  const std::string xml = "<DescribeInstanceTypesResponse><instanceTypeSet>" + items +
                          "</instanceTypeSet></DescribeInstanceTypesResponse>";
  EXPECT_TRUE(a.document->load_string(xml.c_str()));
  a.root = a.document->document_element();
  return a;
}

pugi::xml_node FirstItem(const XmlAnswer& page) {
  return page.root.child("instanceTypeSet").child("item");
}

LiveInstanceSpec Decode(const std::string& item) {
  XmlAnswer page = Page(item);
  auto spec = DecodeInstanceTypeItem(FirstItem(page));
  EXPECT_TRUE(spec.ok()) << spec.status().message();
  return spec.ok() ? *spec : LiveInstanceSpec{};
}

std::vector<InstanceTypeOffering> OfferedIn(const std::string& type, std::vector<std::string> zones) {
  std::vector<InstanceTypeOffering> out;
  for (auto& z : zones) out.push_back({type, z});
  return out;
}

const cloud::InstanceType* Named(const cloud::InstanceTypes& types, std::string_view name) {
  for (const auto& t : types)
    if (t->name == name) return t.get();
  return nullptr;
}

std::vector<std::string> Values(const cloud::InstanceType& t, const char* key) {
  const s::Requirement* r = t.requirements.Find(key);
  if (r == nullptr) return {"<absent>"};
  // An empty In set is DoesNotExist: nothing can carry the label.
  if (r->op() == s::Operator::kDoesNotExist) return {"<does-not-exist>"};
  return r->Values();
}

// --- The same facts as the table give the table's answer ---

struct SameFacts {
  const char* name;
  const char* item;
};

class LiveMatchesTableTest : public ::testing::TestWithParam<SameFacts> {};

TEST_P(LiveMatchesTableTest, CapacityOverheadAndLabelsAreTheTables) {
  const SameFacts& c = GetParam();
  cloud::AwsCatalogOptions options;
  options.region = kRegion;
  auto table = cloud::AwsInstanceTypes(options);
  ASSERT_TRUE(table.ok()) << table.status().message();
  const cloud::InstanceType* want = Named(*table, c.name);
  ASSERT_NE(want, nullptr);

  auto live = LiveInstanceTypes({Page(c.item)}, OfferedIn(c.name, cloud::AwsZones(kRegion)),
                                PriceBook(), kRegion, options.node_settings);
  ASSERT_TRUE(live.ok()) << live.status().message();
  ASSERT_EQ(live->size(), 1u);
  const cloud::InstanceType& got = *live->front();

  EXPECT_EQ(got.name, want->name);
  EXPECT_EQ(got.capacity, want->capacity) << got.capacity.String() << " vs " << want->capacity.String();
  EXPECT_EQ(got.overhead.Total(), want->overhead.Total());
  EXPECT_EQ(got.allocatable, want->allocatable);
  // The table records neither clock speed nor EBS bandwidth; every other label must agree.
  s::Requirements got_reqs = got.requirements, want_reqs = want->requirements;
  for (const char* key : {s::kLabelInstanceCpuSustainedClockSpeedMhz, s::kLabelInstanceEbsBandwidth}) {
    got_reqs.Remove(key);
    want_reqs.Remove(key);
  }
  EXPECT_EQ(got_reqs, want_reqs) << "live:  " << got_reqs.String() << "\ntable: " << want_reqs.String();

  // With no PriceBook, on-demand offerings carry the built-in price and spot the on-demand price
  // (no spot prices yet), in every offered zone.
  ASSERT_EQ(got.offerings.size(), 6u);
  for (const cloud::Offering& o : got.offerings) {
    const cloud::Offering* od = nullptr;
    for (const cloud::Offering& w : want->offerings)
      if (w.zone == o.zone && w.capacity_type == cloud::kCapacityTypeOnDemand) od = &w;
    ASSERT_NE(od, nullptr) << o.zone;
    EXPECT_TRUE(o.available);
    EXPECT_DOUBLE_EQ(o.price, od->price) << o.zone << " " << o.capacity_type;
  }
}

INSTANTIATE_TEST_SUITE_P(Types, LiveMatchesTableTest,
                         ::testing::Values(SameFacts{"m5.large", kM5Large}, SameFacts{"g5.xlarge", kG5Xlarge},
                                           SameFacts{"m6g.large", kM6gLarge}, SameFacts{"m5.metal", kM5Metal},
                                           SameFacts{"inf2.xlarge", kInf2Xlarge}),
                         [](const auto& info) {
                           std::string n = info.param.name;
                           for (char& ch : n)
                             if (ch == '.') ch = '_';
                           return n;
                         });

// --- What the decoder reads ---

TEST(InstanceTypeDecoderTest, ReadsTheFactsKarpenterReads) {
  LiveInstanceSpec g5 = Decode(kG5Xlarge);
  EXPECT_EQ(g5.name, "g5.xlarge");
  EXPECT_EQ(g5.vcpus, 4);
  EXPECT_EQ(g5.memory_mib, 16384);
  EXPECT_EQ(g5.arch, "amd64");
  EXPECT_EQ(g5.hypervisor, "nitro");
  EXPECT_EQ(g5.gpu_name, "a10g");
  EXPECT_EQ(g5.gpu_manufacturer, "nvidia");
  EXPECT_EQ(g5.gpu_count, 1);
  EXPECT_EQ(g5.gpu_memory_mib, 22888);
  EXPECT_EQ(g5.enis, 4);
  EXPECT_EQ(g5.ipv4_per_eni, 15);
  EXPECT_EQ(g5.branch_enis, 4);  // from the table
  EXPECT_EQ(g5.network_bandwidth_mbps, 2500);
  EXPECT_EQ(g5.local_nvme_gb, 250);
  EXPECT_EQ(g5.cpu_manufacturer, "amd");
  EXPECT_TRUE(g5.encryption_in_transit);
  EXPECT_EQ(g5.cpu_sustained_clock_speed_mhz, 3300);
  EXPECT_EQ(g5.ebs_bandwidth_mbps, 3500);
  EXPECT_THAT(g5.usage_classes, ElementsAre("on-demand", "spot"));

  LiveInstanceSpec metal = Decode(kM5Metal);
  EXPECT_TRUE(metal.bare_metal);
  EXPECT_EQ(metal.hypervisor, "");

  LiveInstanceSpec inf2 = Decode(kInf2Xlarge);
  EXPECT_EQ(inf2.accelerator_name, "inferentia2");
  EXPECT_EQ(inf2.accelerator_manufacturer, "aws");
  EXPECT_EQ(inf2.accelerator_count, 1);
  EXPECT_EQ(inf2.neuron_cores, 2);
}

TEST(InstanceTypeDecoderTest, TheViewSeesTheOwnersStrings) {
  LiveInstanceSpec spec = Decode(kG5Xlarge);
  cloud::Ec2InstanceSpec view = spec.View();
  EXPECT_EQ(view.name, "g5.xlarge");
  EXPECT_EQ(view.family(), "g5");
  EXPECT_EQ(view.gpu_name.data(), spec.gpu_name.data());
  EXPECT_EQ(view.branch_enis, 4);
}

TEST(InstanceTypeDecoderTest, LiveOnlyLabelsComeFromTheAnswer) {
  auto live = LiveInstanceTypes({Page(kM6gLarge)}, OfferedIn("m6g.large", {"us-west-2a"}), PriceBook(),
                                kRegion, {});
  ASSERT_TRUE(live.ok()) << live.status().message();
  const cloud::InstanceType& t = *live->front();
  EXPECT_THAT(Values(t, s::kLabelInstanceCpuSustainedClockSpeedMhz), ElementsAre("2500"));
  EXPECT_THAT(Values(t, s::kLabelInstanceEbsBandwidth), ElementsAre("4750"));
  EXPECT_THAT(Values(t, s::kLabelInstanceCpuManufacturer), ElementsAre("aws"));
  EXPECT_THAT(Values(t, s::kLabelArchStable), ElementsAre("arm64"));
}

// A type the table does not know: its own processor and encryption facts, no branch ENIs, and the
// AMD GPU's name in Karpenter's kebab spelling.
TEST(InstanceTypeDecoderTest, ATypeOutsideTheTableUsesOnlyTheAnswer) {
  const std::string item = R"(<item><instanceType>g4ad.xlarge</instanceType>
    <hypervisor>nitro</hypervisor><bareMetal>false</bareMetal>
    <processorInfo><supportedArchitectures><item>x86_64</item></supportedArchitectures><manufacturer>AMD</manufacturer></processorInfo>
    <vCpuInfo><defaultVCpus>4</defaultVCpus></vCpuInfo><memoryInfo><sizeInMiB>16384</sizeInMiB></memoryInfo>
    <networkInfo><maximumNetworkInterfaces>2</maximumNetworkInterfaces><ipv4AddressesPerInterface>4</ipv4AddressesPerInterface>
      <encryptionInTransitSupported>true</encryptionInTransitSupported></networkInfo>
    <gpuInfo><gpus><item><name>Radeon Pro V520</name><manufacturer>AMD</manufacturer><count>1</count>
      <memoryInfo><sizeInMiB>8192</sizeInMiB></memoryInfo></item></gpus></gpuInfo></item>)";
  PriceBook prices;
  prices.SetOnDemandPrice("g4ad.xlarge", 0.37853);
  auto live = LiveInstanceTypes({Page(item)}, OfferedIn("g4ad.xlarge", {"us-west-2b"}), prices, kRegion, {});
  ASSERT_TRUE(live.ok()) << live.status().message();
  const cloud::InstanceType& t = *live->front();
  EXPECT_THAT(Values(t, s::kLabelInstanceGpuName), ElementsAre("radeon-pro-v520"));
  EXPECT_THAT(Values(t, s::kLabelInstanceGpuManufacturer), ElementsAre("amd"));
  EXPECT_THAT(Values(t, s::kLabelInstanceCpuManufacturer), ElementsAre("amd"));
  EXPECT_THAT(Values(t, s::kLabelInstanceEncryptionInTransitSupported), ElementsAre("true"));
  // No networkCards bandwidth and no table entry: unknown, as Karpenter leaves it.
  EXPECT_THAT(Values(t, s::kLabelInstanceNetworkBandwidth), ElementsAre("<does-not-exist>"));
  EXPECT_EQ(t.capacity.Get(api::kResourceAmdGpu), api::Quantity::FromInt(1));
  EXPECT_FALSE(t.capacity.Has(cloud::kResourcePodEni));
  // 2 ENIs × (4 − 1) + 2.
  EXPECT_EQ(t.capacity.Get(api::kResourcePods), api::Quantity::FromInt(8));
  ASSERT_EQ(t.offerings.size(), 2u);
  for (const auto& o : t.offerings) EXPECT_DOUBLE_EQ(o.price, 0.37853);
}

TEST(InstanceTypeDecoderTest, BandwidthFallsBackToTheTableWhenTheAnswerLacksIt) {
  std::string item = kM5Large;
  const std::string card_bandwidth = "<baselineBandwidthInGbps>0.75</baselineBandwidthInGbps>";
  item.erase(item.find(card_bandwidth), card_bandwidth.size());
  EXPECT_EQ(Decode(item).network_bandwidth_mbps, 750);
}

TEST(InstanceTypeDecoderTest, ItemsWithoutANameOrSizeAreRejected) {
  XmlAnswer nameless = Page("<item><vCpuInfo><defaultVCpus>2</defaultVCpus></vCpuInfo></item>");
  auto r = DecodeInstanceTypeItem(FirstItem(nameless));
  ASSERT_FALSE(r.ok());
  EXPECT_THAT(r.status().message(), HasSubstr("without an instanceType"));

  XmlAnswer sizeless = Page("<item><instanceType>x1.large</instanceType></item>");
  auto live = LiveInstanceTypes({sizeless}, {}, PriceBook(), kRegion, {});
  ASSERT_FALSE(live.ok());
  EXPECT_THAT(live.status().message(), HasSubstr("x1.large"));
}

// EC2's numbers went straight into the capacity arithmetic: a sizeInMiB of 2^63-1 overflowed the
// bytes of memory (undefined behaviour), and so could GPU sums, neuron cores and pods. Such an item
// is now refused with the field named; an ordinary one still decodes.
TEST(InstanceTypeDecoderTest, NumbersBeyondAnyInstanceAreRejectedNotOverflowed) {
  struct Case {
    std::string from, to, field;
  };
  const std::vector<Case> cases = {
      {"<sizeInMiB>8192<", "<sizeInMiB>9223372036854775807<", "memoryInfo/sizeInMiB 2147483647 or more is out of range (0 to 1073741824)"},
      {"<sizeInMiB>8192<", "<sizeInMiB>99999999999999999999<", "memoryInfo/sizeInMiB"},
      {"<defaultVCpus>2<", "<defaultVCpus>4294967296<", "vCpuInfo/defaultVCpus"},
      {"<ipv4AddressesPerInterface>10<", "<ipv4AddressesPerInterface>2147483647<",
       "networkInfo/ipv4AddressesPerInterface"},
      {"<ipv4AddressesPerInterface>10<", "<ipv4AddressesPerInterface>-7<",
       "networkInfo/ipv4AddressesPerInterface negative or not a number"},
      {"<baselineBandwidthInGbps>0.75<", "<baselineBandwidthInGbps>1e300<", "bandwidth"},
      {"<sustainedClockSpeedInGhz>3.1<", "<sustainedClockSpeedInGhz>nan<", "sustainedClockSpeedInGhz"},
  };
  for (const Case& c : cases) {
    SCOPED_TRACE(c.to);
    std::string item = kM5Large;
    ASSERT_NE(item.find(c.from), std::string::npos);
    item.replace(item.find(c.from), c.from.size(), c.to);
    auto live = LiveInstanceTypes({Page(item)}, OfferedIn("m5.large", {"us-west-2a"}), PriceBook(), kRegion, {});
    ASSERT_FALSE(live.ok());
    EXPECT_THAT(live.status().message(), HasSubstr("m5.large"));
    EXPECT_THAT(live.status().message(), HasSubstr(c.field));
    EXPECT_THAT(live.status().message(), HasSubstr("out of range"));
  }
  auto ordinary = LiveInstanceTypes({Page(kM5Large)}, {}, PriceBook(), kRegion, {});
  EXPECT_TRUE(ordinary.ok()) << ordinary.status().message();
}

// --- Offerings and prices ---

TEST(LiveInstanceTypesTest, OfferingsFollowTheZonesAndTheUsageClasses) {
  std::string on_demand_only = kM5Large;
  const std::string spot = "<item>spot</item>";
  on_demand_only.erase(on_demand_only.find(spot), spot.size());
  std::vector<InstanceTypeOffering> offerings = OfferedIn("m5.large", {"us-west-2c", "us-west-2a"});
  auto live = LiveInstanceTypes({Page(on_demand_only), Page(kM6gLarge)}, offerings, PriceBook(), kRegion, {});
  ASSERT_TRUE(live.ok()) << live.status().message();
  ASSERT_EQ(live->size(), 2u);
  const cloud::InstanceType& m5 = *(*live)[0];
  EXPECT_EQ(m5.name, "m5.large");
  ASSERT_EQ(m5.offerings.size(), 2u);
  EXPECT_EQ(m5.offerings[0].zone, "us-west-2a");
  EXPECT_EQ(m5.offerings[1].zone, "us-west-2c");
  for (const auto& o : m5.offerings) EXPECT_EQ(o.capacity_type, cloud::kCapacityTypeOnDemand);
  EXPECT_THAT(Values(m5, s::kLabelCapacityType), ElementsAre(cloud::kCapacityTypeOnDemand));
  // Offered nowhere: listed, selects nothing.
  const cloud::InstanceType& m6g = *(*live)[1];
  EXPECT_TRUE(m6g.offerings.empty());
  EXPECT_THAT(Values(m6g, s::kLabelTopologyZone), ElementsAre("<does-not-exist>"));
}

TEST(LiveInstanceTypesTest, SpotPricesArePerZoneOnceTheyArrive) {
  PriceBook prices;
  prices.SetOnDemandPrice("m5.large", 0.1);
  prices.AddSpotPrice({"m5.large", "us-west-2a", 0.035, "2026-08-01T10:00:00.000Z"});
  auto live = LiveInstanceTypes({Page(kM5Large)}, OfferedIn("m5.large", {"us-west-2a", "us-west-2b"}),
                                prices, kRegion, {});
  ASSERT_TRUE(live.ok()) << live.status().message();
  const cloud::InstanceType& t = *live->front();
  ASSERT_EQ(t.offerings.size(), 4u);
  auto find = [&](const char* zone, const char* ct) {
    for (const auto& o : t.offerings)
      if (o.zone == zone && o.capacity_type == ct) return o;
    ADD_FAILURE() << zone << " " << ct;
    return cloud::Offering{};
  };
  EXPECT_DOUBLE_EQ(find("us-west-2a", cloud::kCapacityTypeSpot).price, 0.035);
  EXPECT_TRUE(find("us-west-2a", cloud::kCapacityTypeSpot).available);
  EXPECT_DOUBLE_EQ(find("us-west-2a", cloud::kCapacityTypeOnDemand).price, 0.1);  // not the table's
  // No quote for b: unavailable, as Karpenter's offering resolver marks it.
  EXPECT_FALSE(find("us-west-2b", cloud::kCapacityTypeSpot).available);
  EXPECT_TRUE(find("us-west-2b", cloud::kCapacityTypeOnDemand).available);
  const auto* cheapest = t.CheapestOffering(s::Requirements());
  ASSERT_NE(cheapest, nullptr);
  EXPECT_EQ(cheapest->zone, "us-west-2a");
  EXPECT_EQ(cheapest->capacity_type, cloud::kCapacityTypeSpot);
}

TEST(LiveInstanceTypesTest, UnpricedTypesAreListedWithUnavailableOfferings) {
  const std::string item = R"(<item><instanceType>zz9.large</instanceType>
    <processorInfo><supportedArchitectures><item>x86_64</item></supportedArchitectures></processorInfo>
    <vCpuInfo><defaultVCpus>2</defaultVCpus></vCpuInfo><memoryInfo><sizeInMiB>4096</sizeInMiB></memoryInfo></item>)";
  auto live = LiveInstanceTypes({Page(item)}, OfferedIn("zz9.large", {"us-west-2a"}), PriceBook(), kRegion, {});
  ASSERT_TRUE(live.ok()) << live.status().message();
  ASSERT_EQ(live->size(), 1u);
  const cloud::InstanceType& t = *live->front();
  ASSERT_EQ(t.offerings.size(), 2u);
  for (const auto& o : t.offerings) EXPECT_FALSE(o.available);
  EXPECT_THAT(Values(t, s::kLabelTopologyZone), ElementsAre("<does-not-exist>"));
  EXPECT_EQ(t.CheapestOffering(s::Requirements()), nullptr);
}

TEST(LiveInstanceTypesTest, TypesOfOtherArchitecturesAreLeftOut) {
  const std::string mac = R"(<item><instanceType>mac1.metal</instanceType><bareMetal>true</bareMetal>
    <processorInfo><supportedArchitectures><item>x86_64_mac</item></supportedArchitectures></processorInfo>
    <vCpuInfo><defaultVCpus>12</defaultVCpus></vCpuInfo><memoryInfo><sizeInMiB>32768</sizeInMiB></memoryInfo></item>)";
  auto live = LiveInstanceTypes({Page(mac + kM5Large)}, OfferedIn("m5.large", {"us-west-2a"}), PriceBook(),
                                kRegion, {});
  ASSERT_TRUE(live.ok()) << live.status().message();
  ASSERT_EQ(live->size(), 1u);
  EXPECT_EQ(live->front()->name, "m5.large");
}

TEST(LiveInstanceTypesTest, KarpentersRequestFilters) {
  std::vector<Ec2Filter> f = InstanceTypeFilters();
  ASSERT_EQ(f.size(), 2u);
  EXPECT_EQ(f[0].name, "supported-virtualization-type");
  EXPECT_THAT(f[0].values, ElementsAre("hvm"));
  EXPECT_EQ(f[1].name, "processor-info.supported-architecture");
  EXPECT_THAT(f[1].values, ElementsAre("x86_64", "arm64"));
}

}  // namespace
}  // namespace nodesmith::aws
