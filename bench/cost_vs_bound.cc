// cost_vs_bound: what nodesmith's plans cost against the LP lower bound (solver/lower_bound.h)
// on the workloads of bench/cost_workloads.h, printed as a table (docs/PERFORMANCE.md quotes it).
//
//   cost_vs_bound [--scenarios kwok-basic,openb,mixed] [--scale 1.0] [--runs 5]
//                 [--openb PATH] [--max-ratio R] [--check] [--types]
//
// Per scenario: pods, pods placed, new NodeClaims, the plan's price per hour, the lower bound,
// their ratio, the price of the plan without the repacking pass (SchedulerOptions::repack off:
// Karpenter's packing) and of plain first-fit decreasing where it applies (one NodePool), each
// over the bound, and the median wall and thread-CPU time of a solve with the bound switched off
// and of one with it on (as `nodesmith plan` runs it); "no-repack cpu s" is the median CPU time
// without the pass. --check exits 1 when a pod is left unscheduled or, with
// --max-ratio, when price / bound exceeds R.
#include <cstdio>
#include <cstdlib>
#include <map>
#include <sstream>
#include <string>
#include <vector>

#include "bench_util.h"
#include "cost_workloads.h"
#include "workloads.h"

#ifndef NODESMITH_SHARED_DATA
#define NODESMITH_SHARED_DATA "../shared/data"
#endif

