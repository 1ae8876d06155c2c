// The plain-text tables the subcommands print for -o text: left-aligned columns, two spaces
// apart, no trailing padding, like kubectl get.
#pragma once

#include <string>
#include <vector>

namespace nodesmith::cli {

// Renders `rows` (the header, if any, is simply the first row) one line each. Rows may have
// different lengths; a column is as wide as its widest cell.
std::string Table(const std::vector<std::vector<std::string>>& rows);

}  // namespace nodesmith::cli
