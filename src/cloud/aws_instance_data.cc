#include "cloud/aws_instance_data.h"

#include <algorithm>

namespace nodesmith::cloud {
namespace {

std::vector<Ec2InstanceSpec> BuildSpecs() {
  std::vector<Ec2InstanceSpec> specs = {
#define NS_EC2_TYPE(name, vcpus, memory_mib, arch, hypervisor, bare_metal, gpu_name, gpu_mfr,    \
                    gpu_count, gpu_memory_mib, acc_name, acc_mfr, acc_count, neuron_cores, enis, \
                    ipv4_per_eni, branch_enis, bandwidth, price, efa, nvme)                      \
  Ec2InstanceSpec{name,      vcpus,        memory_mib, arch,           hypervisor,  bare_metal,  \
                  gpu_name,  gpu_mfr,      gpu_count,  gpu_memory_mib, acc_name,    acc_mfr,     \
                  acc_count, neuron_cores, enis,       ipv4_per_eni,   branch_enis, bandwidth,   \
                  price,     efa,          nvme},
#include "cloud/aws_instance_data.inc"
#undef NS_EC2_TYPE
  };
  std::sort(specs.begin(), specs.end(),
            [](const Ec2InstanceSpec& a, const Ec2InstanceSpec& b) { return a.name < b.name; });
  return specs;
}

// Processor maker and in-transit encryption support per family, as DescribeInstanceTypes
// reports them (ProcessorInfo.Manufacturer, NetworkInfo.EncryptionInTransitSupported). Intel:
// no suffix or "i"/"n" on Intel generations; "a" = AMD EPYC; "g" = AWS Graviton. In-transit
// encryption needs a Nitro v3+ card: 6th/7th generation Intel/AMD, c5a/c5n, c6gn, 7th gen
// Graviton and the accelerated families listed.
constexpr Ec2FamilyFacts kFamilies[] = {
    {"c5", "intel", false},  {"c5a", "amd", true},    {"c5n", "intel", true},
    {"c6a", "amd", true},    {"c6g", "aws", false},   {"c6gn", "aws", true},
    {"c6i", "intel", true},  {"c7a", "amd", true},    {"c7g", "aws", true},
    {"c7i", "intel", true},  {"g4dn", "intel", true}, {"g5", "amd", true},
    {"g6", "amd", true},     {"inf2", "amd", true},   {"m5", "intel", false},
    {"m5a", "amd", false},   {"m6a", "amd", true},    {"m6g", "aws", false},
    {"m6i", "intel", true},  {"m7a", "amd", true},    {"m7g", "aws", true},
    {"m7i", "intel", true},  {"p3", "intel", false},  {"p4d", "intel", true},
    {"p5", "amd", true},     {"r5", "intel", false},  {"r5a", "amd", false},
    {"r6a", "amd", true},    {"r6g", "aws", false},   {"r6i", "intel", true},
    {"r7a", "amd", true},    {"r7g", "aws", true},    {"r7i", "intel", true},
    {"t3", "intel", false},  {"t3a", "amd", false},   {"t4g", "aws", false},
    {"trn1", "intel", true},
};

}  // namespace

const std::vector<Ec2InstanceSpec>& AwsInstanceSpecs() {
  static const std::vector<Ec2InstanceSpec> kSpecs = BuildSpecs();
  return kSpecs;
}

const Ec2InstanceSpec* FindAwsInstanceSpec(std::string_view name) {
  const auto& specs = AwsInstanceSpecs();
  auto it =
      std::lower_bound(specs.begin(), specs.end(), name,
                       [](const Ec2InstanceSpec& s, std::string_view n) { return s.name < n; });
  return it != specs.end() && it->name == name ? &*it : nullptr;
}

std::optional<Ec2FamilyFacts> FindEc2FamilyFacts(std::string_view family) {
  for (const auto& f : kFamilies) {
    if (f.family == family) return f;
  }
  return std::nullopt;
}

}  // namespace nodesmith::cloud
