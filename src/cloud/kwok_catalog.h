// The built-in `kwok` catalog: the 144 generic instance types Karpenter's KWOK provider ships
// (kwok/tools/gen_instance_types.go generates them; kwok/cloudprovider/helpers.go turns them into
// instance types). Generated here by the same rules rather than read from a file:
//   cpu ∈ {1,2,4,8,16,32,48,64,96,128,192,256} × memory factor {2 (c), 4 (s), 8 (m)} GiB/cpu
//   × os {linux, windows} × arch {amd64, arm64}; name "<c|s|m>-<cpu>x-<arch>-<os>";
//   pods = min(cpu × 16, 1024); ephemeral-storage 20Gi;
//   price = 0.025 × cpu + 0.001 × memory bytes / 1e9; spot = 0.7 × price;
//   offerings: spot and on-demand in test-zone-a..d, all available;
//   overhead: kube-reserved cpu 100m, memory 10Mi;
//   labels karpenter.kwok.sh/instance-{size (= cpu), family, cpu, memory (e.g. "2Gi")}.
#pragma once

#include <string>
#include <vector>

#include "api/resource_list.h"
#include "cloud/instance_type.h"
#include "scheduling/well_known_labels.h"

namespace nodesmith::cloud {

// One generated type before it becomes an InstanceType (what gen_instance_types.go writes).
struct KwokInstanceTypeOptions {
  std::string name;
  std::string architecture;
  std::vector<std::string> operating_systems;
  api::ResourceList resources;
  std::vector<Offering> offerings;  // zone, capacity type, price, available
};

// The zones KWOK's generated types are offered in.
const std::vector<std::string>& KwokZones();

// The generated options in the generator's order (cpu, memory factor, os, arch).
std::vector<KwokInstanceTypeOptions> KwokInstanceTypeOptionsList();

// An InstanceType from options, as the KWOK provider's newInstanceType (pods default 110).
InstanceTypePtr NewKwokInstanceType(KwokInstanceTypeOptions options);

// All generated types as InstanceTypes, sorted by name.
InstanceTypes KwokInstanceTypes();

// The well-known labels with the KWOK provider's label keys added.
scheduling::LabelKeySet KwokWellKnownLabels();

}  // namespace nodesmith::cloud
