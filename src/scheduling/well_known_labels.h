// Well-known node label keys and the rules Karpenter applies to label keys: which keys it
// understands (well-known), which domains are reserved (restricted) and which legacy aliases it
// rewrites to their stable names. Mirrors kubernetes-sigs/karpenter pkg/apis/v1/labels.go plus
// the additions of the AWS provider (karpenter-provider-aws pkg/apis/v1/labels.go).
//
// The key constants are `const char*` so they work directly as api::Labels (std::map) keys.
// All functions are pure and thread-safe.
#pragma once

#include <initializer_list>
#include <string>
#include <string_view>
#include <vector>

#include "core/status.h"

namespace nodesmith::scheduling {

// --- Kubernetes (k8s.io/api/core/v1 well_known_labels.go) ---
inline constexpr const char* kLabelHostname = "kubernetes.io/hostname";
inline constexpr const char* kLabelTopologyZone = "topology.kubernetes.io/zone";
inline constexpr const char* kLabelTopologyRegion = "topology.kubernetes.io/region";
inline constexpr const char* kLabelInstanceTypeStable = "node.kubernetes.io/instance-type";
inline constexpr const char* kLabelArchStable = "kubernetes.io/arch";
inline constexpr const char* kLabelOSStable = "kubernetes.io/os";
inline constexpr const char* kLabelWindowsBuild = "node.kubernetes.io/windows-build";
// Deprecated aliases, rewritten by NormalizeLabelKey.
inline constexpr const char* kLabelFailureDomainBetaZone = "failure-domain.beta.kubernetes.io/zone";
inline constexpr const char* kLabelFailureDomainBetaRegion = "failure-domain.beta.kubernetes.io/region";
inline constexpr const char* kLabelInstanceTypeBeta = "beta.kubernetes.io/instance-type";
inline constexpr const char* kLabelArchBeta = "beta.kubernetes.io/arch";
inline constexpr const char* kLabelOSBeta = "beta.kubernetes.io/os";

// --- Karpenter (karpenter.sh) ---
inline constexpr const char* kKarpenterGroup = "karpenter.sh";
inline constexpr const char* kLabelNodePool = "karpenter.sh/nodepool";
inline constexpr const char* kLabelCapacityType = "karpenter.sh/capacity-type";
inline constexpr const char* kLabelNodeInitialized = "karpenter.sh/initialized";
inline constexpr const char* kLabelNodeRegistered = "karpenter.sh/registered";
inline constexpr const char* kLabelProvisionerNameLegacy = "karpenter.sh/provisioner-name";

// Well-known label values.
inline constexpr const char* kArchitectureAmd64 = "amd64";
inline constexpr const char* kArchitectureArm64 = "arm64";
inline constexpr const char* kCapacityTypeSpot = "spot";
inline constexpr const char* kCapacityTypeOnDemand = "on-demand";
inline constexpr const char* kCapacityTypeReserved = "reserved";

// --- AWS provider (karpenter.k8s.aws) ---
inline constexpr const char* kAwsGroup = "karpenter.k8s.aws";
inline constexpr const char* kLabelTopologyZoneId = "topology.k8s.aws/zone-id";
inline constexpr const char* kLabelInstanceHypervisor = "karpenter.k8s.aws/instance-hypervisor";
inline constexpr const char* kLabelInstanceEncryptionInTransitSupported =
    "karpenter.k8s.aws/instance-encryption-in-transit-supported";
inline constexpr const char* kLabelInstanceCategory = "karpenter.k8s.aws/instance-category";
inline constexpr const char* kLabelInstanceFamily = "karpenter.k8s.aws/instance-family";
inline constexpr const char* kLabelInstanceGeneration = "karpenter.k8s.aws/instance-generation";
inline constexpr const char* kLabelInstanceLocalNvme = "karpenter.k8s.aws/instance-local-nvme";
inline constexpr const char* kLabelInstanceSize = "karpenter.k8s.aws/instance-size";
inline constexpr const char* kLabelInstanceCpu = "karpenter.k8s.aws/instance-cpu";
inline constexpr const char* kLabelInstanceCpuManufacturer = "karpenter.k8s.aws/instance-cpu-manufacturer";
inline constexpr const char* kLabelInstanceCpuSustainedClockSpeedMhz =
    "karpenter.k8s.aws/instance-cpu-sustained-clock-speed-mhz";
inline constexpr const char* kLabelInstanceMemory = "karpenter.k8s.aws/instance-memory";
inline constexpr const char* kLabelInstanceEbsBandwidth = "karpenter.k8s.aws/instance-ebs-bandwidth";
inline constexpr const char* kLabelInstanceNetworkBandwidth =
    "karpenter.k8s.aws/instance-network-bandwidth";
inline constexpr const char* kLabelInstanceGpuName = "karpenter.k8s.aws/instance-gpu-name";
inline constexpr const char* kLabelInstanceGpuManufacturer =
    "karpenter.k8s.aws/instance-gpu-manufacturer";
inline constexpr const char* kLabelInstanceGpuCount = "karpenter.k8s.aws/instance-gpu-count";
inline constexpr const char* kLabelInstanceGpuMemory = "karpenter.k8s.aws/instance-gpu-memory";
inline constexpr const char* kLabelInstanceAcceleratorName =
    "karpenter.k8s.aws/instance-accelerator-name";
inline constexpr const char* kLabelInstanceAcceleratorManufacturer =
    "karpenter.k8s.aws/instance-accelerator-manufacturer";
inline constexpr const char* kLabelInstanceAcceleratorCount =
    "karpenter.k8s.aws/instance-accelerator-count";
inline constexpr const char* kLabelInstanceCapacityReservationId =
    "karpenter.k8s.aws/capacity-reservation-id";
inline constexpr const char* kLabelInstanceCapacityReservationType =
    "karpenter.k8s.aws/capacity-reservation-type";
inline constexpr const char* kLabelEc2NodeClass = "karpenter.k8s.aws/ec2nodeclass";

// An immutable set of label keys with fast membership tests (sorted flat vector; a few dozen
// keys). Used for the well-known label set, which an instance-type catalog may extend with its
// own keys (InstanceTypeCatalog spec.wellKnownLabels).
class LabelKeySet {
 public:
  LabelKeySet() = default;
  LabelKeySet(std::initializer_list<std::string> keys);
  explicit LabelKeySet(std::vector<std::string> keys);

