#include "core/http_header.h"

namespace nodesmith::core {

bool ParseHttpHeaderLine(std::string_view line, HttpHeaderField* field) {
  if (IsHttpStatusLine(line)) return false;
  const size_t colon = line.find(':');
  if (colon == std::string_view::npos || colon == 0) return false;
  field->name.assign(line.substr(0, colon));
  for (char& c : field->name) {
    if (c >= 'A' && c <= 'Z') c = static_cast<char>(c - 'A' + 'a');
  }
  std::string_view value = line.substr(colon + 1);
  while (!value.empty() && (value.front() == ' ' || value.front() == '\t')) value.remove_prefix(1);
  while (!value.empty() && (value.back() == '\r' || value.back() == '\n' || value.back() == ' ' ||
                            value.back() == '\t'))
    value.remove_suffix(1);
  field->value.assign(value);
  return true;
}

bool IsHttpStatusLine(std::string_view line) { return line.rfind("HTTP/", 0) == 0; }

}  // namespace nodesmith::core
