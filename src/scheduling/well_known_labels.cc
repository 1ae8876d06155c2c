#include "scheduling/well_known_labels.h"

#include <algorithm>
#include <string>

namespace nodesmith::scheduling {

LabelKeySet::LabelKeySet(std::initializer_list<std::string> keys)
    : LabelKeySet(std::vector<std::string>(keys)) {}

LabelKeySet::LabelKeySet(std::vector<std::string> keys) : keys_(std::move(keys)) {
  std::sort(keys_.begin(), keys_.end());
  keys_.erase(std::unique(keys_.begin(), keys_.end()), keys_.end());
}

bool LabelKeySet::Contains(std::string_view key) const {
  auto it = std::lower_bound(keys_.begin(), keys_.end(), key,
                             [](const std::string& a, std::string_view b) { return a < b; });
  return it != keys_.end() && *it == key;
}

LabelKeySet LabelKeySet::With(const std::vector<std::string>& extra) const {
  std::vector<std::string> all = keys_;
  all.insert(all.end(), extra.begin(), extra.end());
  LabelKeySet out(std::move(all));
  out.includes_well_known_ = includes_well_known_ || this == &WellKnownLabels();
  return out;
}

const LabelKeySet& WellKnownLabels() {
  static const LabelKeySet* const kSet = new LabelKeySet{
      // Karpenter core.
      kLabelNodePool,
      kLabelTopologyZone,
      kLabelTopologyRegion,
      kLabelInstanceTypeStable,
      kLabelArchStable,
      kLabelOSStable,
      kLabelCapacityType,
      kLabelWindowsBuild,
      // AWS provider.
      kLabelInstanceCapacityReservationId,
      kLabelInstanceCapacityReservationType,
      kLabelInstanceHypervisor,
      kLabelInstanceEncryptionInTransitSupported,
      kLabelInstanceCategory,
      kLabelInstanceFamily,
      kLabelInstanceGeneration,
      kLabelInstanceSize,
      kLabelInstanceLocalNvme,
      kLabelInstanceCpu,
      kLabelInstanceCpuManufacturer,
      kLabelInstanceCpuSustainedClockSpeedMhz,
      kLabelInstanceMemory,
      kLabelInstanceEbsBandwidth,
      kLabelInstanceNetworkBandwidth,
      kLabelInstanceGpuName,
      kLabelInstanceGpuManufacturer,
      kLabelInstanceGpuCount,
      kLabelInstanceGpuMemory,
      kLabelInstanceAcceleratorName,
      kLabelInstanceAcceleratorManufacturer,
      kLabelInstanceAcceleratorCount,
      kLabelTopologyZoneId,
  };
  return *kSet;
}

bool IsWellKnownLabel(std::string_view key) { return WellKnownLabels().Contains(key); }

const std::vector<std::string>& RestrictedLabelDomains() {
  static const std::vector<std::string>* const kDomains =
      new std::vector<std::string>{"k8s.io", kKarpenterGroup, kAwsGroup, "kubernetes.io"};
  return *kDomains;
}

const std::vector<std::string>& LabelDomainExceptions() {
  static const std::vector<std::string>* const kDomains = new std::vector<std::string>{
      "kops.k8s.io", "node-restriction.kubernetes.io", "node.kubernetes.io"};
  return *kDomains;
}

const LabelKeySet& RestrictedLabels() {
  static const LabelKeySet* const kSet = new LabelKeySet{kLabelHostname};
  return *kSet;
}

std::string_view GetLabelDomain(std::string_view key) {
  size_t slash = key.find('/');
  if (slash == std::string_view::npos) return {};
  return key.substr(0, slash);
}

namespace {

bool EndsWith(std::string_view s, std::string_view suffix) {
  return s.size() >= suffix.size() && s.substr(s.size() - suffix.size()) == suffix;
}

std::string JoinBracketed(const std::vector<std::string>& items) {
  // Go's %v of a []string: "[a b c]".
  std::string out = "[";
  for (size_t i = 0; i < items.size(); ++i) {
    if (i) out += ' ';
    out += items[i];
  }
  return out + "]";
}

}  // namespace

bool IsRestrictedNodeLabel(std::string_view key, const LabelKeySet& well_known) {
  if (well_known.Contains(key)) return true;
  std::string_view domain = GetLabelDomain(key);
  // Suffix matching, as upstream: "foo.node.kubernetes.io" is an exception too, and
  // "example.k8s.io" is restricted.
  for (const std::string& exception : LabelDomainExceptions()) {
    if (EndsWith(domain, exception)) return false;
  }
  for (const std::string& restricted : RestrictedLabelDomains()) {
    if (EndsWith(domain, restricted)) return true;
  }
  return RestrictedLabels().Contains(key);
}

bool IsRestrictedNodeLabel(std::string_view key) {
  return IsRestrictedNodeLabel(key, WellKnownLabels());
}

core::Status IsRestrictedLabel(std::string_view key) {
  if (IsWellKnownLabel(key)) return core::Status::Ok();
  if (IsRestrictedNodeLabel(key)) {
    std::vector<std::string> domains = RestrictedLabelDomains();
    std::sort(domains.begin(), domains.end());
    return core::Status::Invalid(
        "label " + std::string(key) + " is restricted; specify a well known label: " +
        JoinBracketed(WellKnownLabels().keys()) +
        ", or a custom label that does not use a restricted domain: " + JoinBracketed(domains));
  }
  return core::Status::Ok();
}

std::string_view NormalizeLabelKey(std::string_view key) {
  struct Alias {
    std::string_view from;
    std::string_view to;
  };
  static constexpr Alias kAliases[] = {
      {"failure-domain.beta.kubernetes.io/zone", "topology.kubernetes.io/zone"},
      {"failure-domain.beta.kubernetes.io/region", "topology.kubernetes.io/region"},
      {"beta.kubernetes.io/arch", "kubernetes.io/arch"},
      {"beta.kubernetes.io/os", "kubernetes.io/os"},
      {"beta.kubernetes.io/instance-type", "node.kubernetes.io/instance-type"},
  };
  // Every alias contains "beta.kubernetes.io/"; most keys do not, so skip the table quickly.
  if (key.size() < 18 || key.find("beta.kubernetes.io/") == std::string_view::npos) return key;
  for (const Alias& a : kAliases) {
    if (a.from == key) return a.to;
  }
  return key;
}

}  // namespace nodesmith::scheduling
