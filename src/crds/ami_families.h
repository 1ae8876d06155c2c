// The AMI families an EC2NodeClass alias may name ("al2023@latest"), with the amiFamily value
// each implies. The EC2NodeClass CRD derives its alias rules from this table.
#pragma once

#include <vector>

namespace nodesmith::crds {

struct AmiFamily {
  const char* ami_family;  // spec.amiFamily: "AL2023"
  const char* alias;       // the alias's family: "al2023"
  bool latest_only;        // only "@latest" may be named (Windows)
};

// In the order the CRD lists them.
inline const std::vector<AmiFamily>& AliasAmiFamilies() {
  static const std::vector<AmiFamily> kFamilies = {
      {"AL2", "al2", false},
      {"AL2023", "al2023", false},
      {"Bottlerocket", "bottlerocket", false},
      {"Windows2019", "windows2019", true},
      {"Windows2022", "windows2022", true},
      {"Windows2025", "windows2025", true},
  };
  return kFamilies;
}

}  // namespace nodesmith::crds
