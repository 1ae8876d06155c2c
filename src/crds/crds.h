// The CustomResourceDefinitions nodesmith serves, as Karpenter's v1 CRDs define them:
// karpenter.sh/v1 NodePool and NodeClaim, karpenter.k8s.aws/v1 EC2NodeClass, and
// karpenter.kwok.sh/v1alpha1 KWOKNodeClass (the node class of the kwok cloud provider). Each is
// written out in its own file from the schema builder; deploy/crds/ holds their rendering.
#pragma once

#include <nlohmann/json.hpp>
#include <string>
#include <utility>
#include <vector>

#include "crds/custom_resource_definition.h"

namespace nodesmith::crds {

CustomResourceDefinition NodePoolDefinition();
CustomResourceDefinition NodeClaimDefinition();
CustomResourceDefinition EC2NodeClassDefinition();
CustomResourceDefinition KWOKNodeClassDefinition();

// Every definition above, sorted by name (<plural>.<group>).
std::vector<CustomResourceDefinition> AllDefinitions();

// Each definition's CustomResourceDefinition object, in the order of AllDefinitions().
std::vector<nlohmann::ordered_json> AllCrds();

// All CRDs as one multi-document YAML stream, and as a `kind: List` (what `-o json` prints).
std::string RenderYaml();
nlohmann::ordered_json RenderList();

// The file a definition is written to, "<group>_<plural>.yaml", and its text.
struct CrdFile {
  std::string name;
  std::string yaml;
};
std::vector<CrdFile> RenderFiles();

}  // namespace nodesmith::crds
