// The nodesmith subcommands and what they share: exit codes, input flags, loading inputs.
//
// Each subcommand lives in its own file and registers itself on the CLI11 app through a
// Register* function; main.cc is the only place that lists them. A command's callback stores
// its exit code in `*exit_code`.
#pragma once

#include <iosfwd>
#include <optional>
#include <string>
#include <vector>

#include <CLI/CLI.hpp>

#include "api/object_set.h"

namespace nodesmith::cli {

inline constexpr int kExitOk = 0;
inline constexpr int kExitFailure = 1;   // a runtime failure
inline constexpr int kExitBadInput = 2;  // bad input or bad flags

void RegisterConvert(CLI::App& app, int* exit_code);
void RegisterCatalog(CLI::App& app, int* exit_code);
void RegisterPlan(CLI::App& app, int* exit_code);
void RegisterSimulate(CLI::App& app, int* exit_code);
void RegisterDisrupt(CLI::App& app, int* exit_code);
void RegisterCrds(CLI::App& app, int* exit_code);
void RegisterController(CLI::App& app, int* exit_code);

}  // namespace nodesmith::cli
