// Conversion of manifests to current API versions as text: what `nodesmith convert` prints.
#pragma once

#include <string>
#include <vector>

#include <nlohmann/json_fwd.hpp>

#include "api/object_set.h"
#include "core/status.h"

namespace nodesmith::api {

// Multi-document YAML for `docs` (as ReadDocuments returns them, legacy kinds already
// converted), in order. Each object of a kind nodesmith understands is decoded, defaulted,
// validated and encoded again, so defaults appear explicitly; documents of other kinds, and
// Scenarios, are printed as given. Fails with the one-line message of the first invalid object.
core::Result<std::string> ConvertToYaml(const std::vector<Sourced<nlohmann::ordered_json>>& docs);

}  // namespace nodesmith::api
