// Names for new NodeClaims: "<nodepool>-<5 chars>", derived from the NodeClaim's contents by a
// fixed hash (FNV-1a 64) so that the same plan always prints the same names. The suffix uses
// the alphabet Kubernetes uses for generated names (no vowels, no confusable digits).
#pragma once

#include <cstdint>
#include <string>
#include <vector>

namespace nodesmith::solver {

// `salt` is bumped by the caller to resolve the (unlikely) collision of two suffixes.
std::string NodeClaimName(const std::string& node_pool, const std::vector<std::string>& pods,
                          uint64_t salt = 0);

}  // namespace nodesmith::solver
