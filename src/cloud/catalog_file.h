// Builds instance types from an InstanceTypeCatalog document (nodesmith.dev/v1alpha1), per the
// CLI contract:
//   - requirements: each label `In [value]`, the type's `requirements`, then (NewInstanceType)
//     instance-type In [name], zone In [available zones], capacity-type In [available types];
//   - overhead: the type's own, else spec.defaults.overhead, else none;
//   - offerings: the type's own, else spec.defaults.offerings; an offering without a price takes
//     the type's price (0 when the type has none either);
//   - capacity: as given, with pods defaulting to 110 (the Kubernetes default, as Karpenter's
//     KWOK provider does) when absent;
//   - allocatable = capacity − kubeReserved − systemReserved − evictionThreshold.
#pragma once

#include <string>
#include <vector>

#include "api/instance_type_catalog.h"
#include "cloud/instance_type.h"
#include "core/status.h"
#include "scheduling/well_known_labels.h"

namespace nodesmith::cloud {

// The types of `catalog`, sorted by name. Fails (InvalidArgument, naming the type and field) on
// an invalid requirement, an unknown capacity type, or a duplicate type name.
core::Result<InstanceTypes> InstanceTypesFromCatalog(const api::InstanceTypeCatalog& catalog);

// The well-known labels extended with the catalog's spec.wellKnownLabels.
scheduling::LabelKeySet CatalogWellKnownLabels(const api::InstanceTypeCatalog& catalog);

}  // namespace nodesmith::cloud
