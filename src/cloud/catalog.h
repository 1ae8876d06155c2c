// The one entry point for "which instance types can the cloud launch": the built-in `aws` and
// `kwok` catalogs, an InstanceTypeCatalog file, or an InstanceTypeCatalog object already decoded
// from the inputs (which takes precedence over --catalog, per the CLI contract).
#pragma once

#include <optional>
#include <string>
#include <string_view>

#include "api/ec2nodeclass.h"
#include "api/instance_type_catalog.h"
#include "cloud/instance_type.h"
#include "core/status.h"
#include "scheduling/well_known_labels.h"

namespace nodesmith::cloud {

struct CatalogSource {
  enum class Kind { kAws, kKwok, kFile, kObject };
  Kind kind = Kind::kAws;
  std::string path;                 // kFile
  api::InstanceTypeCatalog object;  // kObject

  // The --catalog flag: "aws", "kwok", anything else is a file path.
  static CatalogSource FromFlag(std::string_view flag);
  static CatalogSource FromObject(api::InstanceTypeCatalog catalog);
  // "aws", "kwok", the path, or "InstanceTypeCatalog/<name>".
  std::string Describe() const;
};

// A loaded catalog. Immutable after LoadCatalog; the types are shared, not copied.
struct Catalog {
  std::string source;            // CatalogSource::Describe()
  std::string region;            // the aws catalog's region; "" for the others
  InstanceTypes instance_types;  // sorted by name
  // Label keys the types define that the solver must treat as well-known (Karpenter's set, plus
  // the KWOK labels or the catalog's spec.wellKnownLabels).
  scheduling::LabelKeySet well_known_labels;
};

// Loads `source`. `region` applies to the aws catalog (default us-west-2 when empty); the
// node class's kubelet, AMI family and block device mappings change aws capacity and overhead
// (the other catalogs state their own). Errors are InvalidArgument (bad region, file or catalog
// content) or NotFound (missing file), with a message naming the file/field.
core::Result<Catalog> LoadCatalog(
    const CatalogSource& source, std::string_view region = "",
    const std::optional<api::EC2NodeClass>& node_class = std::nullopt);

}  // namespace nodesmith::cloud
