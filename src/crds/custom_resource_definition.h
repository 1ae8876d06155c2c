// CustomResourceDefinition: one apiextensions.k8s.io/v1 CRD with a single served and stored
// version — its names, scope, the columns `kubectl get` prints, its subresources and its schema.
//
// ToJson() renders it with every object's keys sorted, so the text is the same on every run and
// does not depend on the order the schema was built in (list order, e.g. of enums, is kept).
#pragma once

#include <nlohmann/json.hpp>
#include <optional>
#include <string>
#include <vector>

#include "crds/schema.h"

namespace nodesmith::crds {

// An additionalPrinterColumns entry. Columns with priority > 0 show only with `-o wide`.
struct PrinterColumn {
  std::string name;
  std::string type;  // string, integer, number, boolean, date
  std::string json_path;
  int priority = 0;
  std::string description;
};

// The scale subresource: what `kubectl scale` sets and reads.
struct ScaleSubresource {
  std::string spec_replicas_path;
  std::string status_replicas_path;
};

struct CustomResourceDefinition {
  std::string group;
  std::string version;
  std::string kind;
  std::string plural;
  std::string singular;
  std::vector<std::string> short_names;
  std::vector<std::string> categories;
  std::string scope = "Cluster";
  std::vector<PrinterColumn> printer_columns;
  bool status_subresource = true;
  std::optional<ScaleSubresource> scale;
  Schema schema = Schema::Object();

  // "<plural>.<group>", the CRD's metadata.name.
  std::string Name() const { return plural + "." + group; }
  nlohmann::ordered_json ToJson() const;
};

// `value` with the keys of every object in it sorted; arrays keep their order.
nlohmann::ordered_json SortKeys(const nlohmann::ordered_json& value);

}  // namespace nodesmith::crds
