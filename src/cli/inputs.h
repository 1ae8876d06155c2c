// The input flags most subcommands share (-f, -o, --catalog, --region, --feature-gates) and the
// one way to load -f inputs: errors become one line on stderr (exit code 2 is the caller's to
// return), warnings one line each.
#pragma once

#include <iosfwd>
#include <optional>
#include <string>
#include <vector>

#include <CLI/CLI.hpp>

#include "api/object_set.h"
#include "controllers/feature_gates.h"
#include "core/status.h"

namespace nodesmith::cli {

struct InputFlags {
  std::vector<std::string> files;     // -f, repeatable: file, directory or "-"
  std::string output = "text";        // -o text|json
  std::string catalog = "aws";        // --catalog aws|kwok|FILE
  std::string region = "us-west-2";   // --region
  std::string feature_gates;          // --feature-gates, Karpenter's FEATURE_GATES syntax
  // A live cluster to read instead of, or with, the files (plan and disrupt only).
  bool live_cluster_flags = false;    // whether --kubeconfig / --context were offered
  std::string kubeconfig;             // --kubeconfig
  std::string context;                // --context
};

// Adds -f (required when `files_required`) to `cmd`.
CLI::Option* AddFileFlag(CLI::App* cmd, InputFlags* flags, bool files_required = true);
// Adds -o/--output restricted to text|json.
CLI::Option* AddOutputFlag(CLI::App* cmd, InputFlags* flags);
// Adds --catalog and --region.
void AddCatalogFlags(CLI::App* cmd, InputFlags* flags);
CLI::Option* AddFeatureGatesFlag(CLI::App* cmd, InputFlags* flags);
// All of the above.
void AddInputFlags(CLI::App* cmd, InputFlags* flags);
// All of the above, with -f optional and --kubeconfig / --context to read a live cluster
// (plan and disrupt: "Live clusters for the dry runs" in the CLI contract).
void AddInputAndClusterFlags(CLI::App* cmd, InputFlags* flags);

using controllers::FeatureGates;
using controllers::ParseFeatureGates;

// Loads flags.files and, when asked (--kubeconfig, --context, or KUBECONFIG with no -f), every
// object of the live cluster, read once and read-only. On failure prints "error: <message>" to `err` and returns nullopt; warnings
// are printed as "warning: <message>" either way.
// `exit_code`, when given, gets the exit code for a failure: 2 for bad input, 1 when the live
// cluster could not be read (unreachable, refused credentials, RBAC).
std::optional<api::ObjectSet> LoadInputsOrReport(const InputFlags& flags, std::ostream& err,
                                                 int* exit_code = nullptr);

}  // namespace nodesmith::cli
