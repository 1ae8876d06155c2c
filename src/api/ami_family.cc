#include "api/ami_family.h"

namespace nodesmith::api {
namespace {

struct AmiFamilyNames {
  const char* family;  // amiFamily spelling
  const char* alias;   // alias spelling, before the '@'
};

constexpr AmiFamilyNames kAliasedFamilies[] = {
    {"AL2", "al2"},
    {"AL2023", "al2023"},
    {"Bottlerocket", "bottlerocket"},
    {"Windows2019", "windows2019"},
    {"Windows2022", "windows2022"},
    {"Windows2025", "windows2025"},
};

}  // namespace

std::string AmiFamilyOfAlias(const std::string& alias) {
  const std::string name = alias.substr(0, alias.find('@'));
  for (const AmiFamilyNames& f : kAliasedFamilies) {
    if (name == f.alias) return f.family;
  }
  return "";
}

std::string LatestAliasOfAmiFamily(const std::string& family) {
  for (const AmiFamilyNames& f : kAliasedFamilies) {
    if (family == f.family) return std::string(f.alias) + "@latest";
  }
  return "";
}

}  // namespace nodesmith::api
