#include "crds/custom_resource_definition.h"

#include <algorithm>
#include <utility>

namespace nodesmith::crds {

using Json = nlohmann::ordered_json;

Json SortKeys(const Json& value) {
  if (value.is_array()) {
    Json out = Json::array();
    for (const Json& item : value) out.push_back(SortKeys(item));
    return out;
  }
  if (!value.is_object()) return value;
  std::vector<std::pair<std::string, const Json*>> fields;
  for (auto it = value.begin(); it != value.end(); ++it) fields.emplace_back(it.key(), &it.value());
  std::sort(fields.begin(), fields.end(),
            [](const auto& a, const auto& b) { return a.first < b.first; });
  Json out = Json::object();
  for (const auto& [key, child] : fields) out[key] = SortKeys(*child);
  return out;
}

nlohmann::ordered_json CustomResourceDefinition::ToJson() const {
  nlohmann::ordered_json names;
  if (!categories.empty()) names["categories"] = categories;
  names["kind"] = kind;
  names["listKind"] = kind + "List";
  names["plural"] = plural;
  if (!short_names.empty()) names["shortNames"] = short_names;
  names["singular"] = singular;

  nlohmann::ordered_json v;
  v["name"] = version;
  v["served"] = true;
  v["storage"] = true;
  if (!printer_columns.empty()) {
    nlohmann::ordered_json columns = nlohmann::ordered_json::array();
    for (const PrinterColumn& c : printer_columns) {
      nlohmann::ordered_json col;
      col["jsonPath"] = c.json_path;
      col["name"] = c.name;
      if (c.priority != 0) col["priority"] = c.priority;
      col["type"] = c.type;
      if (!c.description.empty()) col["description"] = c.description;
      columns.push_back(std::move(col));
    }
    v["additionalPrinterColumns"] = std::move(columns);
  }
  v["schema"]["openAPIV3Schema"] = schema.ToJson();
  if (status_subresource || scale) {
    nlohmann::ordered_json sub = nlohmann::ordered_json::object();
    if (status_subresource) sub["status"] = nlohmann::ordered_json::object();
    if (scale) {
      sub["scale"]["specReplicasPath"] = scale->spec_replicas_path;
      sub["scale"]["statusReplicasPath"] = scale->status_replicas_path;
    }
    v["subresources"] = std::move(sub);
  }

  nlohmann::ordered_json crd;
  crd["apiVersion"] = "apiextensions.k8s.io/v1";
  crd["kind"] = "CustomResourceDefinition";
  crd["metadata"]["name"] = Name();
  crd["spec"]["group"] = group;
  crd["spec"]["names"] = std::move(names);
  crd["spec"]["scope"] = scope;
  crd["spec"]["versions"] = nlohmann::ordered_json::array({std::move(v)});
  return SortKeys(crd);
}

}  // namespace nodesmith::crds