  bool Contains(std::string_view key) const;
  // A new set holding this set's keys and `extra`.
  LabelKeySet With(const std::vector<std::string>& extra) const;
  // Sorted, unique.
  const std::vector<std::string>& keys() const { return keys_; }
  size_t size() const { return keys_.size(); }
  bool empty() const { return keys_.empty(); }
  // True when this set is known to hold every key of WellKnownLabels() (it was made by With()
  // from it), so a key with Requirement::well_known() is in it without a lookup.
  bool includes_well_known() const { return includes_well_known_; }

 private:
  std::vector<std::string> keys_;
  bool includes_well_known_ = false;
};

// Karpenter's v1.WellKnownLabels with the AWS provider's additions: labels in restricted domains
// that Karpenter understands and that NodePools and pods may use to narrow instance selection.
const LabelKeySet& WellKnownLabels();
bool IsWellKnownLabel(std::string_view key);

// Domains reserved by Kubernetes, Karpenter and the AWS provider (kubernetes.io, k8s.io,
// karpenter.sh, karpenter.k8s.aws). A key whose domain ends with one of these is restricted.
const std::vector<std::string>& RestrictedLabelDomains();
// Sub-domains of the restricted domains that remain usable (node.kubernetes.io,
// node-restriction.kubernetes.io, kops.k8s.io).
const std::vector<std::string>& LabelDomainExceptions();
// Individual keys that are restricted whatever their domain (kubernetes.io/hostname).
const LabelKeySet& RestrictedLabels();

// The domain (prefix before '/') of a label key; "" when the key has no prefix.
std::string_view GetLabelDomain(std::string_view key);

// Ok when `key` may be used in a NodePool's requirements or labels; otherwise an
// InvalidArgument status saying why and which keys are allowed instead (Karpenter's
// IsRestrictedLabel message).
core::Status IsRestrictedLabel(std::string_view key);

// True when Karpenter must not set `key` on a node itself: well-known labels (the cloud
// provider injects them), keys in restricted domains (except the exceptions), and restricted
// keys. Used to drop such keys from the labels derived from requirements.
bool IsRestrictedNodeLabel(std::string_view key);
// As above, with a catalog-extended well-known set.
bool IsRestrictedNodeLabel(std::string_view key, const LabelKeySet& well_known);

// The stable key for a deprecated alias (beta.kubernetes.io/arch -> kubernetes.io/arch,
// failure-domain.beta.kubernetes.io/zone -> topology.kubernetes.io/zone, ...); other keys are
// returned unchanged. The returned view refers to static storage or to `key`.
std::string_view NormalizeLabelKey(std::string_view key);

}  // namespace nodesmith::scheduling
