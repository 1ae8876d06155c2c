// Instance types from the live EC2 API: one <item> of DescribeInstanceTypes' instanceTypeSet
// decoded into the hardware facts Karpenter-AWS reads (pkg/providers/instancetype/types.go), and
// the region's whole list built into cloud::InstanceTypes with offerings per zone.
//
// The live path and the built-in table (cloud/aws_instance_data.h) meet in Ec2InstanceSpec: a
// LiveInstanceSpec owns what EC2 answered and lends it out as an Ec2InstanceSpec view, so that
// capacity, overhead, extended resources and labels come from the same code for both, and the same
// facts give the same InstanceType. What EC2 answers per type but the table keeps per family
// (processor manufacturer, in-transit encryption) or not at all (sustained clock speed, EBS
// bandwidth) is taken from the answer and replaces the table's requirement for that label.
//
// What DescribeInstanceTypes does not say. Branch ENIs (vpc.amazonaws.com/pod-eni) come from
// Karpenter's generated VPC limits, never from EC2: they are taken from the built-in table, and are
// 0 for a type the table lacks. Baseline network bandwidth is the sum of networkCards' baseline
// Gbit/s where EC2 gives it, else the built-in table's number, else unknown.
//
// Thread-safe: everything here is a pure function of its arguments.
#pragma once

#include <cstdint>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

#include <pugixml.hpp>

#include "cloud/aws/ec2_client.h"
#include "cloud/aws/pricing.h"
#include "cloud/aws_instance_data.h"
#include "cloud/ec2_overhead.h"
#include "cloud/instance_type.h"
#include "core/status.h"

namespace nodesmith::aws {

// One instance type as EC2 describes it, in the built-in table's terms and spellings (see
// Ec2InstanceSpec), plus the facts the table does not keep per type.
struct LiveInstanceSpec {
  std::string name;
  int64_t vcpus = 0;
  int64_t memory_mib = 0;
  std::string arch;  // "amd64" | "arm64"; "" when EC2 lists neither x86_64 nor arm64
  std::string hypervisor;
  bool bare_metal = false;
  std::string gpu_name;  // Karpenter's label spelling: EC2's name lower-cased, spaces as '-'
  std::string gpu_manufacturer;
  int64_t gpu_count = 0;
  int64_t gpu_memory_mib = 0;
  std::string accelerator_name;
  std::string accelerator_manufacturer;
  int64_t accelerator_count = 0;
  int64_t neuron_cores = 0;
  int64_t enis = 0;
  int64_t ipv4_per_eni = 0;
  int64_t branch_enis = 0;
  int64_t network_bandwidth_mbps = 0;
  double on_demand_price = 0;
  int64_t efa_interfaces = 0;
  int64_t local_nvme_gb = 0;

  // Per type here, per family in the table.
  std::string cpu_manufacturer;  // "intel" | "amd" | "aws"; "" when EC2 does not say
  bool encryption_in_transit = false;
  // Not in the table at all.
  std::optional<int64_t> cpu_sustained_clock_speed_mhz;
  std::optional<int64_t> ebs_bandwidth_mbps;  // only when EBS optimisation is on by default
  // The capacity types EC2 sells the type as ("on-demand", "spot"); empty: EC2 did not say.
  std::vector<std::string> usage_classes;

  // The facts as the table's spec. The view points into *this: it must not outlive it, and *this
  // must not change while the view is in use.
  cloud::Ec2InstanceSpec View() const;
};

// Decodes one instanceTypeSet <item> (EC2 XML names: instanceType, vCpuInfo/defaultVCpus, ...).
// Fails when the item names no type or gives no vCPU or memory count.
core::Result<LiveInstanceSpec> DecodeInstanceTypeItem(pugi::xml_node item);

// The InstanceType for `spec`, as NewEc2InstanceType builds it from the table, with the live-only
// labels above. Fails only when `settings` holds an unparseable quantity.
core::Result<cloud::InstanceTypePtr> NewLiveInstanceType(const LiveInstanceSpec& spec,
                                                         std::string_view region,
                                                         const cloud::Ec2NodeSettings& settings,
                                                         std::vector<cloud::Offering> offerings);

// Every type of `pages` (DescribeInstanceTypesPages), sorted by name, each with a spot and an
// on-demand offering (only those of its usage classes, when EC2 lists them) in every zone
// `offerings` lists it in.
//
// Prices, as Karpenter-AWS's offering resolver sets them: on-demand from `prices`, else the built-in
// catalog's price for the region (Karpenter starts from its generated price table and keeps it for
// types the Pricing API leaves out); spot from `prices` per zone once spot prices have arrived, the
// on-demand price until then. An offering without a price is kept but unavailable, which is what
// Karpenter does (base_resolver.go: Available requires hasPrice): a type with no price at all is
// listed and selects nothing, since its zone and capacity-type requirements come out empty.
//
// Types whose architecture is neither amd64 nor arm64 are left out: Karpenter's request filter
// (processor-info.supported-architecture=x86_64,arm64) keeps them from its list. Fails on an item
// DecodeInstanceTypeItem rejects or an unparseable quantity in `settings`.
core::Result<cloud::InstanceTypes> LiveInstanceTypes(const std::vector<XmlAnswer>& pages,
                                                     const std::vector<InstanceTypeOffering>& offerings,
                                                     const PriceBook& prices, std::string_view region,
                                                     const cloud::Ec2NodeSettings& settings);

// The filters Karpenter-AWS sends with DescribeInstanceTypes.
std::vector<Ec2Filter> InstanceTypeFilters();

}  // namespace nodesmith::aws
