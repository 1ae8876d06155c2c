// nodesmith: one binary, one subcommand per job (see docs/cli.md and the CLI contract).
#include <iostream>

#include <CLI/CLI.hpp>

#include "cli/command.h"

int main(int argc, char** argv) {
  using namespace nodesmith::cli;
  CLI::App app{"nodesmith: a Kubernetes node autoscaler that speaks Karpenter's API"};
  app.require_subcommand(1);
  int exit_code = kExitOk;
  RegisterConvert(app, &exit_code);
  RegisterCatalog(app, &exit_code);
  RegisterPlan(app, &exit_code);
  RegisterSimulate(app, &exit_code);
  RegisterDisrupt(app, &exit_code);
  RegisterCrds(app, &exit_code);
  RegisterController(app, &exit_code);
  try {
    app.parse(argc, argv);
  } catch (const CLI::CallForHelp& e) {
    return app.exit(e);
  } catch (const CLI::CallForAllHelp& e) {
    return app.exit(e);
  } catch (const CLI::ParseError& e) {
    app.exit(e);
    return kExitBadInput;
  }
  return exit_code;
}
