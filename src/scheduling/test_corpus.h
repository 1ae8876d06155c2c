// Test-only helpers for reading the shared semantics corpora (TSV rows) and naming
// parameterised cases. Included by *_test.cc files only.
#pragma once

#include <cctype>
#include <fstream>
#include <sstream>
#include <string>
#include <vector>

namespace nodesmith::scheduling::testing {

inline std::string SharedSemanticsPath(const std::string& file) {
  return std::string(NODESMITH_SHARED_DATA) + "/k8s/semantics/" + file;
}

inline std::string ReadFile(const std::string& path) {
  std::ifstream in(path);
  std::stringstream ss;
  ss << in.rdbuf();
  return ss.str();
}

inline std::vector<std::string> SplitTabs(const std::string& line) {
  std::vector<std::string> fields;
  size_t start = 0;
  while (true) {
    size_t tab = line.find('\t', start);
    fields.push_back(line.substr(start, tab == std::string::npos ? tab : tab - start));
    if (tab == std::string::npos) return fields;
    start = tab + 1;
  }
}

// Non-comment, non-empty lines of a TSV file, split on tabs. Lines starting with '#' are
// comments; the caller skips header rows it recognises.
inline std::vector<std::vector<std::string>> ReadTsv(const std::string& path) {
  std::vector<std::vector<std::string>> rows;
  std::ifstream in(path);
  std::string line;
  while (std::getline(in, line)) {
    if (!line.empty() && line.back() == '\r') line.pop_back();
    if (line.empty() || line[0] == '#') continue;
    rows.push_back(SplitTabs(line));
  }
  return rows;
}

// A GoogleTest-safe parameter name: alphanumerics kept, everything else '_', with the row
// index appended so names stay unique.
inline std::string CaseName(const std::string& text, size_t index) {
  std::string out;
  for (char c : text) {
    out += std::isalnum(static_cast<unsigned char>(c)) ? c : '_';
  }
  if (out.size() > 80) out.resize(80);
  return out + "_" + std::to_string(index);
}

}  // namespace nodesmith::scheduling::testing
