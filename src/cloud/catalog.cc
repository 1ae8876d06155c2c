#include "cloud/catalog.h"

#include "api/manifest.h"
#include "cloud/aws_catalog.h"
#include "cloud/catalog_file.h"
#include "cloud/kwok_catalog.h"

namespace nodesmith::cloud {
namespace {

constexpr const char* kCatalogKind = "InstanceTypeCatalog";

// Reads the InstanceTypeCatalog documents of a file through the manifest loader (so a catalog
// file may be YAML or JSON, multi-document, a `kind: List`, or sit among other manifests, whose
// documents are ignored here).
core::Result<api::InstanceTypeCatalog> ReadCatalogFile(const std::string& path) {
  auto objects = api::LoadManifests({path});
  if (!objects.ok()) return objects.status();
  const auto& catalogs = objects->instance_type_catalogs;
  if (catalogs.empty()) {
    return core::Status::Invalid(path + ": no InstanceTypeCatalog document (apiVersion " +
                                 "nodesmith.dev/v1alpha1) in the catalog file");
  }
  // Several catalog documents form one catalog: their types and well-known labels are joined,
  // each type keeping the defaults of the document it came from.
  api::InstanceTypeCatalog merged = catalogs.front().object;
  for (size_t i = 1; i < catalogs.size(); ++i) {
    const api::InstanceTypeCatalog& c = catalogs[i].object;
    for (auto t : c.instance_types) {
      if (!t.overhead && c.default_overhead) t.overhead = c.default_overhead;
      if (!t.offerings) t.offerings = c.default_offerings;
      merged.instance_types.push_back(std::move(t));
    }
    for (const auto& k : c.well_known_labels) merged.well_known_labels.push_back(k);
  }
  return merged;
}

core::Result<Catalog> FromObject(const api::InstanceTypeCatalog& object, std::string source) {
  auto types = InstanceTypesFromCatalog(object);
  if (!types.ok()) return types.status().WithPrefix(source);
  return Catalog{std::move(source), "", std::move(*types), CatalogWellKnownLabels(object)};
}

}  // namespace

CatalogSource CatalogSource::FromFlag(std::string_view flag) {
  CatalogSource s;
  if (flag.empty() || flag == "aws") {
    s.kind = Kind::kAws;
  } else if (flag == "kwok") {
    s.kind = Kind::kKwok;
  } else {
    s.kind = Kind::kFile;
    s.path = std::string(flag);
  }
  return s;
}

CatalogSource CatalogSource::FromObject(api::InstanceTypeCatalog catalog) {
  CatalogSource s;
  s.kind = Kind::kObject;
  s.object = std::move(catalog);
  return s;
}

std::string CatalogSource::Describe() const {
  switch (kind) {
    case Kind::kAws:
      return "aws";
    case Kind::kKwok:
      return "kwok";
    case Kind::kFile:
      return path;
    case Kind::kObject:
      return std::string(kCatalogKind) + "/" + object.metadata.name;
  }
  return "aws";
}

core::Result<Catalog> LoadCatalog(const CatalogSource& source, std::string_view region,
                                  const std::optional<api::EC2NodeClass>& node_class) {
  switch (source.kind) {
    case CatalogSource::Kind::kAws: {
      AwsCatalogOptions options;
      if (!region.empty()) options.region = std::string(region);
      if (node_class) options.node_settings = Ec2NodeSettings::FromNodeClass(*node_class);
      auto types = AwsInstanceTypes(options);
      if (!types.ok()) {
        return node_class ? types.status().WithPrefix("EC2NodeClass " + node_class->metadata.name)
                          : types.status();
      }
      return Catalog{"aws", options.region, std::move(*types), scheduling::WellKnownLabels()};
    }
    case CatalogSource::Kind::kKwok:
      return Catalog{"kwok", "", KwokInstanceTypes(), KwokWellKnownLabels()};
    case CatalogSource::Kind::kFile: {
      auto object = ReadCatalogFile(source.path);
      if (!object.ok()) return object.status();
      return FromObject(*object, source.path);
    }
    case CatalogSource::Kind::kObject:
      return FromObject(source.object, source.Describe());
  }
  return core::Status::Internal("unknown catalog source");
}

}  // namespace nodesmith::cloud
