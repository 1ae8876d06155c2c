#include "cloud/ec2_instance_type.h"

#include <cctype>
#include <string>

#include "cloud/labels.h"
#include "scheduling/well_known_labels.h"

namespace nodesmith::cloud {
namespace {

using scheduling::Requirement;

// Windows Server builds Karpenter-AWS labels its Windows nodes with.
constexpr const char* kWindows2019Build = "10.0.17763";
constexpr const char* kWindows2022Build = "10.0.20348";

void InOrAbsent(scheduling::Requirements& reqs, const char* key, std::string_view value,
                bool known) {
  if (known) {
    reqs.Add(Requirement::In(key, {std::string(value)}));
  } else {
    reqs.Add(Requirement::DoesNotExist(key));
  }
}

// Karpenter's instanceTypeScheme `(^[a-z]+)(\-[0-9]+tb)?([0-9]+).*\.`: the leading letters are
// the category, the digits after them (past an optional "-<N>tb") the generation.
bool ParseCategoryGeneration(std::string_view name, std::string* category,
                             std::string* generation) {
  size_t dot = name.find('.');
  if (dot == std::string_view::npos) return false;
  size_t i = 0;
  while (i < dot && std::islower(static_cast<unsigned char>(name[i]))) ++i;
  if (i == 0) return false;
  *category = std::string(name.substr(0, i));
  size_t j = i;
  if (j < dot && name[j] == '-') {
    size_t k = j + 1;
    while (k < dot && std::isdigit(static_cast<unsigned char>(name[k]))) ++k;
    if (k > j + 1 && name.substr(k, 2) == "tb") j = k + 2;
  }
  size_t g = j;
  while (g < dot && std::isdigit(static_cast<unsigned char>(name[g]))) ++g;
  if (g == j) return false;
  *generation = std::string(name.substr(j, g - j));
  return true;
}

bool IsWindows(AmiFamily f) { return TraitsOf(f).windows; }

}  // namespace

scheduling::Requirements Ec2Requirements(const Ec2InstanceSpec& spec, std::string_view region,
                                         AmiFamily ami_family) {
  namespace s = scheduling;
  s::Requirements reqs;
  reqs.Add(Requirement::In(s::kLabelArchStable, {std::string(spec.arch)}));
  std::vector<std::string> os;
  if (!IsWindows(ami_family)) {
    os = {"linux"};
  } else if (spec.arch == s::kArchitectureAmd64) {
    os = {"windows"};  // Windows AMIs exist for x86 only
  }
  reqs.Add(Requirement::In(s::kLabelOSStable, os));
  reqs.Add(Requirement::In(s::kLabelTopologyRegion, {std::string(region)}));
  if (ami_family == AmiFamily::kWindows2019) {
    reqs.Add(Requirement::In(s::kLabelWindowsBuild, {kWindows2019Build}));
  } else if (ami_family == AmiFamily::kWindows2022) {
    reqs.Add(Requirement::In(s::kLabelWindowsBuild, {kWindows2022Build}));
  } else {
    reqs.Add(Requirement::DoesNotExist(s::kLabelWindowsBuild));
  }
  // No capacity reservations in the built-in catalog.
  reqs.Add(Requirement::DoesNotExist(s::kLabelInstanceCapacityReservationId));
  reqs.Add(Requirement::DoesNotExist(s::kLabelInstanceCapacityReservationType));

  reqs.Add(Requirement::In(s::kLabelInstanceCpu, {std::to_string(spec.vcpus)}));
  reqs.Add(Requirement::In(s::kLabelInstanceMemory, {std::to_string(spec.memory_mib)}));
  reqs.Add(Requirement::In(s::kLabelInstanceHypervisor, {std::string(spec.hypervisor)}));

  const std::optional<Ec2FamilyFacts> facts = FindEc2FamilyFacts(spec.family());
  InOrAbsent(reqs, s::kLabelInstanceCpuManufacturer, facts ? facts->cpu_manufacturer : "",
             facts.has_value());
  reqs.Add(Requirement::In(s::kLabelInstanceEncryptionInTransitSupported,
                           {facts && facts->encryption_in_transit ? "true" : "false"}));

  std::string category, generation;
  const bool parsed = ParseCategoryGeneration(spec.name, &category, &generation);
  InOrAbsent(reqs, s::kLabelInstanceCategory, category, parsed);
  InOrAbsent(reqs, s::kLabelInstanceGeneration, generation, parsed);
  reqs.Add(Requirement::In(s::kLabelInstanceFamily, {std::string(spec.family())}));
  reqs.Add(Requirement::In(s::kLabelInstanceSize, {std::string(spec.size())}));

  InOrAbsent(reqs, s::kLabelInstanceLocalNvme, std::to_string(spec.local_nvme_gb),
             spec.local_nvme_gb > 0);
  InOrAbsent(reqs, s::kLabelInstanceNetworkBandwidth, std::to_string(spec.network_bandwidth_mbps),
             spec.network_bandwidth_mbps > 0);
  // Not in the built-in table: EBS-optimised bandwidth and sustained clock speed.
  reqs.Add(Requirement::DoesNotExist(s::kLabelInstanceEbsBandwidth));
  reqs.Add(Requirement::DoesNotExist(s::kLabelInstanceCpuSustainedClockSpeedMhz));

  const bool gpu = !spec.gpu_name.empty() && spec.gpu_count > 0;
  InOrAbsent(reqs, s::kLabelInstanceGpuName, spec.gpu_name, gpu);
  InOrAbsent(reqs, s::kLabelInstanceGpuManufacturer, spec.gpu_manufacturer, gpu);
  InOrAbsent(reqs, s::kLabelInstanceGpuCount, std::to_string(spec.gpu_count), gpu);
  InOrAbsent(reqs, s::kLabelInstanceGpuMemory, std::to_string(spec.gpu_memory_mib), gpu);

  const bool accelerator = !spec.accelerator_name.empty() && spec.accelerator_count > 0;
  InOrAbsent(reqs, s::kLabelInstanceAcceleratorName, spec.accelerator_name, accelerator);
  InOrAbsent(reqs, s::kLabelInstanceAcceleratorManufacturer, spec.accelerator_manufacturer,
             accelerator);
  InOrAbsent(reqs, s::kLabelInstanceAcceleratorCount, std::to_string(spec.accelerator_count),
             accelerator);
  return reqs;
}

api::ResourceList Ec2ExtendedResources(const Ec2InstanceSpec& spec, AmiFamily ami_family) {
  api::ResourceList out;
  auto set = [&out](const char* name, int64_t n) {
    if (n > 0) out.Set(name, api::Quantity::FromInt(n));
  };
  if (spec.gpu_manufacturer == "nvidia") set(api::kResourceNvidiaGpu, spec.gpu_count);
  if (spec.gpu_manufacturer == "amd") set(api::kResourceAmdGpu, spec.gpu_count);
  if (spec.gpu_manufacturer == "habana") set(kResourceHabanaGaudi, spec.gpu_count);
  if (spec.accelerator_manufacturer == "aws") {
    set(api::kResourceNeuron, spec.accelerator_count);
    set(kResourceNeuronCore, spec.neuron_cores);
  }
  set(api::kResourceEfa, spec.efa_interfaces);
  set(kResourcePodEni, spec.branch_enis);
  if (TraitsOf(ami_family).windows) {
    set(kResourcePrivateIpv4Address, spec.ipv4_per_eni - 1);
  }
  return out;
}

Ec2Hardware HardwareOf(const Ec2InstanceSpec& spec) {
  Ec2Hardware hw;
  hw.vcpus = spec.vcpus;
  hw.memory_mib = spec.memory_mib;
  hw.arm64 = spec.arch == scheduling::kArchitectureArm64;
  if (spec.enis > 0) {
    hw.enis = spec.enis;
    hw.ipv4_per_eni = spec.ipv4_per_eni;
  }
  hw.local_nvme_gb = spec.local_nvme_gb;
  return hw;
}

core::Result<InstanceTypePtr> NewEc2InstanceType(const Ec2InstanceSpec& spec,
                                                 std::string_view region,
                                                 const Ec2NodeSettings& settings,
                                                 std::vector<Offering> offerings) {
  auto computed = ComputeEc2Capacity(HardwareOf(spec), settings);
  if (!computed.ok()) return computed.status();
  api::ResourceList capacity = computed->capacity;
  capacity.Add(Ec2ExtendedResources(spec, settings.ami_family));
  return NewInstanceType(std::string(spec.name), Ec2Requirements(spec, region, settings.ami_family),
                         std::move(capacity), std::move(computed->overhead), std::move(offerings));
}

}  // namespace nodesmith::cloud
