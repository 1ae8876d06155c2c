#include "cli/inputs.h"

#include <ostream>
#include <sstream>

#include "api/manifest.h"

namespace nodesmith::cli {

CLI::Option* AddFileFlag(CLI::App* cmd, InputFlags* flags, bool files_required) {
  CLI::Option* opt = cmd->add_option("-f,--filename", flags->files,
                                     "manifest file, directory (*.yaml, *.yml, *.json, recursively) or - for stdin; "
                                     "repeatable");
  if (files_required) opt->required();
  return opt;
}

CLI::Option* AddOutputFlag(CLI::App* cmd, InputFlags* flags) {
  return cmd->add_option("-o,--output", flags->output, "output format: text or json")
      ->check(CLI::IsMember({"text", "json"}))
      ->capture_default_str();
}

void AddCatalogFlags(CLI::App* cmd, InputFlags* flags) {
  cmd->add_option("--catalog", flags->catalog,
                  "instance types: aws, kwok or an InstanceTypeCatalog file (one among the inputs wins)")
      ->capture_default_str();
  cmd->add_option("--region", flags->region, "AWS region of the aws catalog")->capture_default_str();
}

CLI::Option* AddFeatureGatesFlag(CLI::App* cmd, InputFlags* flags) {
  return cmd->add_option("--feature-gates", flags->feature_gates,
                         "Karpenter feature gates, e.g. SpotToSpotConsolidation=true,NodeRepair=false");
}

void AddInputFlags(CLI::App* cmd, InputFlags* flags) {
  AddFileFlag(cmd, flags);
  AddOutputFlag(cmd, flags);
  AddCatalogFlags(cmd, flags);
  AddFeatureGatesFlag(cmd, flags);
}

core::Result<FeatureGates> ParseFeatureGates(const std::string& text) {
  static const char* const kKnown[] = {"SpotToSpotConsolidation", "NodeRepair",
                                       "ReservedCapacity", "NodeOverlay", "StaticCapacity"};
  FeatureGates gates;
  std::stringstream in(text);
  std::string item;
  while (std::getline(in, item, ',')) {
    if (item.empty()) continue;
    auto eq = item.find('=');
    std::string name = item.substr(0, eq);
    std::string value = eq == std::string::npos ? "" : item.substr(eq + 1);
    bool known = false;
    for (const char* k : kKnown) known = known || name == k;
    if (!known) return core::Status::Invalid("--feature-gates: unknown feature gate " + name);
    if (value != "true" && value != "false") {
      return core::Status::Invalid("--feature-gates: " + name + " must be true or false");
    }
    if (name == "SpotToSpotConsolidation") gates.spot_to_spot_consolidation = value == "true";
    if (name == "NodeRepair") gates.node_repair = value == "true";
  }
  return gates;
}

std::optional<api::ObjectSet> LoadInputsOrReport(const InputFlags& flags, std::ostream& err) {
  if (flags.files.empty()) {
    err << "error: no inputs: give manifests with -f PATH\n";
    return std::nullopt;
  }
  auto set = api::LoadManifests(flags.files);
  if (!set.ok()) {
    err << "error: " << set.status().message() << "\n";
    return std::nullopt;
  }
  for (const auto& w : set->warnings) err << "warning: " << w << "\n";
  return std::move(*set);
}

}  // namespace nodesmith::cli
