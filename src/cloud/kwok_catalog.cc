#include "cloud/kwok_catalog.h"

#include <algorithm>
#include <regex>

#include "cloud/labels.h"

namespace nodesmith::cloud {
namespace {

using scheduling::Requirement;

std::string FamilyForMemoryFactor(int factor) {
  switch (factor) {
    case 2:
      return "c";  // cpu
    case 4:
      return "s";  // standard
    case 8:
      return "m";  // memory
    default:
      return "e";  // exotic
  }
}

// Price from resources: 0.025 per cpu plus 0.001 per (decimal) GB of memory. Summed in the same
// order and with the same operations as the generator so the doubles agree bit for bit.
double PriceFromResources(const api::ResourceList& resources) {
  double price = 0.0;
  price += 0.025 * resources.Get(api::kResourceCpu).AsDouble();
  price += 0.001 * resources.Get(api::kResourceMemory).AsDouble() / (1e9);
  return price;
}

// helpers.go parseSizeFromType: the size of an AWS-style name, else the cpu count.
std::string ParseSize(const std::string& name, const std::string& cpu) {
  static const std::regex kAws(R"(^\w+\.(nano|micro|small|medium|large|\d*xlarge|metal)$)");
  std::smatch m;
  if (std::regex_match(name, m, kAws)) return m[1];
  return cpu;
}

// helpers.go parseFamilyFromType: the part before the first '.' or '-', else the first letter.
std::string ParseFamily(const std::string& name) {
  if (name.empty()) return "";
  size_t pos = name.find_first_of(".-");
  if (pos == std::string::npos) return name.substr(0, 1);
  return name.substr(0, pos);
}

}  // namespace

const std::vector<std::string>& KwokZones() {
  static const std::vector<std::string> kZones = {"test-zone-a", "test-zone-b", "test-zone-c",
                                                  "test-zone-d"};
  return kZones;
}

std::vector<KwokInstanceTypeOptions> KwokInstanceTypeOptionsList() {
  std::vector<KwokInstanceTypeOptions> out;
  for (int cpu : {1, 2, 4, 8, 16, 32, 48, 64, 96, 128, 192, 256}) {
    for (int factor : {2, 4, 8}) {
      for (const char* os : {"linux", "windows"}) {
        for (const char* arch : {"amd64", "arm64"}) {
          KwokInstanceTypeOptions o;
          o.name =
              FamilyForMemoryFactor(factor) + "-" + std::to_string(cpu) + "x-" + arch + "-" + os;
          o.architecture = arch;
          o.operating_systems = {os};
          o.resources.Set(api::kResourceCpu, api::Quantity::FromInt(cpu));
          o.resources.Set(api::kResourceMemory,
                          api::Quantity::MustParse(std::to_string(cpu * factor) + "Gi"));
          o.resources.Set(api::kResourcePods,
                          api::Quantity::FromInt(std::clamp(cpu * 16, 0, 1024)));
          o.resources.Set(api::kResourceEphemeralStorage, api::Quantity::MustParse("20Gi"));
          const double price = PriceFromResources(o.resources);
          for (const std::string& zone : KwokZones()) {
            for (const char* ct : {kCapacityTypeSpot, kCapacityTypeOnDemand}) {
              const bool spot = std::string_view(ct) == kCapacityTypeSpot;
              o.offerings.push_back(Offering{zone, ct, spot ? price * .7 : price, true, {}});
            }
          }
          out.push_back(std::move(o));
        }
      }
    }
  }
  return out;
}

InstanceTypePtr NewKwokInstanceType(KwokInstanceTypeOptions options) {
  const std::string cpu = options.resources.Get(api::kResourceCpu).String();
  const std::string memory = options.resources.Get(api::kResourceMemory).String();
  if (!options.resources.Has(api::kResourcePods)) {
    options.resources.Set(api::kResourcePods, api::Quantity::FromInt(110));
  }
  for (Offering& o : options.offerings) o.available = true;

  scheduling::Requirements reqs;
  reqs.Add(Requirement::In(scheduling::kLabelArchStable, {options.architecture}));
  reqs.Add(Requirement::In(scheduling::kLabelOSStable, options.operating_systems));
  reqs.Add(Requirement::In(kLabelKwokInstanceSize, {ParseSize(options.name, cpu)}));
  reqs.Add(Requirement::In(kLabelKwokInstanceFamily, {ParseFamily(options.name)}));
  reqs.Add(Requirement::In(kLabelKwokInstanceCpu, {cpu}));
  reqs.Add(Requirement::In(kLabelKwokInstanceMemory, {memory}));

  Overhead overhead;
  overhead.kube_reserved.Set(api::kResourceCpu, api::Quantity::MustParse("100m"));
  overhead.kube_reserved.Set(api::kResourceMemory, api::Quantity::MustParse("10Mi"));
  return NewInstanceType(std::move(options.name), std::move(reqs), std::move(options.resources),
                         std::move(overhead), std::move(options.offerings));
}

InstanceTypes KwokInstanceTypes() {
  InstanceTypes out;
  for (auto& o : KwokInstanceTypeOptionsList()) out.push_back(NewKwokInstanceType(std::move(o)));
  SortByName(out);
  return out;
}

scheduling::LabelKeySet KwokWellKnownLabels() {
  return scheduling::WellKnownLabels().With({kLabelKwokInstanceSize, kLabelKwokInstanceFamily,
                                             kLabelKwokInstanceCpu, kLabelKwokInstanceMemory});
}

}  // namespace nodesmith::cloud
