#include "cli/inputs.h"

#include <ostream>
#include <sstream>

#include "api/manifest.h"
#include "kube/kubeconfig.h"
#include "kube/live_objects.h"
#include "kube/rest_client.h"

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

void AddInputAndClusterFlags(CLI::App* cmd, InputFlags* flags) {
  AddFileFlag(cmd, flags, /*files_required=*/false);
  AddOutputFlag(cmd, flags);
  AddCatalogFlags(cmd, flags);
  AddFeatureGatesFlag(cmd, flags);
  flags->live_cluster_flags = true;
  cmd->add_option("--kubeconfig", flags->kubeconfig,
                  "read the objects of a live cluster (read-only) with this kubeconfig");
  cmd->add_option("--context", flags->context, "the kubeconfig context of the live cluster");
}

namespace {

// Whether the command reads a live cluster: asked for with --kubeconfig or --context, or by
// KUBECONFIG when no files are given.
bool WantsLiveCluster(const InputFlags& flags) {
  if (!flags.live_cluster_flags) return false;
  if (!flags.kubeconfig.empty() || !flags.context.empty()) return true;
  return flags.files.empty() && kube::ProcessEnv("KUBECONFIG").has_value();
}

core::Result<api::ObjectSet> LoadLiveAndFiles(const InputFlags& flags) {
  kube::KubeconfigOptions options;
  options.kubeconfig = flags.kubeconfig;
  options.context = flags.context;
  auto config = kube::LoadKubeconfig(options);
  if (!config.ok()) return core::Status::Invalid(config.status().message());  // a bad flag or file
  std::vector<std::string> warnings = config->warnings;
  kube::RestClient client(config.value());
  std::string source = "cluster " + config->server;
  auto docs = kube::ReadClusterDocuments(client, source, &warnings);
  if (!docs.ok()) return docs.status();
  if (!flags.files.empty()) {
    auto file_docs = api::ReadDocuments(flags.files, &warnings);
    if (!file_docs.ok()) return file_docs.status();
    for (auto& d : *file_docs) docs->push_back(std::move(d));
  }
  return api::LoadDocuments(std::move(docs).value(), std::move(warnings));
}

}  // namespace

std::optional<api::ObjectSet> LoadInputsOrReport(const InputFlags& flags, std::ostream& err,
                                                 int* exit_code) {
  if (exit_code != nullptr) *exit_code = 2;
  bool live = WantsLiveCluster(flags);
  if (flags.files.empty() && !live) {
    err << (flags.live_cluster_flags
                ? "error: no inputs: give manifests with -f PATH or a cluster with --kubeconfig\n"
                : "error: no inputs: give manifests with -f PATH\n");
    return std::nullopt;
  }
  auto set = live ? LoadLiveAndFiles(flags) : api::LoadManifests(flags.files);
  if (!set.ok()) {
    if (exit_code != nullptr && live && set.status().code() != core::StatusCode::kInvalidArgument)
      *exit_code = 1;
    err << "error: " << set.status().message() << "\n";
    return std::nullopt;
  }
  for (const auto& w : set->warnings) err << "warning: " << w << "\n";
  return std::move(*set);
}

}  // namespace nodesmith::cli
