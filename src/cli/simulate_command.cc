// `nodesmith simulate -f ... [-o text|json] [--report FILE.html] [--seed N]`: runs the
// controllers over the embedded cluster and simulated cloud in virtual time, following the
// Scenario among the inputs (sim/world.h), and prints the controller log (text) or the
// SimulationResult (json); --report also writes the HTML report. The wall clock is read here
// only, for the progress bar, which shows on a terminal once a run has taken more than a second.
#include <unistd.h>

#include <chrono>
#include <cstdio>
#include <fstream>
#include <iostream>
#include <memory>
#include <sstream>

#include <nlohmann/json.hpp>

#include "cli/command.h"
#include "cli/inputs.h"
#include "core/time.h"
#include "sim/report.h"
#include "sim/scenario.h"
#include "sim/world.h"

namespace nodesmith::cli {
namespace {

struct SimulateFlags {
  InputFlags inputs;
  std::string report;
  uint64_t seed = 0;
  bool check_invariants = false;  // hidden: for nodesmith's own tests and debugging
};

// Runs the world to its end, drawing a progress bar on stderr when it is a terminal and the
// run is slow enough for one to help.
void RunWithProgress(sim::World& world) {
  const bool tty = isatty(STDERR_FILENO) == 1;
  const auto wall_start = std::chrono::steady_clock::now();
  const core::Duration step = (world.end() - world.start()) / 200;
  bool drawn = false;
  while (!world.finished()) {
    world.RunUntil(step.count() > 0 ? world.Now() + step : world.end());
    if (!tty) continue;
    double elapsed =
        std::chrono::duration<double>(std::chrono::steady_clock::now() - wall_start).count();
    if (elapsed < 1.0) continue;
    double done = static_cast<double>((world.Now() - world.start()).count()) /
                  static_cast<double>((world.end() - world.start()).count());
    int filled = static_cast<int>(done * 30);
    std::fprintf(stderr, "\rsimulating [%s%s] %3d%% (%s virtual, %.1fs)",
                 std::string(filled, '#').c_str(), std::string(30 - filled, ' ').c_str(),
                 static_cast<int>(done * 100),
                 core::FormatDuration(world.Now() - world.start()).c_str(), elapsed);
    drawn = true;
  }
  if (drawn) std::fprintf(stderr, "\r\033[K");
}

int RunSimulate(const SimulateFlags& flags) {
  sim::WorldOptions options;
  options.catalog = flags.inputs.catalog;
  options.region = flags.inputs.region;
  options.seed = flags.seed;
  options.check_invariants = flags.check_invariants;
  core::Result<FeatureGates> gates = ParseFeatureGates(flags.inputs.feature_gates);
  if (!gates.ok()) {
    std::cerr << "error: " << gates.status().message() << "\n";
    return kExitBadInput;
  }
  // A report that cannot be written is known before the run, not after it (append: a report
  // already there stays whole until the run has produced the new one).
  if (!flags.report.empty() && !std::ofstream(flags.report, std::ios::binary | std::ios::app)) {
    std::cerr << "error: --report: cannot write " << flags.report << "\n";
    return kExitBadInput;
  }
  // Only SpotToSpotConsolidation changes what the simulated controllers do today.
  options.spot_to_spot_consolidation = gates->spot_to_spot_consolidation;
  std::optional<api::ObjectSet> objects = LoadInputsOrReport(flags.inputs, std::cerr);
  if (!objects) return kExitBadInput;
  core::Result<sim::Scenario> scenario = sim::ScenarioFromInputs(*objects);
  if (!scenario.ok()) {
    std::cerr << "error: " << scenario.status().message() << "\n";
    return kExitBadInput;
  }
  auto world = sim::World::Create(*objects, std::move(scenario).value(), options);
  if (!world.ok()) {
    std::cerr << "error: " << world.status().message() << "\n";
    auto code = world.status().code();
    return code == core::StatusCode::kInvalidArgument || code == core::StatusCode::kNotFound
               ? kExitBadInput
               : kExitFailure;
  }
  RunWithProgress(**world);

  if (!flags.report.empty()) {
    std::ofstream out(flags.report, std::ios::binary);
    if (!out) {
      std::cerr << "error: --report: cannot write " << flags.report << "\n";
      return kExitFailure;
    }
    sim::WriteHtmlReport(nlohmann::json::parse((*world)->Result(true).dump()), out);
    out.close();
    if (!out) {
      std::cerr << "error: --report: cannot write " << flags.report << "\n";
      return kExitFailure;
    }
  }
  if (flags.inputs.output == "json") {
    std::cout << (*world)->Result(true).dump(2) << "\n";
  } else {
    (*world)->WriteLog(std::cout);
  }
  std::cout.flush();
  if (!std::cout) return kExitFailure;
  // A broken invariant is a bug in nodesmith, not in the inputs: the run is a failure.
  const auto& violations = (*world)->invariant_violations();
  for (const auto& v : violations) {
    std::cerr << "invariant violated at " << core::FormatRfc3339(v.at) << ": " << v.invariant
              << ": " << v.message << "\n";
  }
  return violations.empty() ? kExitOk : kExitFailure;
}

}  // namespace

void RegisterSimulate(CLI::App& app, int* exit_code) {
  auto flags = std::make_shared<SimulateFlags>();
  CLI::App* cmd = app.add_subcommand(
      "simulate",
      "run the controllers over an embedded cluster and a simulated cloud, in virtual time, "
      "following the Scenario among the inputs");
  AddInputFlags(cmd, &flags->inputs);
  cmd->add_option("--report", flags->report, "also write an HTML report of the run to this file");
  cmd->add_option("--seed", flags->seed, "seed of the simulated cloud (instance ids, addresses)")
      ->check(CLI::NonNegativeNumber)  // "-1" would otherwise wrap to 2^64 - 1
      ->capture_default_str();
  cmd->add_flag("--check-invariants", flags->check_invariants,
                "check disruption budgets, orphaned instances and lost pods after every step; "
                "exit 1 when any is violated")
      ->group("");  // hidden
  cmd->callback([flags, exit_code] { *exit_code = RunSimulate(*flags); });
}

}  // namespace nodesmith::cli
