// An InstanceTypeCatalog file (`--catalog FILE`, or a catalog among `-f` inputs) on arbitrary
// text: loaded as the CLI loads manifests, then every catalog turned into instance types
// (InstanceTypesFromCatalog: requirements from labels, offerings, overhead subtracted from
// capacity). Both steps must end in a value or a clean error; the quantities and prices are the
// file's to choose.
#include <cstddef>
#include <cstdint>
#include <string_view>

#include "api/manifest.h"
#include "cloud/catalog_file.h"

extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size) {
  const std::string_view text(reinterpret_cast<const char*>(data), size);
  auto inputs = nodesmith::api::LoadManifestsFromString(text, "catalog.yaml");
  if (!inputs.ok()) return 0;
  for (const auto& catalog : inputs->instance_type_catalogs) {
    auto types = nodesmith::cloud::InstanceTypesFromCatalog(catalog.object);
    (void)nodesmith::cloud::CatalogWellKnownLabels(catalog.object);
    if (!types.ok()) continue;
    for (const auto& type : *types) {
      // What the solver reads of every type; UBSan checks the arithmetic behind it.
      (void)type->allocatable.Get("cpu").MilliValue();
      (void)type->allocatable.Get("memory").Value();
      (void)type->allocatable.Get("pods").Value();
    }
  }
  return 0;
}
