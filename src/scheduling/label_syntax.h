// Syntax rules for label keys and values (k8s.io/apimachinery/pkg/util/validation
// IsQualifiedName, IsValidLabelValue, IsDNS1123Subdomain). Each returns "" when valid, else the
// upstream explanation, so callers can build messages like "invalid value X for key K, <why>".
#pragma once

#include <string>
#include <string_view>

namespace nodesmith::scheduling {

// A label key: an optional DNS-1123 subdomain prefix (<= 253 chars) and '/', then a name of
// 1..63 alphanumerics, '-', '_', '.', starting and ending alphanumeric.
std::string QualifiedNameError(std::string_view key);
// A label value: empty, or up to 63 alphanumerics, '-', '_', '.', starting and ending
// alphanumeric.
std::string LabelValueError(std::string_view value);
// A lowercase RFC 1123 subdomain (<= 253 chars).
std::string Dns1123SubdomainError(std::string_view s);

inline bool IsQualifiedName(std::string_view key) { return QualifiedNameError(key).empty(); }
inline bool IsValidLabelValue(std::string_view value) { return LabelValueError(value).empty(); }

}  // namespace nodesmith::scheduling
