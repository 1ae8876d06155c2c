// Karpenter-AWS's capacity and overhead rules (pkg/providers/instancetype/types.go), pinned to
// the worked numbers of shared/data/aws/README.md.
#include "cloud/ec2_overhead.h"

#include <gtest/gtest.h>

#include <fstream>
#include <map>
#include <nlohmann/json.hpp>

namespace nodesmith::cloud {
namespace {

using api::Quantity;

Quantity Q(const char* s) { return Quantity::MustParse(s); }

Ec2Hardware M5Large() {
  Ec2Hardware hw;
  hw.vcpus = 2;
  hw.memory_mib = 8192;
  hw.enis = 3;
  hw.ipv4_per_eni = 10;
  return hw;
}

TEST(Ec2MemoryCapacity, SubtractsSevenAndAHalfPercentRoundedUp) {
  // 8192 × 0.075 = 614.4 → 615 MiB kept by the hypervisor.
  EXPECT_EQ(Ec2MemoryCapacityMiB(8192, /*arm64=*/false), 7577);
  EXPECT_EQ(Ec2MemoryCapacityMiB(16384, false), 16384 - 1229);
}

TEST(Ec2MemoryCapacity, GravitonLoses64MiBFirst) {
  // (4096 − 64) = 4032; 4032 × 0.075 = 302.4 → 303.
  EXPECT_EQ(Ec2MemoryCapacityMiB(4096, /*arm64=*/true), 3729);
}

TEST(Ec2MemoryCapacity, OverheadPercentIsConfigurable) {
  EXPECT_EQ(Ec2MemoryCapacityMiB(8192, false, 0.0), 8192);
  EXPECT_EQ(Ec2MemoryCapacityMiB(1000, false, 0.1), 900);
}

TEST(KubeReservedCpu, FollowsTheTieredPercentages) {
  EXPECT_EQ(KubeReservedCpuMillis(1), 60);
  EXPECT_EQ(KubeReservedCpuMillis(2), 70);
  EXPECT_EQ(KubeReservedCpuMillis(4), 80);
  EXPECT_EQ(KubeReservedCpuMillis(8), 90);    // + 4000m × 0.25 %
  EXPECT_EQ(KubeReservedCpuMillis(96), 310);  // + 92000m × 0.25 %
}

TEST(KubeReservedMemory, IsElevenMiBPerPodPlus255) {
  EXPECT_EQ(KubeReservedMemoryMiB(29), 574);
  EXPECT_EQ(KubeReservedMemoryMiB(110), 1465);
}

TEST(EniLimitedPods, ReservedEnisReduceDensityAndNoneLeftMeansZero) {
  EXPECT_EQ(EniLimitedPods(3, 10), 29);
  EXPECT_EQ(EniLimitedPods(3, 10, 1), 20);
  EXPECT_EQ(EniLimitedPods(3, 10, 3), 0);
  EXPECT_EQ(EniLimitedPods(3, 10, 5), 0);
}

// README: "Computed from describe_instance_types.json: c6g.large 29, ..." — one case per type,
// ENIs and IPv4 per ENI read from the shared DescribeInstanceTypes fixture.
struct PodsCase {
  const char* name;
  int64_t pods;
};

class DescribedTypePods : public ::testing::TestWithParam<PodsCase> {};

TEST_P(DescribedTypePods, MatchesReadme) {
  static const nlohmann::json kDescribed = [] {
    std::ifstream in(std::string(NODESMITH_SHARED_DATA) + "/aws/describe_instance_types.json");
    return nlohmann::json::parse(in);
  }();
  const PodsCase& c = GetParam();
  const nlohmann::json* info = nullptr;
  for (const auto& t : kDescribed["InstanceTypes"]) {
    if (t["InstanceType"] == c.name) info = &t;
  }
  ASSERT_NE(info, nullptr) << c.name << " not in describe_instance_types.json";
  const auto& net = (*info)["NetworkInfo"];
  const int64_t card = net["DefaultNetworkCardIndex"].get<int64_t>();
  int64_t enis = 0;
  for (const auto& nc : net["NetworkCards"]) {
    if (nc["NetworkCardIndex"].get<int64_t>() == card) enis = nc["MaximumNetworkInterfaces"];
  }
  EXPECT_EQ(EniLimitedPods(enis, net["Ipv4AddressesPerInterface"].get<int64_t>()), c.pods);
}

std::string PodsCaseName(const ::testing::TestParamInfo<PodsCase>& info) {
  std::string s = info.param.name;
  for (char& ch : s) {
    if (!std::isalnum(static_cast<unsigned char>(ch))) ch = '_';
  }
  return s;
}

INSTANTIATE_TEST_SUITE_P(
    Readme, DescribedTypePods,
    ::testing::Values(
        PodsCase{"c6g.large", 29}, PodsCase{"m5.large", 29}, PodsCase{"m7i-flex.large", 29},
        PodsCase{"t3.large", 35}, PodsCase{"t4g.small", 11}, PodsCase{"t4g.medium", 17},
        PodsCase{"m5.xlarge", 58}, PodsCase{"t4g.xlarge", 58}, PodsCase{"inf2.xlarge", 58},
        PodsCase{"trn1.2xlarge", 58}, PodsCase{"g4dn.8xlarge", 58}, PodsCase{"p5.48xlarge", 100},
        PodsCase{"g4ad.16xlarge", 234}, PodsCase{"m6idn.32xlarge", 394},
        PodsCase{"g5.12xlarge", 737}, PodsCase{"inf2.24xlarge", 737}, PodsCase{"m5.metal", 737}),
    PodsCaseName);

TEST(ComputeEc2Capacity, M5LargeWithDefaultAl2023NodeClass) {
  auto r = ComputeEc2Capacity(M5Large(), Ec2NodeSettings{});
  ASSERT_TRUE(r.ok()) << r.status().message();
  EXPECT_EQ(r->pods, 29);
  EXPECT_EQ(r->capacity.Get("cpu"), Q("2"));
  EXPECT_EQ(r->capacity.Get("memory"), Q("7577Mi"));
  EXPECT_EQ(r->capacity.Get("pods"), Q("29"));
  EXPECT_EQ(r->capacity.Get("ephemeral-storage"), Q("20Gi"));
  EXPECT_EQ(r->overhead.kube_reserved.Get("cpu"), Q("70m"));
  EXPECT_EQ(r->overhead.kube_reserved.Get("memory"), Q("574Mi"));
  EXPECT_EQ(r->overhead.kube_reserved.Get("ephemeral-storage"), Q("1Gi"));
  EXPECT_TRUE(r->overhead.system_reserved.empty());
  EXPECT_EQ(r->overhead.eviction_threshold.Get("memory"), Q("100Mi"));
  EXPECT_EQ(r->overhead.eviction_threshold.Get("ephemeral-storage"), Q("2Gi"));  // 10 % of 20Gi
  api::ResourceList allocatable = r->capacity;
  allocatable.Subtract(r->overhead.Total());
  EXPECT_EQ(allocatable.Get("memory"), Q("6903Mi"));
  EXPECT_EQ(allocatable.Get("cpu"), Q("1930m"));
}

TEST(ComputeEc2Capacity, MaxPodsOverridesDensityButAl2023MemoryStillCountsEniPods) {
  Ec2NodeSettings s;
  s.kubelet = api::KubeletConfiguration{};
  s.kubelet->max_pods = 110;
  auto r = ComputeEc2Capacity(M5Large(), s);
  ASSERT_TRUE(r.ok());
  EXPECT_EQ(r->capacity.Get("pods"), Q("110"));
  EXPECT_EQ(r->overhead.kube_reserved.Get("memory"), Q("574Mi"));
}

TEST(ComputeEc2Capacity, BottlerocketMemoryReservationCountsMaxPods) {
  Ec2NodeSettings s;
  s.ami_family = AmiFamily::kBottlerocket;
  s.kubelet = api::KubeletConfiguration{};
  s.kubelet->max_pods = 110;
  auto r = ComputeEc2Capacity(M5Large(), s);
  ASSERT_TRUE(r.ok());
  EXPECT_EQ(r->overhead.kube_reserved.Get("memory"), Q("1465Mi"));
}

TEST(ComputeEc2Capacity, PodsPerCoreCapsDensityWhereTheFamilySupportsIt) {
  Ec2NodeSettings s;
  s.kubelet = api::KubeletConfiguration{};
  s.kubelet->pods_per_core = 4;
  auto al2023 = ComputeEc2Capacity(M5Large(), s);
  ASSERT_TRUE(al2023.ok());
  EXPECT_EQ(al2023->pods, 8);
  s.ami_family = AmiFamily::kBottlerocket;
  auto br = ComputeEc2Capacity(M5Large(), s);
  ASSERT_TRUE(br.ok());
  EXPECT_EQ(br->pods, 29);
}

TEST(ComputeEc2Capacity, UnknownEnisOrWindowsGive110Pods) {
  Ec2Hardware hw = M5Large();
  hw.enis.reset();
  hw.ipv4_per_eni.reset();
  auto unknown = ComputeEc2Capacity(hw, Ec2NodeSettings{});
  ASSERT_TRUE(unknown.ok());
  EXPECT_EQ(unknown->pods, 110);
  Ec2NodeSettings windows;
  windows.ami_family = AmiFamily::kWindows2022;
  auto w = ComputeEc2Capacity(M5Large(), windows);
  ASSERT_TRUE(w.ok());
  EXPECT_EQ(w->pods, 110);
  EXPECT_EQ(w->capacity.Get("ephemeral-storage"), Q("50Gi"));
}

TEST(ComputeEc2Capacity, KubeletReservationsAndEvictionOverrides) {
  Ec2NodeSettings s;
  s.kubelet = api::KubeletConfiguration{};
  s.kubelet->kube_reserved = {{"cpu", "200m"}};
  s.kubelet->system_reserved = {{"memory", "100Mi"}, {"cpu", "50m"}};
  s.kubelet->eviction_hard = {{"memory.available", "5%"}, {"nodefs.available", "15%"}};
  s.kubelet->eviction_soft = {{"memory.available", "50%"}};  // ignored: soft only warns
  auto r = ComputeEc2Capacity(M5Large(), s);
  ASSERT_TRUE(r.ok()) << r.status().message();
  EXPECT_EQ(r->overhead.kube_reserved.Get("cpu"), Q("200m"));
  EXPECT_EQ(r->overhead.kube_reserved.Get("memory"), Q("574Mi"));  // untouched keys stay
  EXPECT_EQ(r->overhead.system_reserved.Get("memory"), Q("100Mi"));
  EXPECT_EQ(r->overhead.system_reserved.Get("cpu"), Q("50m"));
  // ceil(7577Mi × 5 %) bytes and ceil(20Gi × 15 %) bytes.
  EXPECT_EQ(r->overhead.eviction_threshold.Get("memory"), Quantity::FromInt(397253018));
  EXPECT_EQ(r->overhead.eviction_threshold.Get("ephemeral-storage"), Quantity::FromInt(3221225472));
}

TEST(ComputeEc2Capacity, EvictionHardAbsoluteAndHundredPercentDisables) {
  Ec2NodeSettings s;
  s.kubelet = api::KubeletConfiguration{};
  s.kubelet->eviction_hard = {{"memory.available", "500Mi"}, {"nodefs.available", "100%"}};
  auto r = ComputeEc2Capacity(M5Large(), s);
  ASSERT_TRUE(r.ok());
  EXPECT_EQ(r->overhead.eviction_threshold.Get("memory"), Q("500Mi"));
  EXPECT_EQ(r->overhead.eviction_threshold.Get("ephemeral-storage"), Q("0"));
}

TEST(ComputeEc2Capacity, RootVolumeSizeIsEphemeralStorage) {
  Ec2NodeSettings s;
  api::BlockDeviceMapping root;
  root.device_name = "/dev/xvda";
  root.root_volume = true;
  root.ebs.volume_size = "100Gi";
  s.block_device_mappings = {root};
  auto r = ComputeEc2Capacity(M5Large(), s);
  ASSERT_TRUE(r.ok());
  EXPECT_EQ(r->capacity.Get("ephemeral-storage"), Q("100Gi"));
  EXPECT_EQ(r->overhead.eviction_threshold.Get("ephemeral-storage"), Q("10Gi"));
}

TEST(EphemeralStorageCapacity, FamilyDeviceThenDefault) {
  Ec2NodeSettings s;
  s.ami_family = AmiFamily::kBottlerocket;
  api::BlockDeviceMapping root{"/dev/xvda", {}, false};
  root.ebs.volume_size = "4Gi";
  api::BlockDeviceMapping data{"/dev/xvdb", {}, false};
  data.ebs.volume_size = "80Gi";
  s.block_device_mappings = {root, data};
  auto br = EphemeralStorageCapacity(M5Large(), s);
  ASSERT_TRUE(br.ok());
  EXPECT_EQ(*br, Q("80Gi"));
  s.block_device_mappings = {root};
  auto fallback = EphemeralStorageCapacity(M5Large(), s);
  ASSERT_TRUE(fallback.ok());
  EXPECT_EQ(*fallback, Q("20Gi"));
}

TEST(EphemeralStorageCapacity, Raid0UsesInstanceStoreInDecimalGigabytes) {
  Ec2Hardware hw = M5Large();
  hw.local_nvme_gb = 900;
  Ec2NodeSettings s;
  s.instance_store_policy = "RAID0";
  auto r = EphemeralStorageCapacity(hw, s);
  ASSERT_TRUE(r.ok());
  EXPECT_EQ(*r, Q("900G"));
}

TEST(ComputeEc2Capacity, UnparseableQuantityIsInvalidAndNamesTheField) {
  Ec2NodeSettings s;
  s.kubelet = api::KubeletConfiguration{};
  s.kubelet->system_reserved = {{"memory", "lots"}};
  auto r = ComputeEc2Capacity(M5Large(), s);
  ASSERT_FALSE(r.ok());
  EXPECT_EQ(r.status().code(), core::StatusCode::kInvalidArgument);
  EXPECT_NE(r.status().message().find("kubelet.systemReserved.memory"), std::string::npos);
}

TEST(AmiFamilyOf, ReadsAmiFamilyOrAliasAndDefaultsToAl2023) {
  api::EC2NodeClass nc;
  EXPECT_EQ(AmiFamilyOf(nc), AmiFamily::kAL2023);
  nc.ami_selector_terms.push_back(api::SelectorTerm{});
  nc.ami_selector_terms.back().alias = "bottlerocket@latest";
  EXPECT_EQ(AmiFamilyOf(nc), AmiFamily::kBottlerocket);
  nc.ami_family = "AL2";
  EXPECT_EQ(AmiFamilyOf(nc), AmiFamily::kAL2);
}

}  // namespace
}  // namespace nodesmith::cloud
