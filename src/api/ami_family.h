// The AMI families karpenter.k8s.aws/v1 can name by alias, in both spellings: the amiFamily
// value ("AL2023") and the alias family ("al2023", as in "al2023@latest"). One table serves the
// decoder (which infers amiFamily from an alias) and the legacy converter (which turns a legacy
// amiFamily into an alias), so the two directions cannot drift apart.
#pragma once

#include <string>

namespace nodesmith::api {

// The amiFamily an alias implies ("al2023@latest" => "AL2023"); "" for an unknown family.
std::string AmiFamilyOfAlias(const std::string& alias);

// The "@latest" alias for an amiFamily ("AL2023" => "al2023@latest"); "" when the family has no
// alias (Custom, Ubuntu, unknown).
std::string LatestAliasOfAmiFamily(const std::string& family);

}  // namespace nodesmith::api
