// provisioning_scale: one provisioning round of the Provisioner controller against a large
// running cluster, phase by phase, to see where a round's time goes at that size.
//
//   provisioning_scale [--nodes 10000] [--pods-per-node 15] [--pending 1000] [--runs 3] [--check]
//
// The cluster is cluster_scale's (bench/workloads.h ClusterObjects: Ready nodes of fake-it-31,
// each with its bound pods) in a MemoryCluster, with a SimulatedCloud over Karpenter's 400 fake
// instance types and `pending` DiversePods that select the NodePool's own label, so that no
// existing node can take them. A run is what the operator does when pods go
// pending: a Reconcile that opens the batch, the batch window passing on a fake clock, and the
// Reconcile that provisions (snapshot, solve, NodeClaims created, nominations). Besides the
// whole round it times, on their own, the parts a round is made of: cluster::Snapshot (every
// object copied out of the store) and solver::BuildSnapshot + Solve, just before the round on the
// same cluster, and Observe (a Reconcile with nothing new) just after it. Between runs the round's NodeClaims are deleted, so every run
// plans the same pods. Prints medians (wall and this thread's CPU) and the peak RSS.
// --check exits 1 when a round leaves a pending pod without a plan.
#include <algorithm>
#include <chrono>
#include <cstdio>
#include <string>
#include <vector>

#include "bench_util.h"
#include "cloud/sim/simulated_cloud.h"
#include "cluster/cluster_snapshot.h"
#include "cluster/memory_cluster.h"
#include "controllers/provisioning/provisioner.h"
#include "core/clock.h"
#include "runtime/event_recorder.h"
#include "workloads.h"

