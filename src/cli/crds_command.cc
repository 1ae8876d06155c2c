// `nodesmith crds [-o yaml|json] [--dir DIR]`: prints the CustomResourceDefinitions nodesmith
// serves (a multi-document YAML stream, or a `kind: List` in JSON), or writes each to
// DIR/<group>_<plural>.yaml (how deploy/crds/ is made).
#include <filesystem>
#include <fstream>
#include <iostream>
#include <memory>
#include <system_error>

#include "cli/command.h"
#include "crds/crds.h"

namespace nodesmith::cli {

namespace {

struct CrdsFlags {
  std::string output = "yaml";
  std::string dir;
};

int WriteFiles(const std::string& dir) {
  namespace fs = std::filesystem;
  std::error_code ec;
  fs::create_directories(dir, ec);
  if (ec) {
    std::cerr << "error: --dir: cannot create " << dir << ": " << ec.message() << "\n";
    return kExitFailure;
  }
  for (const crds::CrdFile& file : crds::RenderFiles()) {
    fs::path path = fs::path(dir) / file.name;
    std::ofstream out(path, std::ios::binary | std::ios::trunc);
    out << file.yaml;
    out.close();
    if (!out) {
      std::cerr << "error: --dir: cannot write " << path.string() << "\n";
      return kExitFailure;
    }
    std::cout << path.string() << "\n";
  }
  std::cout.flush();
  return std::cout ? kExitOk : kExitFailure;
}

}  // namespace

void RegisterCrds(CLI::App& app, int* exit_code) {
  auto flags = std::make_shared<CrdsFlags>();
  CLI::App* cmd = app.add_subcommand(
      "crds",
      "print the CustomResourceDefinitions nodesmith serves (NodePool, NodeClaim, "
      "EC2NodeClass, KWOKNodeClass)");
  CLI::Option* output = cmd->add_option("-o,--output", flags->output, "output format: yaml or json")
                            ->check(CLI::IsMember({"yaml", "json"}));
  cmd->add_option("--dir", flags->dir, "write one <group>_<plural>.yaml per CRD into DIR instead")
      ->excludes(output);
  cmd->callback([flags, exit_code] {
    if (!flags->dir.empty()) {
      *exit_code = WriteFiles(flags->dir);
      return;
    }
    if (flags->output == "json") {
      std::cout << crds::RenderList().dump(2) << "\n";
    } else {
      std::cout << crds::RenderYaml();
    }
    std::cout.flush();
    *exit_code = std::cout ? kExitOk : kExitFailure;
  });
}

}  // namespace nodesmith::cli
