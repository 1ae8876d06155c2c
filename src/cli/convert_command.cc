// `nodesmith convert -f OLD...`: prints the karpenter.sh/v1 and karpenter.k8s.aws/v1 equivalents
// of the inputs as multi-document YAML (legacy objects converted, others as they are).
#include <iostream>
#include <memory>

#include "api/convert.h"
#include "api/manifest.h"
#include "cli/command.h"
#include "cli/inputs.h"

namespace nodesmith::cli {

void RegisterConvert(CLI::App& app, int* exit_code) {
  auto flags = std::make_shared<InputFlags>();
  CLI::App* cmd = app.add_subcommand(
      "convert", "print the v1 equivalents of legacy Karpenter objects (Provisioner, AWSNodeTemplate, v1beta1, ...)");
  AddFileFlag(cmd, flags.get());
  cmd->callback([flags, exit_code] {
    std::vector<std::string> warnings;
    auto docs = api::ReadDocuments(flags->files, &warnings);
    core::Result<std::string> yaml = docs.ok() ? api::ConvertToYaml(*docs) : core::Result<std::string>(docs.status());
    for (const auto& w : warnings) std::cerr << "warning: " << w << "\n";
    if (!yaml.ok()) {
      std::cerr << "error: " << yaml.status().message() << "\n";
      *exit_code = kExitBadInput;
      return;
    }
    std::cout << *yaml;
    std::cout.flush();
    *exit_code = std::cout ? kExitOk : kExitFailure;
  });
}

}  // namespace nodesmith::cli
