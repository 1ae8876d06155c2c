#include "crds/crds.h"

#include <algorithm>

#include "api/yaml_json.h"

namespace nodesmith::crds {

std::vector<CustomResourceDefinition> AllDefinitions() {
  std::vector<CustomResourceDefinition> all = {NodePoolDefinition(), NodeClaimDefinition(),
                                               EC2NodeClassDefinition(), KWOKNodeClassDefinition()};
  std::sort(all.begin(), all.end(),
            [](const auto& a, const auto& b) { return a.Name() < b.Name(); });
  return all;
}

std::vector<nlohmann::ordered_json> AllCrds() {
  std::vector<nlohmann::ordered_json> out;
  for (const CustomResourceDefinition& d : AllDefinitions()) out.push_back(d.ToJson());
  return out;
}

std::string RenderYaml() {
  std::string out;
  for (const nlohmann::ordered_json& crd : AllCrds()) {
    if (!out.empty()) out += "---\n";
    out += api::EmitYaml(crd);
  }
  return out;
}

nlohmann::ordered_json RenderList() {
  nlohmann::ordered_json list;
  list["apiVersion"] = "v1";
  list["kind"] = "List";
  list["items"] = AllCrds();
  return list;
}

std::vector<CrdFile> RenderFiles() {
  std::vector<CrdFile> files;
  for (const CustomResourceDefinition& d : AllDefinitions()) {
    files.push_back({d.group + "_" + d.plural + ".yaml", api::EmitYaml(d.ToJson())});
  }
  return files;
}

}  // namespace nodesmith::crds
