// The built-in table of EC2 instance types (facts from AWS, see aws_instance_data.inc for the
// sources) and the per-family facts EC2 reports per type but that the table keeps per family.
// Everything here is static, immutable and safe to read from any thread.
#pragma once

#include <cstdint>
#include <optional>
#include <string_view>
#include <vector>

namespace nodesmith::cloud {

struct Ec2InstanceSpec {
  std::string_view name;  // "m5.large"
  int64_t vcpus = 0;
  int64_t memory_mib = 0;       // EC2 MemoryInfo.SizeInMiB (before any overhead)
  std::string_view arch;        // "amd64" | "arm64"
  std::string_view hypervisor;  // "nitro" | "xen" | "" (bare metal)
  bool bare_metal = false;
  std::string_view gpu_name;  // Karpenter label spelling ("a10g"); "" when none
  std::string_view gpu_manufacturer;
  int64_t gpu_count = 0;
  int64_t gpu_memory_mib = 0;         // per GPU
  std::string_view accelerator_name;  // Neuron devices ("inferentia2", "trainium")
  std::string_view accelerator_manufacturer;
  int64_t accelerator_count = 0;
  int64_t neuron_cores = 0;
  int64_t enis = 0;  // on the default network card
  int64_t ipv4_per_eni = 0;
  int64_t branch_enis = 0;             // vpc.amazonaws.com/pod-eni (0 when not trunking-compatible)
  int64_t network_bandwidth_mbps = 0;  // 0 = AWS publishes no number
  double on_demand_price = 0;          // USD/hour, Linux, us-east-1
  int64_t efa_interfaces = 0;
  int64_t local_nvme_gb = 0;

  std::string_view family() const { return name.substr(0, name.find('.')); }
  std::string_view size() const { return name.substr(name.find('.') + 1); }
};

// Facts shared by every size of a family.
struct Ec2FamilyFacts {
  std::string_view family;
  std::string_view cpu_manufacturer;   // Karpenter label spelling: "intel" | "amd" | "aws"
  bool encryption_in_transit = false;  // NetworkInfo.EncryptionInTransitSupported
};

// All built-in types, sorted by name.
const std::vector<Ec2InstanceSpec>& AwsInstanceSpecs();
// The spec for `name`, nullptr if not in the table.
const Ec2InstanceSpec* FindAwsInstanceSpec(std::string_view name);
// The facts for `family` ("m5"), nullopt if the family is not in the table.
std::optional<Ec2FamilyFacts> FindEc2FamilyFacts(std::string_view family);

}  // namespace nodesmith::cloud
