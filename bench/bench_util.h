// Small helpers shared by the benchmark drivers: timing a solve and the median of samples.
// Header-only; bench code may read the clock (the solver itself never does).
#pragma once

#include <sys/resource.h>
#include <time.h>

#include <algorithm>
#include <chrono>
#include <cstdio>
#include <cstdlib>
#include <string>
#include <vector>

#include "solver/scheduler.h"

namespace nodesmith::bench {

struct TimedSolve {
  solver::Results results;
  double seconds = 0;      // wall clock
  double cpu_seconds = 0;  // this thread's CPU time: what the solve costs on one core, unlike the
                           // wall clock unaffected by other processes on a shared machine
};

inline double ThreadCpuSeconds() {
  timespec ts{};
  clock_gettime(CLOCK_THREAD_CPUTIME_ID, &ts);
  return static_cast<double>(ts.tv_sec) + static_cast<double>(ts.tv_nsec) * 1e-9;
}

// The process's peak resident set so far (getrusage; /usr/bin/time -v reports the same number
// as "Maximum resident set size").
inline double PeakRssMiB() {
  struct rusage usage {};
  getrusage(RUSAGE_SELF, &usage);
  return static_cast<double>(usage.ru_maxrss) / 1024.0;  // ru_maxrss is in KiB on Linux
}

// One solve, timed with a monotonic clock. Exits the process when the solve fails: a benchmark
// whose input the solver rejects measures nothing.
inline TimedSolve RunSolve(const solver::Snapshot& snapshot, const solver::SchedulerOptions& options) {
  const double cpu_start = ThreadCpuSeconds();
  const auto start = std::chrono::steady_clock::now();
  auto results = solver::Solve(snapshot, options);
  const auto stop = std::chrono::steady_clock::now();
  const double cpu = ThreadCpuSeconds() - cpu_start;
  if (!results.ok()) {
    std::fprintf(stderr, "solve failed: %s\n", results.status().message().c_str());
    std::exit(2);
  }
  return {std::move(*results), std::chrono::duration<double>(stop - start).count(), cpu};
}

inline double Median(std::vector<double> v) {
  if (v.empty()) return 0;
  std::sort(v.begin(), v.end());
  const size_t n = v.size();
  return n % 2 ? v[n / 2] : (v[n / 2 - 1] + v[n / 2]) / 2;
}

// Pods placed on new NodeClaims plus pods placed on existing capacity.
inline int PlacedPods(const solver::Results& r) {
  int placed = 0;
  for (const auto& c : r.new_node_claims) placed += static_cast<int>(c.pods.size());
  for (const auto& e : r.existing_nodes) placed += static_cast<int>(e.pods.size());
  return placed;
}

}  // namespace nodesmith::bench
