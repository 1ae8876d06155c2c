// EC2 capacity and overhead: how Karpenter's AWS provider turns an instance type's hardware facts
// and an EC2NodeClass's kubelet settings into capacity (cpu, memory, ephemeral-storage, pods) and
// the kube-reserved / system-reserved / eviction-threshold overhead (pkg/providers/instancetype/
// types.go). The integer rules are exposed on their own so tests can pin the worked numbers.
#pragma once

#include <cstdint>
#include <optional>
#include <string>
#include <vector>

#include "api/ec2nodeclass.h"
#include "api/resource_list.h"
#include "cloud/instance_type.h"
#include "core/status.h"

namespace nodesmith::cloud {

// Share of memory the hypervisor keeps (Karpenter's VM_MEMORY_OVERHEAD_PERCENT default).
inline constexpr double kDefaultVmMemoryOverheadPercent = 0.075;
// Pods per node when the AMI family does not limit density by ENIs (the Kubernetes default).
inline constexpr int64_t kDefaultMaxPods = 110;

// The AMI families differ in pod density, which pods count for the memory reservation, whether
// podsPerCore applies, the OS label and the default ephemeral volume.
enum class AmiFamily { kAL2, kAL2023, kBottlerocket, kWindows2019, kWindows2022, kCustom };

// AL2023 when neither amiFamily nor an alias names one (Karpenter v1's default alias family).
AmiFamily AmiFamilyOf(const api::EC2NodeClass& node_class);
const char* AmiFamilyName(AmiFamily family);

struct AmiFamilyTraits {
  bool eni_limited_pod_density;      // pods = ENI-limited count unless maxPods is set
  bool eni_limited_memory_overhead;  // kube-reserved memory counts ENI-limited pods, not maxPods
  bool pods_per_core_enabled;
  bool windows;
  const char* ephemeral_device;  // the device whose size is ephemeral-storage capacity
  int64_t default_ephemeral_gib;
};
AmiFamilyTraits TraitsOf(AmiFamily family);

// --- The integer rules (all in the units Karpenter uses) -------------------------------------

// memory capacity in MiB: SizeInMiB (−64 MiB on arm64 for CMA) minus ceil(7.5 %) of that.
int64_t Ec2MemoryCapacityMiB(int64_t size_in_mib, bool arm64,
                             double vm_overhead_percent = kDefaultVmMemoryOverheadPercent);
// max pods the VPC CNI allows: usable ENIs × (IPv4 per ENI − 1) + 2, 0 when no ENI is usable.
int64_t EniLimitedPods(int64_t enis, int64_t ipv4_per_eni, int64_t reserved_enis = 0);
// kube-reserved cpu in millicores: 6 % of the first core, 1 % of the second, 0.5 % of cores 3-4,
// 0.25 % of the rest (2 vCPU → 70m, 4 → 80m, 96 → 310m).
int64_t KubeReservedCpuMillis(int64_t vcpus);
// kube-reserved memory in MiB: 11 × pods + 255.
int64_t KubeReservedMemoryMiB(int64_t pods);

// --- Whole-type computation -----------------------------------------------------------------

// What EC2 reports about a type that matters for capacity.
struct Ec2Hardware {
  int64_t vcpus = 0;
  int64_t memory_mib = 0;
  bool arm64 = false;
  std::optional<int64_t> enis;  // on the default network card; absent = unknown
  std::optional<int64_t> ipv4_per_eni;
  int64_t local_nvme_gb = 0;  // instance store total (decimal GB), 0 if none
};

// The EC2NodeClass settings that change capacity/overhead. Defaults = a bare AL2023 node class.
struct Ec2NodeSettings {
  AmiFamily ami_family = AmiFamily::kAL2023;
  std::optional<api::KubeletConfiguration> kubelet;
  std::vector<api::BlockDeviceMapping> block_device_mappings;
  std::string instance_store_policy;  // "" or "RAID0"
  int64_t reserved_enis = 0;
  double vm_memory_overhead_percent = kDefaultVmMemoryOverheadPercent;

  static Ec2NodeSettings FromNodeClass(const api::EC2NodeClass& node_class);
};

struct Ec2Capacity {
  api::ResourceList capacity;  // cpu, memory, ephemeral-storage, pods
  Overhead overhead;
  int64_t pods = 0;
};

// Capacity and overhead for one type. Fails (InvalidArgument) only when a kubelet or block
// device quantity in `settings` does not parse.
core::Result<Ec2Capacity> ComputeEc2Capacity(const Ec2Hardware& hardware,
                                             const Ec2NodeSettings& settings);

// The ephemeral-storage capacity for `settings` (root volume size, the family's ephemeral device,
// RAID0 instance store, or the family default).
core::Result<api::Quantity> EphemeralStorageCapacity(const Ec2Hardware& hardware,
                                                     const Ec2NodeSettings& settings);

}  // namespace nodesmith::cloud
