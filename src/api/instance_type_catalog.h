// InstanceTypeCatalog (nodesmith.dev/v1alpha1): a user-supplied list of instance types with
// capacity, labels, requirements, overhead and offerings (see the CLI contract). The cloud
// layer turns it into cloud::InstanceType values.
#pragma once

#include <optional>
#include <string>
#include <vector>

#include "api/meta.h"
#include "api/resource_list.h"
#include "api/selector.h"

namespace nodesmith::api {

struct CatalogOverhead {
  ResourceList kube_reserved;
  ResourceList system_reserved;
  ResourceList eviction_threshold;
};

struct CatalogOffering {
  std::string zone;
  std::string capacity_type;     // spot | on-demand | reserved
  std::optional<double> price;   // USD per hour; absent => the type's own price
  bool available = true;
};

struct CatalogInstanceType {
  std::string name;
  ResourceList capacity;
  std::optional<double> price;
  Labels labels;
  std::vector<NodeSelectorRequirement> requirements;
  std::optional<CatalogOverhead> overhead;
  std::optional<std::vector<CatalogOffering>> offerings;  // absent => defaults.offerings
};

struct InstanceTypeCatalog {
  ObjectMeta metadata;
  std::vector<std::string> well_known_labels;
  std::optional<CatalogOverhead> default_overhead;
  std::vector<CatalogOffering> default_offerings;
  std::vector<CatalogInstanceType> instance_types;
};

}  // namespace nodesmith::api
