#include "scheduling/label_syntax.h"

namespace nodesmith::scheduling {

namespace {

bool IsAlnum(char c) {
  return (c >= 'a' && c <= 'z') || (c >= 'A' && c <= 'Z') || (c >= '0' && c <= '9');
}

// ([A-Za-z0-9][-A-Za-z0-9_.]*)?[A-Za-z0-9] — non-empty.
bool MatchesQualifiedNamePart(std::string_view s) {
  if (s.empty() || !IsAlnum(s.front()) || !IsAlnum(s.back())) return false;
  for (char c : s) {
    if (!IsAlnum(c) && c != '-' && c != '_' && c != '.') return false;
  }
  return true;
}

bool IsLowerAlnum(char c) { return (c >= 'a' && c <= 'z') || (c >= '0' && c <= '9'); }

// [a-z0-9]([-a-z0-9]*[a-z0-9])?(\.[a-z0-9]([-a-z0-9]*[a-z0-9])?)*
bool MatchesDns1123Subdomain(std::string_view s) {
  if (s.empty()) return false;
  size_t start = 0;
  while (true) {
    size_t dot = s.find('.', start);
    std::string_view label = s.substr(start, dot == std::string_view::npos ? s.npos : dot - start);
    if (label.empty() || !IsLowerAlnum(label.front()) || !IsLowerAlnum(label.back())) return false;
    for (char c : label) {
      if (!IsLowerAlnum(c) && c != '-') return false;
    }
    if (dot == std::string_view::npos) return true;
    start = dot + 1;
  }
}

constexpr const char* kQualifiedNameFmt =
    "must consist of alphanumeric characters, '-', '_' or '.', and must start and end with an "
    "alphanumeric character (e.g. 'MyName',  or 'my.name',  or '123-abc', regex used for "
    "validation is '([A-Za-z0-9][-A-Za-z0-9_.]*)?[A-Za-z0-9]')";

}  // namespace

std::string Dns1123SubdomainError(std::string_view s) {
  if (s.size() > 253) return "must be no more than 253 characters";
  if (!MatchesDns1123Subdomain(s)) {
    return "a lowercase RFC 1123 subdomain must consist of lower case alphanumeric characters, "
           "'-' or '.', and must start and end with an alphanumeric character (e.g. "
           "'example.com', regex used for validation is "
           "'[a-z0-9]([-a-z0-9]*[a-z0-9])?(\\.[a-z0-9]([-a-z0-9]*[a-z0-9])?)*')";
  }
  return "";
}

std::string QualifiedNameError(std::string_view key) {
  std::string_view name = key;
  size_t slash = key.find('/');
  if (slash != std::string_view::npos) {
    if (key.find('/', slash + 1) != std::string_view::npos) {
      return std::string("a qualified name ") + kQualifiedNameFmt +
             " with an optional DNS subdomain prefix and '/' (e.g. 'example.com/MyName')";
    }
    std::string_view prefix = key.substr(0, slash);
    name = key.substr(slash + 1);
    if (prefix.empty()) return "prefix part must be non-empty";
    if (std::string why = Dns1123SubdomainError(prefix); !why.empty()) {
      return "prefix part " + why;
    }
  }
  if (name.empty()) return "name part must be non-empty";
  if (name.size() > 63) return "name part must be no more than 63 characters";
  if (!MatchesQualifiedNamePart(name)) return std::string("name part ") + kQualifiedNameFmt;
  return "";
}

std::string LabelValueError(std::string_view value) {
  if (value.size() > 63) return "must be no more than 63 characters";
  if (!value.empty() && !MatchesQualifiedNamePart(value)) {
    return "a valid label must be an empty string or consist of alphanumeric characters, '-', "
           "'_' or '.', and must start and end with an alphanumeric character (e.g. 'MyValue',  "
           "or 'my_value',  or '12345', regex used for validation is "
           "'(([A-Za-z0-9][-A-Za-z0-9_.]*)?[A-Za-z0-9])?')";
  }
  return "";
}

}  // namespace nodesmith::scheduling
