// cluster_scale: one provisioning solve against a large running cluster, to measure memory.
//
//   /usr/bin/time -v cluster_scale [--nodes 10000] [--pods-per-node 15] [--pending 3000] [--check]
//
// Builds the objects of `nodes` bound nodes with `pods-per-node` running pods each plus
// `pending` pending pods (Karpenter's diverse mix), turns them into a Snapshot through
// solver::BuildSnapshot as the CLI does, and solves once. Prints the time of each phase and the
// process's peak RSS (getrusage; /usr/bin/time -v reports the same number as "Maximum resident
// set size"). --check exits 1 when a pending pod is left unscheduled.
#include <chrono>
#include <cstdio>
#include <cstdlib>
#include <string>

#include "bench_util.h"
#include "workloads.h"

namespace nodesmith::bench {
namespace {

int Run(int argc, char** argv) {
  ClusterSpec spec;
  bool check = false;
  for (int i = 1; i < argc; ++i) {
    const std::string arg = argv[i];
    if (ReadClusterSpecFlag(argc, argv, &i, &spec)) {
      continue;
    } else if (arg == "--check") {
      check = true;
    } else {
      std::fprintf(stderr, "usage: cluster_scale [--nodes N] [--pods-per-node K] [--pending P] [--check]\n");
      return 64;
    }
  }

  const auto start = std::chrono::steady_clock::now();
  auto snapshot = ClusterSnapshot(spec);
  const double build_s = std::chrono::duration<double>(std::chrono::steady_clock::now() - start).count();
  if (!snapshot.ok()) {
    std::fprintf(stderr, "snapshot failed: %s\n", snapshot.status().message().c_str());
    return 2;
  }
  const double rss_after_build = PeakRssMiB();
  solver::SchedulerOptions options;
  options.compute_lower_bound = false;
  TimedSolve solve = RunSolve(*snapshot, options);

  int on_existing = 0;
  for (const auto& e : solve.results.existing_nodes) on_existing += static_cast<int>(e.pods.size());
  const int placed = PlacedPods(solve.results);
  std::printf("nodes %zu, bound pods %zu, pending pods %zu\n", snapshot->existing.size(),
              snapshot->bound_pods.size(), snapshot->pending_pods.size());
  std::printf("snapshot build %.3f s, solve %.3f s\n", build_s, solve.seconds);
  std::printf("placed %d (on existing nodes %d), new nodeclaims %zu, unschedulable %zu\n", placed,
              on_existing, solve.results.new_node_claims.size(), solve.results.unschedulable.size());
  std::printf("peak RSS after build %.1f MiB, after solve %.1f MiB\n", rss_after_build, PeakRssMiB());
  if (check && placed != static_cast<int>(snapshot->pending_pods.size())) {
    std::fprintf(stderr, "CHECK FAILED: %d of %zu pending pods placed\n", placed, snapshot->pending_pods.size());
    for (size_t i = 0; i < solve.results.unschedulable.size() && i < 5; ++i) {
      std::fprintf(stderr, "  %s: %s\n", solve.results.unschedulable[i].pod.c_str(),
                   solve.results.unschedulable[i].reason.c_str());
    }
    return 1;
  }
  return 0;
}

}  // namespace
}  // namespace nodesmith::bench

int main(int argc, char** argv) { return nodesmith::bench::Run(argc, argv); }
