#include "cloud/ec2_overhead.h"

#include <algorithm>
#include <cctype>
#include <cmath>
#include <cstdlib>
#include <map>
#include <string_view>

#include "api/eviction_threshold.h"

namespace nodesmith::cloud {
namespace {

constexpr int64_t kMiB = 1024 * 1024;
constexpr int64_t kGiB = 1024 * kMiB;

// Kubelet's eviction signals that map to node resources.
constexpr const char* kMemoryAvailable = "memory.available";
constexpr const char* kNodeFsAvailable = "nodefs.available";

api::Quantity MiB(int64_t mib) {
  return api::Quantity::FromInt(mib * kMiB, api::QuantityFormat::kBinarySI);
}

core::Result<api::Quantity> ParseField(const std::string& what, const std::string& key,
                                       const std::string& text) {
  auto q = api::Quantity::Parse(text);
  if (!q.ok()) return q.status().WithPrefix(what + "." + key);
  return q;
}

core::Result<api::ResourceList> ParseResourceMap(const std::string& what,
                                                 const std::map<std::string, std::string>& m) {
  api::ResourceList out;
  for (const auto& [key, text] : m) {
    auto q = ParseField(what, key, text);
    if (!q.ok()) return q.status();
    out.Set(key, *q);
  }
  return out;
}

// An eviction signal is either an absolute quantity or a percentage of capacity; 100 % disables
// the threshold (kubelet's rule), which Karpenter models as 0.
core::Result<api::Quantity> EvictionSignal(const std::string& key, const std::string& text,
                                           const api::Quantity& capacity) {
  core::Result<api::EvictionThreshold> t = api::ParseEvictionThreshold(text);
  if (!t.ok()) return t.status().WithPrefix("kubelet.evictionHard." + key);
  if (!t->percent) return t->quantity;
  const double p = *t->percent == 100 ? 0 : *t->percent;
  return api::Quantity::FromInt(static_cast<int64_t>(std::ceil(capacity.AsDouble() / 100 * p)),
                                api::QuantityFormat::kBinarySI);
}

}  // namespace

AmiFamily AmiFamilyOf(const api::EC2NodeClass& node_class) {
  std::string family = node_class.ami_family;
  if (family.empty()) {
    for (const auto& term : node_class.ami_selector_terms) {
      if (term.alias.empty()) continue;
      family = term.alias.substr(0, term.alias.find('@'));
      break;
    }
  }
  std::string lower;
  for (char c : family) lower += static_cast<char>(std::tolower(static_cast<unsigned char>(c)));
  if (lower == "al2") return AmiFamily::kAL2;
  if (lower == "bottlerocket") return AmiFamily::kBottlerocket;
  if (lower == "windows2019") return AmiFamily::kWindows2019;
  if (lower == "windows2022") return AmiFamily::kWindows2022;
  if (lower == "custom") return AmiFamily::kCustom;
  // AL2023, an empty family with AMI terms by id/tags, or an unknown name: v1's default.
  if (lower.empty() || lower == "al2023") return AmiFamily::kAL2023;
  return node_class.ami_selector_terms.empty() ? AmiFamily::kAL2023 : AmiFamily::kCustom;
}

const char* AmiFamilyName(AmiFamily family) {
  switch (family) {
    case AmiFamily::kAL2:
      return "AL2";
    case AmiFamily::kAL2023:
      return "AL2023";
    case AmiFamily::kBottlerocket:
      return "Bottlerocket";
    case AmiFamily::kWindows2019:
      return "Windows2019";
    case AmiFamily::kWindows2022:
      return "Windows2022";
    case AmiFamily::kCustom:
      return "Custom";
  }
  return "AL2023";
}

AmiFamilyTraits TraitsOf(AmiFamily family) {
  switch (family) {
    case AmiFamily::kBottlerocket:
      // Bottlerocket's kubelet runs from the data volume /dev/xvdb (root /dev/xvda is 4Gi).
      return {true, false, false, false, "/dev/xvdb", 20};
    case AmiFamily::kWindows2019:
    case AmiFamily::kWindows2022:
      return {false, false, true, true, "/dev/sda1", 50};
    case AmiFamily::kAL2:
    case AmiFamily::kAL2023:
    case AmiFamily::kCustom:
      break;
  }
  return {true, true, true, false, "/dev/xvda", 20};
}

int64_t Ec2MemoryCapacityMiB(int64_t size_in_mib, bool arm64, double vm_overhead_percent) {
  if (arm64) size_in_mib -= 64;  // Graviton keeps 64 MiB of CMA memory the OS cannot use
  // Same floating-point expression as Karpenter so rounding agrees at every size.
  double bytes = static_cast<double>(size_in_mib * kMiB);
  auto overhead = static_cast<int64_t>(std::ceil(bytes * vm_overhead_percent / 1024 / 1024));
  return size_in_mib - overhead;
}

int64_t EniLimitedPods(int64_t enis, int64_t ipv4_per_eni, int64_t reserved_enis) {
  int64_t usable = std::max<int64_t>(enis - reserved_enis, 0);
  if (usable == 0) return 0;
  return usable * (ipv4_per_eni - 1) + 2;
}

int64_t KubeReservedCpuMillis(int64_t vcpus) {
  struct Range {
    int64_t start, end;
    double percentage;
  };
  static constexpr Range kRanges[] = {
      {0, 1000, 0.06}, {1000, 2000, 0.01}, {2000, 4000, 0.005}, {4000, int64_t{1} << 31, 0.0025}};
  int64_t millis = vcpus * 1000;
  int64_t reserved = 0;
  for (const Range& r : kRanges) {
    if (millis < r.start) continue;
    double span = static_cast<double>(millis < r.end ? millis - r.start : r.end - r.start);
    reserved += static_cast<int64_t>(span * r.percentage);
  }
  return reserved;
}

int64_t KubeReservedMemoryMiB(int64_t pods) { return 11 * pods + 255; }

Ec2NodeSettings Ec2NodeSettings::FromNodeClass(const api::EC2NodeClass& node_class) {
  Ec2NodeSettings s;
  s.ami_family = AmiFamilyOf(node_class);
  s.kubelet = node_class.kubelet;
  s.block_device_mappings = node_class.block_device_mappings;
  s.instance_store_policy = node_class.instance_store_policy;
  return s;
}

core::Result<api::Quantity> EphemeralStorageCapacity(const Ec2Hardware& hardware,
                                                     const Ec2NodeSettings& settings) {
  if (settings.instance_store_policy == "RAID0" && hardware.local_nvme_gb > 0) {
    return api::Quantity::FromInt(hardware.local_nvme_gb * 1000 * 1000 * 1000);
  }
  const auto& bdms = settings.block_device_mappings;
  auto size_of = [](const api::BlockDeviceMapping& bdm) -> core::Result<api::Quantity> {
    return ParseField("blockDeviceMappings[" + bdm.device_name + "].ebs", "volumeSize",
                      *bdm.ebs.volume_size);
  };
  if (!bdms.empty()) {
    for (const auto& bdm : bdms) {
      if (bdm.root_volume && bdm.ebs.volume_size) return size_of(bdm);
    }
    AmiFamilyTraits traits = TraitsOf(settings.ami_family);
    if (settings.ami_family == AmiFamily::kCustom) {
      // A custom AMI's layout is unknown: Karpenter takes the last mapping.
      if (bdms.back().ebs.volume_size) return size_of(bdms.back());
    } else {
      for (const auto& bdm : bdms) {
        if (bdm.device_name == traits.ephemeral_device && bdm.ebs.volume_size) return size_of(bdm);
      }
    }
  }
  return api::Quantity::FromInt(TraitsOf(settings.ami_family).default_ephemeral_gib * kGiB,
                                api::QuantityFormat::kBinarySI);
}

core::Result<Ec2Capacity> ComputeEc2Capacity(const Ec2Hardware& hw,
                                             const Ec2NodeSettings& settings) {
  const AmiFamilyTraits traits = TraitsOf(settings.ami_family);
  const api::KubeletConfiguration kubelet = settings.kubelet.value_or(api::KubeletConfiguration{});

  const bool eni_known = hw.enis.has_value() && hw.ipv4_per_eni.has_value();
  const int64_t eni_pods = eni_known
                               ? EniLimitedPods(*hw.enis, *hw.ipv4_per_eni, settings.reserved_enis)
                               : kDefaultMaxPods;

  int64_t pods = kDefaultMaxPods;
  if (kubelet.max_pods) {
    pods = *kubelet.max_pods;
  } else if (traits.eni_limited_pod_density && eni_known) {
    pods = eni_pods;
  }
  if (kubelet.pods_per_core.value_or(0) > 0 && traits.pods_per_core_enabled) {
    pods = std::min<int64_t>(pods, int64_t{*kubelet.pods_per_core} * hw.vcpus);
  }

  auto storage = EphemeralStorageCapacity(hw, settings);
  if (!storage.ok()) return storage.status();
  const api::Quantity memory =
      MiB(Ec2MemoryCapacityMiB(hw.memory_mib, hw.arm64, settings.vm_memory_overhead_percent));

  Ec2Capacity out;
  out.pods = pods;
  out.capacity.Set(api::kResourceCpu, api::Quantity::FromInt(hw.vcpus));
  out.capacity.Set(api::kResourceMemory, memory);
  out.capacity.Set(api::kResourceEphemeralStorage, *storage);
  out.capacity.Set(api::kResourcePods, api::Quantity::FromInt(pods));

  // kube-reserved: memory for AL2/AL2023 counts the ENI-limited pods with no reserved ENIs, even
  // when maxPods overrides density (Karpenter's UsesENILimitedMemoryOverhead).
  const int64_t memory_pods =
      traits.eni_limited_memory_overhead
          ? (eni_known ? EniLimitedPods(*hw.enis, *hw.ipv4_per_eni, 0) : kDefaultMaxPods)
          : pods;
  Overhead& oh = out.overhead;
  oh.kube_reserved.Set(api::kResourceCpu,
                       api::Quantity::FromMilli(KubeReservedCpuMillis(hw.vcpus)));
  oh.kube_reserved.Set(api::kResourceMemory, MiB(KubeReservedMemoryMiB(memory_pods)));
  oh.kube_reserved.Set(api::kResourceEphemeralStorage,
                       api::Quantity::FromInt(kGiB, api::QuantityFormat::kBinarySI));
  auto kube_reserved = ParseResourceMap("kubelet.kubeReserved", kubelet.kube_reserved);
  if (!kube_reserved.ok()) return kube_reserved.status();
  for (const auto& [name, q] : kube_reserved->items()) oh.kube_reserved.Set(name, q);

  auto system_reserved = ParseResourceMap("kubelet.systemReserved", kubelet.system_reserved);
  if (!system_reserved.ok()) return system_reserved.status();
  oh.system_reserved = *system_reserved;

  // Eviction: 100Mi of memory and 10 % of the ephemeral volume, unless evictionHard says
  // otherwise. evictionSoft only warns, so it does not reduce allocatable.
  oh.eviction_threshold.Set(api::kResourceMemory, MiB(100));
  oh.eviction_threshold.Set(
      api::kResourceEphemeralStorage,
      api::Quantity::FromInt(static_cast<int64_t>(std::ceil(storage->AsDouble() / 100 * 10)),
                             api::QuantityFormat::kBinarySI));
  if (auto it = kubelet.eviction_hard.find(kMemoryAvailable); it != kubelet.eviction_hard.end()) {
    auto q = EvictionSignal(it->first, it->second, memory);
    if (!q.ok()) return q.status();
    oh.eviction_threshold.Set(api::kResourceMemory, *q);
  }
  if (auto it = kubelet.eviction_hard.find(kNodeFsAvailable); it != kubelet.eviction_hard.end()) {
    auto q = EvictionSignal(it->first, it->second, *storage);
    if (!q.ok()) return q.status();
    oh.eviction_threshold.Set(api::kResourceEphemeralStorage, *q);
  }
  return out;
}

}  // namespace nodesmith::cloud
