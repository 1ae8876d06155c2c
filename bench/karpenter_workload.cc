// karpenter_workload: the solver on Karpenter's scheduling benchmark and Cluster Autoscaler's
// binpacking benchmark, printed as tables (docs/PERFORMANCE.md quotes them).
//
//   karpenter_workload [--sizes 1,50,...] [--runs 5] [--preference-pods 4000]
//                      [--binpacking-scale 1.0] [--skip-preferences] [--skip-binpacking] [--check]
//                      [--no-repack] [--json]
//
// Each size is solved --runs times; the table shows the median wall time (and the minimum, and
// the median thread CPU time, which other load on a shared machine does not inflate). Times cover solver::Solve only
// (topology, queue, placement and launch choice), with the LP lower bound switched off as
// Karpenter computes none; one more solve with the bound fills the "LP bound" column and its
// time the "+LP s" column ("price/LB" is price / bound). "FFD price" is
// bench::FirstFitDecreasing (topology-relaxed).
// --json prints one JSON object per scenario instead of the tables, with every run's wall and CPU
// seconds (bench/peers/run reads it to put the solver beside Karpenter's own benchmark).
// --check exits 1 when a solve leaves pods unscheduled or misses the expected node count.
#include <cstdio>
#include <cstdlib>
#include <map>
#include <sstream>
#include <string>
#include <vector>

#include "bench_util.h"
#include "workloads.h"