namespace nodesmith::bench {
namespace {

constexpr const char* kBurstLabel = "bench.nodesmith.io/burst";

// Wall and CPU seconds of one call.
struct Timing {
  double wall = 0, cpu = 0;
};

template <typename F>
Timing Time(F fn) {
  const auto wall = std::chrono::steady_clock::now();
  const double cpu = ThreadCpuSeconds();
  fn();
  return {std::chrono::duration<double>(std::chrono::steady_clock::now() - wall).count(),
          ThreadCpuSeconds() - cpu};
}

Timing Median(const std::vector<Timing>& v) {
  std::vector<double> wall, cpu;
  for (const auto& t : v) wall.push_back(t.wall), cpu.push_back(t.cpu);
  return {bench::Median(wall), bench::Median(cpu)};
}

void Fail(const std::string& what, const core::Status& status) {
  std::fprintf(stderr, "%s: %s\n", what.c_str(), status.message().c_str());
  std::exit(2);
}

int Run(int argc, char** argv) {
  ClusterSpec spec;
  spec.pending = 1000;
  int runs = 3;
  bool check = false;
  for (int i = 1; i < argc; ++i) {
    const std::string arg = argv[i];
    const bool has_value = i + 1 < argc;
    if (ReadClusterSpecFlag(argc, argv, &i, &spec)) {
      continue;
    } else if (arg == "--runs" && has_value) {
      runs = std::max(1, std::stoi(argv[++i]));
    } else if (arg == "--check") {
      check = true;
    } else {
      std::fprintf(stderr,
                   "usage: provisioning_scale [--nodes N] [--pods-per-node K] [--pending P] "
                   "[--runs R] [--check]\n");
      return 64;
    }
  }

  core::FakeClock clock(core::Time::FromUnixSeconds(1735689600));
  cluster::MemoryCluster cluster(clock);
  cloud::Catalog catalog;
  catalog.source = "fake";
  catalog.instance_types = FakeInstanceTypes(400);
  catalog.well_known_labels = FakeWellKnownLabels();
  cloud::sim::SimulatedCloud cloud(clock, catalog);
  runtime::RecordingEventRecorder recorder;
  controllers::ProvisionerOptions options;
  options.well_known_labels = catalog.well_known_labels;
  controllers::Provisioner provisioner(clock, cluster, cloud, recorder, options);

  const Timing load = Time([&] {
    api::ObjectSet objects = ClusterObjects(spec, catalog.instance_types);
    for (auto& n : objects.nodes) {
      n.object.status.conditions = {{"Ready", "True", "", "", clock.Now()}};
    }
    // The pending pods ask for a label only the NodePool's new nodes carry, as a burst for a
    // team's own pool does: the round must open NodeClaims, not fill the existing nodes.
    for (auto& pool : objects.node_pools) pool.object.template_.labels[kBurstLabel] = "true";
    for (auto& p : DiversePods(spec.pending)) {
      p.spec.node_selector[kBurstLabel] = "true";
      objects.pods.push_back({std::move(p), {}});
    }
    if (auto st = cluster::Load(objects, cluster); !st.ok()) Fail("loading the cluster", st);
  });
  std::printf("cluster: %d nodes, %d bound pods, %d pending pods; loaded in %.2f s, RSS peak %.0f MiB\n",
              spec.nodes, spec.nodes * spec.pods_per_node, spec.pending, load.wall, PeakRssMiB());

  std::vector<Timing> rounds, observes, copies, solves;
  size_t claims = 0, unplanned = 0;
  for (int run = 0; run < runs; ++run) {
    // The round's parts on their own, first, so that they see the cluster the round sees (after
    // it, its NodeClaims in flight would take the pods).
    api::ObjectSet objects;
    copies.push_back(Time([&] { objects = cluster::Snapshot(cluster); }));
    solver::SchedulerOptions solver_options{.compute_lower_bound = false};
    solves.push_back(Time([&] {
      auto snapshot = solver::BuildSnapshot(std::move(objects), {}, catalog.instance_types,
                                            catalog.well_known_labels);
      if (!snapshot.ok()) Fail("snapshot", snapshot.status());
      auto results = solver::Solve(*snapshot, solver_options);
      if (!results.ok()) Fail("solve", results.status());
      unplanned = results->unschedulable.size();
    }));
    // The round: the batch opens, its window passes, the provisioning reconcile.
    auto opened = provisioner.Reconcile({});
    if (!opened.ok()) Fail("opening the batch", opened.status());
    clock.Step(options.batch_max_duration);
    const int solves_before = provisioner.solves();
    rounds.push_back(Time([&] {
      auto r = provisioner.Reconcile({});
      if (!r.ok()) Fail("provisioning", r.status());
    }));
    if (provisioner.solves() != solves_before + 1) {
      std::fprintf(stderr, "the round did not provision\n");
      return 2;
    }
    // Nothing new: what every reconcile between rounds costs.
    observes.push_back(Time([&] {
      auto r = provisioner.Reconcile({});
      if (!r.ok()) Fail("idle reconcile", r.status());
    }));
    // Forget the round: its NodeClaims go, so the next run plans the same pods anew.
    auto created = cluster.List<api::NodeClaim>();
    claims = created.size();
    for (auto c : created) {
      c.metadata.finalizers.clear();  // no terminator runs here
      if (auto st = cluster.Update(c); !st.ok()) Fail("cleanup", st.status());
      if (auto st = cluster.Delete<api::NodeClaim>("", c.metadata.name); !st.ok()) Fail("cleanup", st);
    }
    clock.Step(options.batch_max_duration);
  }
  auto print = [](const char* what, const Timing& t) {
    std::printf("%-44s %8.3f s wall %8.3f s CPU\n", what, t.wall, t.cpu);
  };
  std::printf("medians of %d runs:\n", runs);
  print("provisioning round (Reconcile)", Median(rounds));
  print("  of which: copy out of the store (Snapshot)", Median(copies));
  print("  of which: BuildSnapshot + Solve", Median(solves));
  print("reconcile with nothing new (Observe)", Median(observes));
  std::printf("new nodeclaims per round %zu, pods left unplanned %zu, peak RSS %.0f MiB\n", claims,
              unplanned, PeakRssMiB());
  if (check && (claims == 0 || unplanned != 0)) {
    std::fprintf(stderr, "CHECK FAILED: %zu nodeclaims, %zu pods unplanned\n", claims, unplanned);
    return 1;
  }
  return 0;
}

}  // namespace
}  // namespace nodesmith::bench

int main(int argc, char** argv) { return nodesmith::bench::Run(argc, argv); }
