// The labels, extended resources and capacity Karpenter-AWS gives an EC2 instance type.
#include "cloud/ec2_instance_type.h"

#include <gtest/gtest.h>

#include "cloud/labels.h"
#include "scheduling/well_known_labels.h"

namespace nodesmith::cloud {
namespace {

namespace s = scheduling;
using api::Quantity;

InstanceTypePtr Build(const char* name, Ec2NodeSettings settings = {}) {
  const Ec2InstanceSpec* spec = FindAwsInstanceSpec(name);
  EXPECT_NE(spec, nullptr) << name;
  if (spec == nullptr) return nullptr;
  std::vector<Offering> offerings = {{"us-west-2a", kCapacityTypeSpot, 0.03, true, {}},
                                     {"us-west-2b", kCapacityTypeOnDemand, 0.09, true, {}},
                                     {"us-west-2c", kCapacityTypeSpot, 0.02, false, {}}};
  auto it = NewEc2InstanceType(*spec, "us-west-2", settings, offerings);
  EXPECT_TRUE(it.ok());
  return it.ok() ? *it : nullptr;
}

// The single value of `key`, or "<absent>" for DoesNotExist, "<unconstrained>" when not defined.
std::string Label(const InstanceType& it, const char* key) {
  const s::Requirement* r = it.requirements.Find(key);
  if (r == nullptr) return "<unconstrained>";
  if (r->op() == s::Operator::kDoesNotExist) return "<absent>";
  EXPECT_EQ(r->Values().size(), 1u) << r->String();
  return r->Any();
}

TEST(Ec2InstanceType, M5LargeLabels) {
  auto it = Build("m5.large");
  ASSERT_NE(it, nullptr);
  EXPECT_EQ(it->name, "m5.large");
  EXPECT_EQ(Label(*it, s::kLabelInstanceTypeStable), "m5.large");
  EXPECT_EQ(Label(*it, s::kLabelArchStable), "amd64");
  EXPECT_EQ(Label(*it, s::kLabelOSStable), "linux");
  EXPECT_EQ(Label(*it, s::kLabelTopologyRegion), "us-west-2");
  EXPECT_EQ(Label(*it, s::kLabelWindowsBuild), "<absent>");
  EXPECT_EQ(Label(*it, s::kLabelInstanceCategory), "m");
  EXPECT_EQ(Label(*it, s::kLabelInstanceFamily), "m5");
  EXPECT_EQ(Label(*it, s::kLabelInstanceGeneration), "5");
  EXPECT_EQ(Label(*it, s::kLabelInstanceSize), "large");
  EXPECT_EQ(Label(*it, s::kLabelInstanceCpu), "2");
  EXPECT_EQ(Label(*it, s::kLabelInstanceCpuManufacturer), "intel");
  EXPECT_EQ(Label(*it, s::kLabelInstanceMemory), "8192");
  EXPECT_EQ(Label(*it, s::kLabelInstanceHypervisor), "nitro");
  EXPECT_EQ(Label(*it, s::kLabelInstanceEncryptionInTransitSupported), "false");
  EXPECT_EQ(Label(*it, s::kLabelInstanceNetworkBandwidth), "750");
  EXPECT_EQ(Label(*it, s::kLabelInstanceGpuName), "<absent>");
  EXPECT_EQ(Label(*it, s::kLabelInstanceGpuCount), "<absent>");
  EXPECT_EQ(Label(*it, s::kLabelInstanceAcceleratorName), "<absent>");
  EXPECT_EQ(Label(*it, s::kLabelInstanceLocalNvme), "<absent>");
}

TEST(Ec2InstanceType, ZoneAndCapacityTypeComeFromAvailableOfferings) {
  auto it = Build("m5.large");
  ASSERT_NE(it, nullptr);
  const s::Requirement zone = it->requirements.Get(s::kLabelTopologyZone);
  EXPECT_EQ(zone.Values(), (std::vector<std::string>{"us-west-2a", "us-west-2b"}));
  const s::Requirement ct = it->requirements.Get(s::kLabelCapacityType);
  EXPECT_EQ(ct.Values(), (std::vector<std::string>{"on-demand", "spot"}));
  ASSERT_EQ(it->offerings.size(), 3u);
  EXPECT_EQ(it->offerings[0].requirements.Get(s::kLabelTopologyZone).Any(), "us-west-2a");
  EXPECT_EQ(it->offerings[0].requirements.Get(s::kLabelCapacityType).Any(), "spot");
}

TEST(Ec2InstanceType, M5LargeCapacityAndAllocatable) {
  auto it = Build("m5.large");
  ASSERT_NE(it, nullptr);
  EXPECT_EQ(it->capacity.Get("pods"), Quantity::MustParse("29"));
  EXPECT_EQ(it->capacity.Get("memory"), Quantity::MustParse("7577Mi"));
  EXPECT_EQ(it->capacity.Get(kResourcePodEni), Quantity::MustParse("9"));
  EXPECT_EQ(it->allocatable.Get("memory"), Quantity::MustParse("6903Mi"));
  EXPECT_EQ(it->allocatable.Get("cpu"), Quantity::MustParse("1930m"));
  EXPECT_FALSE(it->capacity.Has(api::kResourceNvidiaGpu));
}

TEST(Ec2InstanceType, GravitonIsArm64AndAws) {
  auto it = Build("c6g.large");
  ASSERT_NE(it, nullptr);
  EXPECT_EQ(Label(*it, s::kLabelArchStable), "arm64");
  EXPECT_EQ(Label(*it, s::kLabelInstanceCpuManufacturer), "aws");
  EXPECT_EQ(it->capacity.Get("memory"), Quantity::MustParse("3729Mi"));
  EXPECT_EQ(it->capacity.Get("pods"), Quantity::MustParse("29"));
}

TEST(Ec2InstanceType, NvidiaGpuLabelsAndResources) {
  auto it = Build("g5.12xlarge");
  ASSERT_NE(it, nullptr);
  EXPECT_EQ(Label(*it, s::kLabelInstanceGpuName), "a10g");
  EXPECT_EQ(Label(*it, s::kLabelInstanceGpuManufacturer), "nvidia");
  EXPECT_EQ(Label(*it, s::kLabelInstanceGpuCount), "4");
  EXPECT_EQ(Label(*it, s::kLabelInstanceGpuMemory), "22888");
  EXPECT_EQ(Label(*it, s::kLabelInstanceCpuManufacturer), "amd");
  EXPECT_EQ(Label(*it, s::kLabelInstanceLocalNvme), "3800");
  EXPECT_EQ(it->capacity.Get(api::kResourceNvidiaGpu), Quantity::MustParse("4"));
  EXPECT_EQ(it->capacity.Get(api::kResourceEfa), Quantity::MustParse("1"));
  EXPECT_EQ(it->capacity.Get("pods"), Quantity::MustParse("737"));
}

TEST(Ec2InstanceType, P5UsesOnlyTheDefaultNetworkCardForPods) {
  auto it = Build("p5.48xlarge");
  ASSERT_NE(it, nullptr);
  EXPECT_EQ(it->capacity.Get("pods"), Quantity::MustParse("100"));
  EXPECT_EQ(it->capacity.Get(api::kResourceNvidiaGpu), Quantity::MustParse("8"));
  EXPECT_EQ(it->capacity.Get(api::kResourceEfa), Quantity::MustParse("32"));
  EXPECT_EQ(Label(*it, s::kLabelInstanceGpuName), "h100");
}

TEST(Ec2InstanceType, NeuronAcceleratorLabelsAndResources) {
  auto it = Build("inf2.xlarge");
  ASSERT_NE(it, nullptr);
  EXPECT_EQ(Label(*it, s::kLabelInstanceCategory), "inf");
  EXPECT_EQ(Label(*it, s::kLabelInstanceGeneration), "2");
  EXPECT_EQ(Label(*it, s::kLabelInstanceAcceleratorName), "inferentia2");
  EXPECT_EQ(Label(*it, s::kLabelInstanceAcceleratorManufacturer), "aws");
  EXPECT_EQ(Label(*it, s::kLabelInstanceAcceleratorCount), "1");
  EXPECT_EQ(Label(*it, s::kLabelInstanceGpuName), "<absent>");
  EXPECT_EQ(it->capacity.Get(api::kResourceNeuron), Quantity::MustParse("1"));
  EXPECT_EQ(it->capacity.Get(kResourceNeuronCore), Quantity::MustParse("2"));
}

TEST(Ec2InstanceType, BareMetalHasAnEmptyHypervisor) {
  auto it = Build("m5.metal");
  ASSERT_NE(it, nullptr);
  EXPECT_EQ(Label(*it, s::kLabelInstanceHypervisor), "");
  EXPECT_EQ(Label(*it, s::kLabelInstanceSize), "metal");
}

TEST(Ec2InstanceType, WindowsFamilyLabelsAmd64OnlyAndAddsPrivateIpv4) {
  Ec2NodeSettings windows;
  windows.ami_family = AmiFamily::kWindows2022;
  auto amd = Build("m5.large", windows);
  ASSERT_NE(amd, nullptr);
  EXPECT_EQ(Label(*amd, s::kLabelOSStable), "windows");
  EXPECT_EQ(Label(*amd, s::kLabelWindowsBuild), "10.0.20348");
  EXPECT_EQ(amd->capacity.Get(kResourcePrivateIpv4Address), Quantity::MustParse("9"));
  auto arm = Build("c6g.large", windows);
  ASSERT_NE(arm, nullptr);
  EXPECT_EQ(arm->requirements.Get(s::kLabelOSStable).Len(), 0);
}

TEST(Ec2InstanceType, KubeletSettingsFlowIntoCapacity) {
  Ec2NodeSettings settings;
  settings.kubelet = api::KubeletConfiguration{};
  settings.kubelet->max_pods = 20;
  auto it = Build("m5.large", settings);
  ASSERT_NE(it, nullptr);
  EXPECT_EQ(it->capacity.Get("pods"), Quantity::MustParse("20"));
}

}  // namespace
}  // namespace nodesmith::cloud
