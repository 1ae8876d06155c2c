#include "cloud/aws/instance_type_decoder.h"

#include <algorithm>
#include <cctype>
#include <cmath>
#include <cstdlib>
#include <map>
#include <set>

#include "cloud/aws/nodeclass_selectors.h"
#include "cloud/aws_catalog.h"
#include "cloud/ec2_instance_type.h"
#include "scheduling/well_known_labels.h"

namespace nodesmith::aws {
namespace {

using scheduling::Requirement;

// The largest number ChildInt returns: EC2's counts are 32-bit integers, and keeping every one
// below 2^31 keeps their sums and products (GPUs of several entries, neuron devices × cores) well
// inside int64. A larger (or smaller than -1) number reads as the bound, which CheckRanges refuses.
constexpr int64_t kChildIntMax = (int64_t{1} << 31) - 1;

int64_t ChildInt(pugi::xml_node node, const char* name) {
  const int64_t v = std::strtoll(node.child(name).text().as_string("0"), nullptr, 10);
  return std::clamp<int64_t>(v, -1, kChildIntMax);
}

// A decoded number must lie in [0, max]. The bounds are far above EC2's largest types (1,920
// vCPUs, 32 TiB of memory, 15 interfaces of 50 addresses, 3,200 Gbit/s) and low enough that what
// ComputeEc2Capacity derives from them (bytes of memory and disk, millicores, pods, the kubelet's
// reserved memory per pod) stays inside int64: EC2 choosing the numbers must not overflow it.
core::Status CheckRanges(const LiveInstanceSpec& spec) {
  struct Field {
    const char* name;
    int64_t value;
    int64_t max;
  };
  const int64_t k16 = int64_t{1} << 16, k20 = int64_t{1} << 20, k30 = int64_t{1} << 30,
                k40 = int64_t{1} << 40;
  const Field fields[] = {
      {"vCpuInfo/defaultVCpus", spec.vcpus, k20},
      {"memoryInfo/sizeInMiB", spec.memory_mib, k30},
      {"gpuInfo/gpus count", spec.gpu_count, k20},
      {"gpuInfo/gpus memoryInfo/sizeInMiB", spec.gpu_memory_mib, k30},
      {"accelerator count", spec.accelerator_count, k20},
      {"neuron cores", spec.neuron_cores, k20},
      {"networkInfo/maximumNetworkInterfaces", spec.enis, k16},
      {"networkInfo/ipv4AddressesPerInterface", spec.ipv4_per_eni, k16},
      {"networkInfo/efaInfo/maximumEfaInterfaces", spec.efa_interfaces, k16},
      {"networkInfo baseline bandwidth (Mbit/s)", spec.network_bandwidth_mbps, k40},
      {"instanceStorageInfo/totalSizeInGB", spec.local_nvme_gb, k30},
      {"ebsInfo/ebsOptimizedInfo/maximumBandwidthInMbps", spec.ebs_bandwidth_mbps.value_or(0), k40},
      {"processorInfo/sustainedClockSpeedInGhz (MHz)", spec.cpu_sustained_clock_speed_mhz.value_or(0), k30},
  };
  for (const Field& f : fields) {
    if (f.value < 0 || f.value > f.max) {
      // ChildInt's bounds stand for anything beyond them; say so rather than print the bound.
      const std::string value = f.value < 0                 ? "negative or not a number"
                                : f.value >= kChildIntMax ? std::to_string(kChildIntMax) + " or more"
                                                          : std::to_string(f.value);
      return core::Status::Invalid("DescribeInstanceTypes item " + spec.name + ": " + f.name + " " +
                                   value + " is out of range (0 to " + std::to_string(f.max) + ")");
    }
  }
  return core::Status::Ok();
}

// llround of `x` when it is a finite number of a size llround can return, else -1 (which
// CheckRanges refuses): llround's result is unspecified outside long long's range.
int64_t RoundOrMinusOne(double x) {
  if (!std::isfinite(x) || x < 0 || x > 1e15) return -1;
  return std::llround(x);
}

bool ChildBool(pugi::xml_node node, const char* name) {
  return std::string_view(node.child(name).text().as_string()) == "true";
}

// Karpenter's lowerKabobCase: lower case, spaces as dashes ("Radeon Pro V520" -> "radeon-pro-v520").
std::string LowerKebab(std::string_view s) {
  std::string out(s);
  for (char& c : out) c = c == ' ' ? '-' : static_cast<char>(std::tolower(static_cast<unsigned char>(c)));
  return out;
}

// AWSToKubeArchitectures: the first architecture Kubernetes has a name for.
std::string KubeArchitecture(pugi::xml_node processor) {
  for (pugi::xml_node a : processor.child("supportedArchitectures").children("item")) {
    std::string arch = KubernetesArchOf(a.text().as_string());
    if (!arch.empty()) return arch;
  }
  return "";
}

// GPUs as the table records them: one entry's name, maker, count and per-GPU memory. With several
// entries Karpenter sets no GPU labels (types.go requires exactly one) yet still counts the GPUs of
// each maker; the spec can only carry one maker, so the name is left empty and the count is the
// first entry's maker's total.
void DecodeGpus(pugi::xml_node gpu_info, LiveInstanceSpec* spec) {
  std::vector<pugi::xml_node> gpus;
  for (pugi::xml_node g : gpu_info.child("gpus").children("item")) gpus.push_back(g);
  if (gpus.empty()) return;
  spec->gpu_manufacturer = LowerKebab(gpus[0].child("manufacturer").text().as_string());
  if (gpus.size() == 1) {
    spec->gpu_name = LowerKebab(gpus[0].child("name").text().as_string());
    spec->gpu_memory_mib = ChildInt(gpus[0].child("memoryInfo"), "sizeInMiB");
  }
  for (pugi::xml_node g : gpus) {
    if (LowerKebab(g.child("manufacturer").text().as_string()) == spec->gpu_manufacturer) {
      spec->gpu_count += ChildInt(g, "count");
    }
  }
}

// Neuron devices (Inferentia, Trainium) are the table's accelerators, made by "aws"; without them
// an inference accelerator entry is, as in Karpenter, which reads InferenceAcceleratorInfo only when
// NeuronInfo is absent.
void DecodeAccelerators(pugi::xml_node item, LiveInstanceSpec* spec) {
  std::vector<pugi::xml_node> devices;
  for (pugi::xml_node d : item.child("neuronInfo").child("neuronDevices").children("item")) {
    devices.push_back(d);
  }
  if (!devices.empty()) {
    if (devices.size() == 1) spec->accelerator_name = LowerKebab(devices[0].child("name").text().as_string());
    spec->accelerator_manufacturer = "aws";
    for (pugi::xml_node d : devices) spec->accelerator_count += ChildInt(d, "count");
    // Karpenter: cores = the first device entry's count × its cores per device.
    spec->neuron_cores = ChildInt(devices[0], "count") * ChildInt(devices[0].child("coreInfo"), "count");
    return;
  }
  std::vector<pugi::xml_node> accelerators;
  for (pugi::xml_node a : item.child("inferenceAcceleratorInfo").child("accelerators").children("item")) {
    accelerators.push_back(a);
  }
  if (accelerators.size() == 1) {
    spec->accelerator_name = LowerKebab(accelerators[0].child("name").text().as_string());
    spec->accelerator_manufacturer = LowerKebab(accelerators[0].child("manufacturer").text().as_string());
    spec->accelerator_count = ChildInt(accelerators[0], "count");
  }
}

void DecodeNetwork(pugi::xml_node network, const cloud::Ec2InstanceSpec* table, LiveInstanceSpec* spec) {
  // The VPC CNI uses the default network card only; without a card list, the type's total.
  const int64_t default_card = ChildInt(network, "defaultNetworkCardIndex");
  spec->enis = ChildInt(network, "maximumNetworkInterfaces");
  double bandwidth_gbps = 0;
  bool bandwidth_known = false;
  for (pugi::xml_node card : network.child("networkCards").children("item")) {
    if (ChildInt(card, "networkCardIndex") == default_card) {
      spec->enis = ChildInt(card, "maximumNetworkInterfaces");
    }
    if (pugi::xml_node b = card.child("baselineBandwidthInGbps")) {
      bandwidth_gbps += b.text().as_double();
      bandwidth_known = true;
    }
  }
  spec->ipv4_per_eni = ChildInt(network, "ipv4AddressesPerInterface");
  spec->encryption_in_transit = ChildBool(network, "encryptionInTransitSupported");
  spec->efa_interfaces = ChildInt(network.child("efaInfo"), "maximumEfaInterfaces");
  if (bandwidth_known && bandwidth_gbps > 0) {
    spec->network_bandwidth_mbps = RoundOrMinusOne(bandwidth_gbps * 1000);
  } else if (table != nullptr) {
    spec->network_bandwidth_mbps = table->network_bandwidth_mbps;
  }
  // Branch ENIs are Karpenter's VPC limits data, not EC2's: only the table knows them.
  if (table != nullptr) spec->branch_enis = table->branch_enis;
}

// Replaces the table's requirement for `key` with the live answer's value, or DoesNotExist.
void Replace(scheduling::Requirements& reqs, const char* key, const std::string& value, bool known) {
  reqs.Remove(key);
  reqs.Add(known ? Requirement::In(key, {value}) : Requirement::DoesNotExist(key));
}

// The built-in catalog's on-demand price for the type in `region` (us-east-1's for a region the
// catalog has no factor for, as Karpenter falls back to us-east-1's generated prices).
std::optional<double> CatalogOnDemandPrice(std::string_view type, std::string_view region) {
  const cloud::Ec2InstanceSpec* spec = cloud::FindAwsInstanceSpec(type);
  if (spec == nullptr || spec->on_demand_price <= 0) return std::nullopt;
  const double factor = cloud::AwsRegionPriceMultiplier(region).value_or(1.0);
  return std::round(spec->on_demand_price * factor * 1e6) / 1e6;  // as aws_catalog.cc rounds
}

}  // namespace

cloud::Ec2InstanceSpec LiveInstanceSpec::View() const {
  cloud::Ec2InstanceSpec v;
  v.name = name;
  v.vcpus = vcpus;
  v.memory_mib = memory_mib;
  v.arch = arch;
  v.hypervisor = hypervisor;
  v.bare_metal = bare_metal;
  v.gpu_name = gpu_name;
  v.gpu_manufacturer = gpu_manufacturer;
  v.gpu_count = gpu_count;
  v.gpu_memory_mib = gpu_memory_mib;
  v.accelerator_name = accelerator_name;
  v.accelerator_manufacturer = accelerator_manufacturer;
  v.accelerator_count = accelerator_count;
  v.neuron_cores = neuron_cores;
  v.enis = enis;
  v.ipv4_per_eni = ipv4_per_eni;
  v.branch_enis = branch_enis;
  v.network_bandwidth_mbps = network_bandwidth_mbps;
  v.on_demand_price = on_demand_price;
  v.efa_interfaces = efa_interfaces;
  v.local_nvme_gb = local_nvme_gb;
  return v;
}

core::Result<LiveInstanceSpec> DecodeInstanceTypeItem(pugi::xml_node item) {
  LiveInstanceSpec spec;
  spec.name = ChildText(item, "instanceType");
  if (spec.name.empty()) {
    return core::Status::Invalid("DescribeInstanceTypes item without an instanceType");
  }
  spec.vcpus = ChildInt(item.child("vCpuInfo"), "defaultVCpus");
  spec.memory_mib = ChildInt(item.child("memoryInfo"), "sizeInMiB");
  if (spec.vcpus <= 0 || spec.memory_mib <= 0) {
    return core::Status::Invalid("DescribeInstanceTypes item " + spec.name +
                                 " gives no vCpuInfo/defaultVCpus or memoryInfo/sizeInMiB");
  }
  const cloud::Ec2InstanceSpec* table = cloud::FindAwsInstanceSpec(spec.name);

  pugi::xml_node processor = item.child("processorInfo");
  spec.arch = KubeArchitecture(processor);
  spec.cpu_manufacturer = LowerKebab(ChildText(processor, "manufacturer"));
  if (pugi::xml_node clock = processor.child("sustainedClockSpeedInGhz")) {
    spec.cpu_sustained_clock_speed_mhz = RoundOrMinusOne(clock.text().as_double() * 1000);
  }
  spec.hypervisor = ChildText(item, "hypervisor");  // absent on bare metal
  spec.bare_metal = ChildBool(item, "bareMetal");

  DecodeGpus(item.child("gpuInfo"), &spec);
  DecodeAccelerators(item, &spec);
  DecodeNetwork(item.child("networkInfo"), table, &spec);

  // Karpenter labels local NVMe only when the instance store is NVMe; HDD/SSD-only stores count 0.
  pugi::xml_node storage = item.child("instanceStorageInfo");
  if (storage && ChildText(storage, "nvmeSupport") != "unsupported") {
    spec.local_nvme_gb = ChildInt(storage, "totalSizeInGB");
  }
  pugi::xml_node ebs = item.child("ebsInfo");
  if (ChildText(ebs, "ebsOptimizedSupport") == "default" && ebs.child("ebsOptimizedInfo")) {
    spec.ebs_bandwidth_mbps = ChildInt(ebs.child("ebsOptimizedInfo"), "maximumBandwidthInMbps");
  }
  for (pugi::xml_node c : item.child("supportedUsageClasses").children("item")) {
    spec.usage_classes.emplace_back(c.text().as_string());
  }
  if (table != nullptr) spec.on_demand_price = table->on_demand_price;
  NS_RETURN_IF_ERROR(CheckRanges(spec));
  return spec;
}

core::Result<cloud::InstanceTypePtr> NewLiveInstanceType(const LiveInstanceSpec& spec,
                                                         std::string_view region,
                                                         const cloud::Ec2NodeSettings& settings,
                                                         std::vector<cloud::Offering> offerings) {
  namespace s = scheduling;
  const cloud::Ec2InstanceSpec view = spec.View();
  auto computed = cloud::ComputeEc2Capacity(cloud::HardwareOf(view), settings);
  if (!computed.ok()) return computed.status();
  api::ResourceList capacity = computed->capacity;
  capacity.Add(cloud::Ec2ExtendedResources(view, settings.ami_family));
  s::Requirements reqs = cloud::Ec2Requirements(view, region, settings.ami_family);
  Replace(reqs, s::kLabelInstanceCpuManufacturer, spec.cpu_manufacturer, !spec.cpu_manufacturer.empty());
  Replace(reqs, s::kLabelInstanceEncryptionInTransitSupported,
          spec.encryption_in_transit ? "true" : "false", true);
  Replace(reqs, s::kLabelInstanceCpuSustainedClockSpeedMhz,
          std::to_string(spec.cpu_sustained_clock_speed_mhz.value_or(0)),
          spec.cpu_sustained_clock_speed_mhz.has_value());
  Replace(reqs, s::kLabelInstanceEbsBandwidth, std::to_string(spec.ebs_bandwidth_mbps.value_or(0)),
          spec.ebs_bandwidth_mbps.has_value());
  return cloud::NewInstanceType(spec.name, std::move(reqs), std::move(capacity),
                                std::move(computed->overhead), std::move(offerings));
}

core::Result<cloud::InstanceTypes> LiveInstanceTypes(const std::vector<XmlAnswer>& pages,
                                                     const std::vector<InstanceTypeOffering>& offerings,
                                                     const PriceBook& prices, std::string_view region,
                                                     const cloud::Ec2NodeSettings& settings) {
  std::map<std::string, std::set<std::string>, std::less<>> zones_of;
  for (const InstanceTypeOffering& o : offerings) zones_of[o.instance_type].insert(o.zone);

  cloud::InstanceTypes out;
  std::set<std::string, std::less<>> seen;
  for (const XmlAnswer& page : pages) {
    for (pugi::xml_node item : page.root.child("instanceTypeSet").children("item")) {
      auto spec = DecodeInstanceTypeItem(item);
      if (!spec.ok()) return spec.status();
      if (spec->arch.empty() || !seen.insert(spec->name).second) continue;

      std::optional<double> on_demand = prices.OnDemandPrice(spec->name);
      if (!on_demand) on_demand = CatalogOnDemandPrice(spec->name, region);
      if (on_demand) spec->on_demand_price = *on_demand;
      auto sells = [&](const char* capacity_type) {
        return spec->usage_classes.empty() ||
               std::find(spec->usage_classes.begin(), spec->usage_classes.end(), capacity_type) !=
                   spec->usage_classes.end();
      };
      std::vector<cloud::Offering> its;
      if (auto z = zones_of.find(spec->name); z != zones_of.end()) {
        for (const std::string& zone : z->second) {
          if (sells(cloud::kCapacityTypeSpot)) {
            std::optional<double> spot =
                prices.has_spot_prices() ? prices.SpotPrice(spec->name, zone) : on_demand;
            its.push_back(cloud::Offering{zone, cloud::kCapacityTypeSpot, spot.value_or(0),
                                          spot.has_value(), {}});
          }
          if (sells(cloud::kCapacityTypeOnDemand)) {
            its.push_back(cloud::Offering{zone, cloud::kCapacityTypeOnDemand, on_demand.value_or(0),
                                          on_demand.has_value(), {}});
          }
        }
      }
      auto it = NewLiveInstanceType(*spec, region, settings, std::move(its));
      if (!it.ok()) return it.status();
      out.push_back(std::move(*it));
    }
  }
  cloud::SortByName(out);
  return out;
}

std::vector<Ec2Filter> InstanceTypeFilters() {
  return {{"supported-virtualization-type", {"hvm"}},
          {"processor-info.supported-architecture", {"x86_64", "arm64"}}};
}

}  // namespace nodesmith::aws