namespace nodesmith::bench {
namespace {

struct Flags {
  std::vector<int> sizes = {1, 50, 100, 500, 1000, 2000, 5000, 10000, 20000};
  int runs = 5;
  int preference_pods = 4000;
  double binpacking_scale = 1.0;
  bool preferences = true;
  bool binpacking = true;
  bool check = false;
  bool repack = true;  // --no-repack: SchedulerOptions::repack off (Karpenter's packing as is)
  bool json = false;
};

[[noreturn]] void Usage(const char* message) {
  std::fprintf(stderr,
               "%s\nusage: karpenter_workload [--sizes N,N,...] [--runs R] [--preference-pods P]\n"
               "       [--binpacking-scale S] [--skip-preferences] [--skip-binpacking] [--check] [--no-repack] [--json]\n",
               message);
  std::exit(64);
}

Flags ParseFlags(int argc, char** argv) {
  Flags f;
  for (int i = 1; i < argc; ++i) {
    const std::string arg = argv[i];
    auto value = [&]() -> std::string {
      if (i + 1 >= argc) Usage(("missing value for " + arg).c_str());
      return argv[++i];
    };
    if (arg == "--sizes") {
      f.sizes.clear();
      std::stringstream in(value());
      for (std::string item; std::getline(in, item, ',');) f.sizes.push_back(std::stoi(item));
    } else if (arg == "--runs") {
      f.runs = std::max(1, std::stoi(value()));
    } else if (arg == "--preference-pods") {
      f.preference_pods = std::stoi(value());
    } else if (arg == "--binpacking-scale") {
      f.binpacking_scale = std::stod(value());
    } else if (arg == "--skip-preferences") {
      f.preferences = false;
    } else if (arg == "--skip-binpacking") {
      f.binpacking = false;
    } else if (arg == "--no-repack") {
      f.repack = false;
    } else if (arg == "--json") {
      f.json = true;
    } else if (arg == "--check") {
      f.check = true;
    } else {
      Usage(("unknown flag " + arg).c_str());
    }
  }
  return f;
}

// Karpenter's published seconds per solve on this workload (see docs/PERFORMANCE.md).
const std::map<int, double>& KarpenterSeconds() {
  static const std::map<int, double> kFigures = {{1000, 0.891}, {5000, 5.09}, {20000, 35.7}};
  return kFigures;
}

bool g_repack = true;  // Flags::repack, for Measure
bool g_json = false;   // Flags::json, for PrintHeader and Print

struct Row {
  std::string scenario;
  int pods = 0;
  int scheduled = 0;
  size_t nodes = 0;
  double median_s = 0, min_s = 0;  // wall clock
  double median_cpu_s = 0;           // thread CPU time
  double price = 0, lower_bound = 0;
  double lower_bound_s = 0;  // one solve with the LP bound computed
  BaselinePlan baseline;
  double peer_s = 0;  // 0: no published figure
  std::vector<double> seconds, cpu_seconds;  // every run, in order
};

Row Measure(const std::string& scenario, const solver::Snapshot& snapshot,
            solver::SchedulerOptions options, int runs) {
  Row row;
  row.scenario = scenario;
  row.pods = static_cast<int>(snapshot.pending_pods.size());
  options.compute_lower_bound = false;
  options.repack = g_repack;
  std::vector<double> seconds, cpu_seconds;
  for (int r = 0; r < runs; ++r) {
    TimedSolve t = RunSolve(snapshot, options);
    seconds.push_back(t.seconds);
    cpu_seconds.push_back(t.cpu_seconds);
    if (r == 0) {
      row.nodes = t.results.new_node_claims.size();
      row.scheduled = PlacedPods(t.results);
      row.price = t.results.price_per_hour;
    }
  }
  row.seconds = seconds;
  row.cpu_seconds = cpu_seconds;
  row.median_s = Median(seconds);
  row.min_s = *std::min_element(seconds.begin(), seconds.end());
  row.median_cpu_s = Median(cpu_seconds);
  options.compute_lower_bound = true;
  TimedSolve with_bound = RunSolve(snapshot, options);
  row.lower_bound = with_bound.results.lower_bound_per_hour;
  row.lower_bound_s = with_bound.seconds;
  row.baseline = FirstFitDecreasing(snapshot.pending_pods, snapshot.instance_types);
  return row;
}

void PrintHeader() {
  if (g_json) return;
  std::printf("%-22s %7s %7s %7s %10s %10s %10s %11s %10s %10s %8s %10s %8s %10s %8s\n", "scenario",
              "pods", "placed", "nodes", "median s", "min s", "cpu s", "pods/s", "price/h", "LP bound",
              "price/LB", "FFD price", "+LP s", "peer s", "ratio");
}

void PrintJsonArray(const char* name, const std::vector<double>& v) {
  std::printf(",\"%s\":[", name);
  for (size_t i = 0; i < v.size(); ++i) std::printf("%s%.9f", i ? "," : "", v[i]);
  std::printf("]");
}

void Print(const Row& r) {
  if (g_json) {
    std::printf("{\"scenario\":\"%s\",\"pods\":%d,\"placed\":%d,\"nodes\":%zu,\"price\":%.6f,"
                "\"lower_bound\":%.6f,\"ffd_price\":%.6f",
                r.scenario.c_str(), r.pods, r.scheduled, r.nodes, r.price, r.lower_bound,
                r.baseline.price_per_hour);
    PrintJsonArray("seconds", r.seconds);
    PrintJsonArray("cpu_seconds", r.cpu_seconds);
    std::printf("}\n");
    std::fflush(stdout);
    return;
  }
  const double pods_per_s = r.median_s > 0 ? r.pods / r.median_s : 0;
  const double bound_ratio = r.lower_bound > 0 ? r.price / r.lower_bound : 0;
  std::printf("%-22s %7d %7d %7zu %10.4f %10.4f %10.4f %11.0f %10.2f %10.2f %8.3f %10.2f %8.3f",
              r.scenario.c_str(), r.pods, r.scheduled, r.nodes, r.median_s, r.min_s, r.median_cpu_s,
              pods_per_s, r.price, r.lower_bound, bound_ratio, r.baseline.price_per_hour,
              r.lower_bound_s);
  if (r.peer_s > 0) {
    std::printf(" %10.3f %7.1fx\n", r.peer_s, r.peer_s / r.median_s);
  } else {
    std::printf(" %10s %8s\n", "-", "-");
  }
  std::fflush(stdout);
}

int Run(const Flags& flags) {
  int failures = 0;
  g_repack = flags.repack;
  g_json = flags.json;
  auto expect = [&](bool ok, const std::string& what) {
    if (!ok) {
      std::fprintf(stderr, "CHECK FAILED: %s\n", what.c_str());
      ++failures;
    }
  };
  const cloud::InstanceTypes types = FakeInstanceTypes(400);

  if (!g_json) std::printf("Karpenter scheduling benchmark: fake.InstanceTypes(400), one NodePool, %d run(s) per size\n",
              flags.runs);
  PrintHeader();
  for (int n : flags.sizes) {
    solver::Snapshot snapshot = PendingSnapshot(DiversePods(n), types, FakeWellKnownLabels());
    Row row = Measure("diverse/" + std::to_string(n), snapshot, {}, flags.runs);
    auto peer = KarpenterSeconds().find(n);
    if (peer != KarpenterSeconds().end()) row.peer_s = peer->second;
    Print(row);
    // Every hostname anti-affinity pod needs its own node and everything else fits beside them.
    const size_t expected_nodes = std::max(1, n / 5);
    if (flags.check) {
      expect(row.scheduled == n, row.scenario + ": " + std::to_string(row.scheduled) + " of " +
                                     std::to_string(n) + " pods placed");
      expect(row.nodes == expected_nodes, row.scenario + ": " + std::to_string(row.nodes) +
                                              " nodes, expected " + std::to_string(expected_nodes));
    }
  }

  if (flags.preferences && flags.preference_pods > 0) {
    if (!g_json) std::printf("\nPreference pods: preferred zone test-zone-1, preferred anti-affinity on zone (10) and hostname (1)\n");
    PrintHeader();
    solver::Snapshot snapshot =
        PendingSnapshot(PreferencePods(flags.preference_pods), types, FakeWellKnownLabels());
    for (bool ignore : {false, true}) {
      solver::SchedulerOptions options;
      options.ignore_preferences = ignore;
      Row row = Measure(std::string("preferences/") + (ignore ? "Ignore" : "Respect"), snapshot,
                        options, flags.runs);
      Print(row);
      if (flags.check) {
        expect(row.scheduled == flags.preference_pods, row.scenario + ": not every pod placed");
      }
    }
  }

  if (flags.binpacking && flags.binpacking_scale > 0) {
    if (!g_json) std::printf("\nCluster Autoscaler binpacking estimate: 1000m / 5000 B / 100 pods nodes, pods (50m,100) and (95m,190)\n");
    PrintHeader();
    solver::Snapshot snapshot = PendingSnapshot(BinpackingPods(flags.binpacking_scale),
                                                BinpackingInstanceTypes(), scheduling::WellKnownLabels());
    Row row = Measure("binpacking", snapshot, {}, flags.runs);
    if (flags.binpacking_scale == 1.0) row.peer_s = 3.76;
    Print(row);
    const int64_t optimum = BinpackingOptimalNodes(flags.binpacking_scale);
    if (!g_json) std::printf("optimum %lld nodes (total CPU / node CPU)\n", static_cast<long long>(optimum));
    if (flags.check) {
      expect(row.scheduled == row.pods, "binpacking: not every pod placed");
      expect(static_cast<int64_t>(row.nodes) == optimum,
             "binpacking: " + std::to_string(row.nodes) + " nodes, optimum " + std::to_string(optimum));
    }
  }
  return failures == 0 ? 0 : 1;
}

}  // namespace
}  // namespace nodesmith::bench

int main(int argc, char** argv) {
  return nodesmith::bench::Run(nodesmith::bench::ParseFlags(argc, argv));
}
