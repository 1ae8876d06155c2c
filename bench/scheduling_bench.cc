// scheduling_bench: the solver workloads of karpenter_workload under Google Benchmark, for
// run-to-run comparison of solver changes (--benchmark_repetitions, compare.py).
//
//   scheduling_bench --benchmark_filter=Diverse        # Karpenter's BenchmarkScheduling<N>
//   scheduling_bench --benchmark_filter=Preferences    # 4000 preference pods, Respect / Ignore
//   scheduling_bench --benchmark_filter=Binpacking     # Cluster Autoscaler's BenchmarkEstimate
//
// Counters: nodes (new NodeClaims of the last solve), placed pods, pods/s.
#include <benchmark/benchmark.h>

#include "bench_util.h"
#include "workloads.h"

namespace nodesmith::bench {
namespace {

const cloud::InstanceTypes& Types() {
  static const cloud::InstanceTypes kTypes = FakeInstanceTypes(400);
  return kTypes;
}

void SolveLoop(benchmark::State& state, const solver::Snapshot& snapshot,
               solver::SchedulerOptions options) {
  options.compute_lower_bound = false;
  solver::Results last;
  for (auto _ : state) {
    auto results = solver::Solve(snapshot, options);
    if (!results.ok()) {
      state.SkipWithError(results.status().message().c_str());
      return;
    }
    last = std::move(*results);
    benchmark::DoNotOptimize(last);
  }
  state.counters["nodes"] = static_cast<double>(last.new_node_claims.size());
  state.counters["placed"] = PlacedPods(last);
  state.counters["pods/s"] = benchmark::Counter(
      static_cast<double>(snapshot.pending_pods.size()) * static_cast<double>(state.iterations()),
      benchmark::Counter::kIsRate);
}

// Karpenter's BenchmarkScheduling<N>: DiversePods(N) against fake.InstanceTypes(400).
void BM_Diverse(benchmark::State& state) {
  const solver::Snapshot snapshot =
      PendingSnapshot(DiversePods(static_cast<int>(state.range(0))), Types(), FakeWellKnownLabels());
  SolveLoop(state, snapshot, {});
}
BENCHMARK(BM_Diverse)
    ->Arg(1)->Arg(50)->Arg(100)->Arg(500)->Arg(1000)->Arg(2000)->Arg(5000)->Arg(10000)->Arg(20000)
    ->Unit(benchmark::kMillisecond);

// 4000 pods with only preferred constraints; arg 0 relaxes them (Respect), arg 1 drops them (Ignore).
void BM_Preferences(benchmark::State& state) {
  const solver::Snapshot snapshot = PendingSnapshot(PreferencePods(4000), Types(), FakeWellKnownLabels());
  solver::SchedulerOptions options;
  options.ignore_preferences = state.range(0) == 1;
  state.SetLabel(options.ignore_preferences ? "Ignore" : "Respect");
  SolveLoop(state, snapshot, options);
}
BENCHMARK(BM_Preferences)->Arg(0)->Arg(1)->Unit(benchmark::kMillisecond);

// Cluster Autoscaler's BenchmarkEstimate: 51,000 pods onto 1000m nodes (optimum 2,595 nodes).
void BM_Binpacking(benchmark::State& state) {
  const solver::Snapshot snapshot =
      PendingSnapshot(BinpackingPods(), BinpackingInstanceTypes(), scheduling::WellKnownLabels());
  SolveLoop(state, snapshot, {});
}
BENCHMARK(BM_Binpacking)->Unit(benchmark::kMillisecond);

}  // namespace
}  // namespace nodesmith::bench

BENCHMARK_MAIN();
