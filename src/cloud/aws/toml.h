// TOML, as far as Bottlerocket settings need it: a reader and a writer, so nodesmith can merge
// a user's Bottlerocket user data with its own settings (user_data.h).
//
// Supported: tables and dotted table headers, dotted and quoted keys, basic and literal strings
// (also multi-line), integers (decimal, 0x, 0o, 0b, underscores), booleans, arrays of any of
// these (nested, spread over lines), inline tables, comments. Rejected with an error: floats,
// dates and times, arrays of tables ([[...]]), and redefinitions, which TOML forbids. Nesting
// deeper than kMaxTomlDepth levels (header and dotted-key parts, inline tables and arrays
// together) is an error too: user data is the EC2NodeClass author's, and each level costs the
// reader and the writer a stack frame.
#pragma once

#include <cstdint>
#include <map>
#include <string>
#include <string_view>
#include <variant>
#include <vector>

#include "core/status.h"

namespace nodesmith::aws {

// Far beyond Bottlerocket's settings, which nest about five levels.
inline constexpr int kMaxTomlDepth = 128;

struct TomlValue;
using TomlTable = std::map<std::string, TomlValue>;
using TomlArray = std::vector<TomlValue>;

struct TomlValue {
  std::variant<std::string, int64_t, bool, TomlArray, TomlTable> value;

  TomlValue() : value(TomlTable{}) {}
  TomlValue(std::string s) : value(std::move(s)) {}  // NOLINT: implicit by design
  TomlValue(const char* s) : value(std::string(s)) {}  // NOLINT
  TomlValue(int i) : value(int64_t{i}) {}            // NOLINT
  TomlValue(int64_t i) : value(i) {}                 // NOLINT
  TomlValue(bool b) : value(b) {}                    // NOLINT
  TomlValue(TomlArray a) : value(std::move(a)) {}    // NOLINT
  TomlValue(TomlTable t) : value(std::move(t)) {}    // NOLINT

  bool is_table() const { return std::holds_alternative<TomlTable>(value); }
  // REQUIRES: is_table()
  TomlTable& table() { return std::get<TomlTable>(value); }
  const TomlTable& table() const { return std::get<TomlTable>(value); }

  bool operator==(const TomlValue&) const = default;
};

// The document as its root table. Errors carry the line number.
core::Result<TomlTable> ParseToml(std::string_view text);

// `root` as a TOML document: in every table its plain keys first, then its sub-tables as
// [dotted.headers], all in key order; a table holding only sub-tables gets no header of its own.
// Tables inside arrays are written inline. ParseToml(WriteToml(t)) == t.
std::string WriteToml(const TomlTable& root);

}  // namespace nodesmith::aws
