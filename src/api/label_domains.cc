#include "api/label_domains.h"

#include <algorithm>

namespace nodesmith::api {
namespace {

bool EndsWith(std::string_view s, std::string_view suffix) {
  return s.size() >= suffix.size() && s.substr(s.size() - suffix.size()) == suffix;
}

}  // namespace

std::string_view LabelDomain(std::string_view key) { return key.substr(0, key.find('/')); }

const std::vector<std::string>& AwsWellKnownLabels() {
  static const std::vector<std::string> kLabels = {
      "karpenter.k8s.aws/ec2nodeclass",
      "karpenter.k8s.aws/capacity-reservation-id",
      "karpenter.k8s.aws/capacity-reservation-type",
      "karpenter.k8s.aws/instance-tenancy",
      "karpenter.k8s.aws/instance-encryption-in-transit-supported",
      "karpenter.k8s.aws/instance-category",
      "karpenter.k8s.aws/instance-hypervisor",
      "karpenter.k8s.aws/instance-family",
      "karpenter.k8s.aws/instance-generation",
      "karpenter.k8s.aws/instance-local-nvme",
      "karpenter.k8s.aws/instance-size",
      "karpenter.k8s.aws/instance-cpu",
      "karpenter.k8s.aws/instance-cpu-manufacturer",
      "karpenter.k8s.aws/instance-cpu-sustained-clock-speed-mhz",
      "karpenter.k8s.aws/instance-memory",
      "karpenter.k8s.aws/instance-ebs-bandwidth",
      "karpenter.k8s.aws/instance-network-bandwidth",
      "karpenter.k8s.aws/instance-gpu-name",
      "karpenter.k8s.aws/instance-gpu-manufacturer",
      "karpenter.k8s.aws/instance-gpu-count",
      "karpenter.k8s.aws/instance-gpu-memory",
      "karpenter.k8s.aws/instance-accelerator-name",
      "karpenter.k8s.aws/instance-accelerator-manufacturer",
      "karpenter.k8s.aws/instance-accelerator-count",
  };
  return kLabels;
}

std::string RestrictedLabelMessage(std::string_view key, LabelUse use) {
  std::string_view domain = LabelDomain(key);
  if (EndsWith(domain, "karpenter.sh") && key != "karpenter.sh/capacity-type" &&
      key != "karpenter.sh/nodepool") {
    return "label domain \"karpenter.sh\" is restricted";
  }
  if (use != LabelUse::kNodeClaimRequirement && key == "karpenter.sh/nodepool") {
    return "label \"karpenter.sh/nodepool\" is restricted";
  }
  if (key == "kubernetes.io/hostname") return "label \"kubernetes.io/hostname\" is restricted";
  if (EndsWith(domain, "karpenter.k8s.aws")) {
    const auto& known = AwsWellKnownLabels();
    if (std::find(known.begin(), known.end(), key) == known.end()) {
      return "label domain \"karpenter.k8s.aws\" is restricted";
    }
  }
  return "";
}

}  // namespace nodesmith::api