namespace nodesmith::bench {
namespace {

struct Flags {
  std::vector<std::string> scenarios = {"kwok-basic", "openb", "mixed"};
  double scale = 1.0;
  int runs = 5;
  std::string openb = std::string(NODESMITH_SHARED_DATA) + "/traces/openb/openb_pod_list_default.csv";
  double max_ratio = 0;  // 0: not checked
  bool check = false;
  bool types = false;  // also print how many NodeClaims launch each instance type
};

[[noreturn]] void Usage(const std::string& message) {
  std::fprintf(stderr,
               "%s\nusage: cost_vs_bound [--scenarios kwok-basic,openb,mixed] [--scale S] [--runs R]\n"
               "       [--openb PATH] [--max-ratio R] [--check] [--types]\n",
               message.c_str());
  std::exit(64);
}

Flags ParseFlags(int argc, char** argv) {
  Flags f;
  for (int i = 1; i < argc; ++i) {
    const std::string arg = argv[i];
    auto value = [&]() -> std::string {
      if (i + 1 >= argc) Usage("missing value for " + arg);
      return argv[++i];
    };
    if (arg == "--scenarios") {
      f.scenarios.clear();
      std::stringstream in(value());
      for (std::string item; std::getline(in, item, ',');) f.scenarios.push_back(item);
    } else if (arg == "--scale") {
      f.scale = std::stod(value());
    } else if (arg == "--runs") {
      f.runs = std::max(1, std::stoi(value()));
    } else if (arg == "--openb") {
      f.openb = value();
    } else if (arg == "--max-ratio") {
      f.max_ratio = std::stod(value());
    } else if (arg == "--types") {
      f.types = true;
    } else if (arg == "--check") {
      f.check = true;
    } else {
      Usage("unknown flag " + arg);
    }
  }
  return f;
}

core::Result<solver::Snapshot> Build(const std::string& scenario, const Flags& flags) {
  if (scenario == "kwok-basic") return KwokBasicSnapshot(flags.scale);
  if (scenario == "openb") return OpenBSnapshot(flags.openb, flags.scale);
  if (scenario == "mixed") return MixedSnapshot(flags.scale);
  return core::Status::Invalid("unknown scenario " + scenario);
}

int Run(const Flags& flags) {
  int failures = 0;
  std::printf("%-12s %6s %6s %6s %10s %10s %7s %10s %7s %10s %7s %9s %9s %9s %9s %9s\n", "scenario",
              "pods", "placed", "nodes", "price/h", "LP bound", "ratio", "no-repack", "ratio",
              "FFD price", "FFD/LB", "median s", "cpu s", "+LP s", "+LP cpu", "no-rp cpu");
  for (const std::string& scenario : flags.scenarios) {
    auto snapshot = Build(scenario, flags);
    if (!snapshot.ok()) {
      std::fprintf(stderr, "%s: %s\n", scenario.c_str(), snapshot.status().message().c_str());
      return 2;
    }
    solver::SchedulerOptions without_bound;
    without_bound.compute_lower_bound = false;
    solver::SchedulerOptions with_bound;
    solver::SchedulerOptions no_repack = without_bound;
    no_repack.repack = false;
    std::vector<double> wall, cpu, lp_wall, lp_cpu, plain_cpu;
    solver::Results results;
    double plain_price = 0;
    for (int r = 0; r < flags.runs; ++r) {
      TimedSolve plain = RunSolve(*snapshot, no_repack);
      plain_cpu.push_back(plain.cpu_seconds);
      plain_price = plain.results.price_per_hour;
      TimedSolve t = RunSolve(*snapshot, without_bound);
      wall.push_back(t.seconds);
      cpu.push_back(t.cpu_seconds);
      TimedSolve b = RunSolve(*snapshot, with_bound);
      lp_wall.push_back(b.seconds);
      lp_cpu.push_back(b.cpu_seconds);
      if (r == 0) results = std::move(b.results);
    }
    const double bound = results.lower_bound_per_hour;
    const double ratio = bound > 0 ? results.price_per_hour / bound : 0;
    std::string ffd = "-", ffd_ratio = "-";
    if (snapshot->node_pools.size() == 1 && scenario != "openb") {
      // Plain FFD reads CPU and memory only: meaningful for single-pool CPU workloads.
      BaselinePlan plan = FirstFitDecreasing(snapshot->pending_pods, snapshot->instance_types,
                                             snapshot->node_pools.front(), snapshot->well_known);
      char buf[32];
      std::snprintf(buf, sizeof(buf), "%.2f", plan.price_per_hour);
      ffd = buf;
      std::snprintf(buf, sizeof(buf), "%.4f", bound > 0 ? plan.price_per_hour / bound : 0);
      ffd_ratio = buf;
    }
    const int placed = PlacedPods(results);
    std::printf("%-12s %6zu %6d %6zu %10.2f %10.2f %7.4f %10.2f %7.4f %10s %7s %9.4f %9.4f %9.4f %9.4f %9.4f\n",
                scenario.c_str(), snapshot->pending_pods.size(), placed,
                results.new_node_claims.size(), results.price_per_hour, bound, ratio, plain_price,
                bound > 0 ? plain_price / bound : 0, ffd.c_str(), ffd_ratio.c_str(), Median(wall),
                Median(cpu), Median(lp_wall), Median(lp_cpu), Median(plain_cpu));
    if (flags.types) {
      std::map<std::string, std::pair<int, double>> launched;
      for (const auto& c : results.new_node_claims) {
        auto& [count, price] = launched[c.launch.instance_type];
        ++count;
        price += c.launch.price_per_hour;
      }
      for (const auto& [type, count_price] : launched) {
        std::printf("    %-20s %6d  %10.2f\n", type.c_str(), count_price.first, count_price.second);
      }
    }
    std::fflush(stdout);
    if (flags.check) {
      if (placed != static_cast<int>(snapshot->pending_pods.size())) {
        std::fprintf(stderr, "CHECK FAILED: %s: %d of %zu pods placed\n", scenario.c_str(), placed,
                     snapshot->pending_pods.size());
        ++failures;
      }
      if (flags.max_ratio > 0 && !(ratio <= flags.max_ratio)) {
        std::fprintf(stderr, "CHECK FAILED: %s: price / bound %.4f above %.4f\n", scenario.c_str(),
                     ratio, flags.max_ratio);
        ++failures;
      }
    }
  }
  return failures == 0 ? 0 : 1;
}

}  // namespace
}  // namespace nodesmith::bench

int main(int argc, char** argv) {
  return nodesmith::bench::Run(nodesmith::bench::ParseFlags(argc, argv));
}
