// Workloads for the solver benchmarks: the inputs of Karpenter's scheduling benchmark, Cluster
// Autoscaler's binpacking-estimator benchmark and a large bound cluster, built in memory so a
// benchmark measures the solve and nothing else.
//
// Every generator is deterministic: randomness comes from a std::mt19937 with a fixed seed, so
// two runs of a benchmark solve exactly the same problem (the draws are not Go's math/rand, so
// individual pod sizes differ from Karpenter's run; the distributions are the same).
#pragma once

#include <cstdint>
#include <string>
#include <vector>

#include "api/nodepool.h"
#include "api/object_set.h"
#include "api/pod.h"
#include "cloud/instance_type.h"
#include "scheduling/well_known_labels.h"
#include "solver/snapshot.h"

namespace nodesmith::bench {

// Karpenter's fake.InstanceTypes(count): type i is "fake-it-<i>" with i+1 vCPU, 2(i+1) GiB,
// 10(i+1) pods, kube-reserved 100m CPU / 10Mi, offerings spot in test-zone-1/-2 and on-demand in
// test-zone-1/-2/-3, all at fake.PriceFromResources (0.1 per vCPU + 0.1 per 1e9 bytes), and the
// fake labels (arch, os, size, special, integer).
cloud::InstanceTypes FakeInstanceTypes(int count);

// The well-known label set for FakeInstanceTypes (Karpenter's plus size, special, integer).
scheduling::LabelKeySet FakeWellKnownLabels();

// Karpenter's test.NodePool(): no requirements; limits cpu 10000000 and memory 10000000Gi.
api::NodePool BenchNodePool();

// Karpenter's makeDiversePods(count) as benchmarked in kubernetes-sigs/karpenter#1938 (five
// classes): count/5 each of generic pods, zone spread, hostname spread, zone self-affinity and
// hostname anti-affinity (all mutually repelling, label app: nginx), the remainder generic.
// Every pod carries my-label (a..g); CPU from {100,250,500,1000,1500}m and memory from
// {100,256,512,1024,2048,4096}Mi, uniformly at random.
std::vector<api::Pod> DiversePods(int count, uint32_t seed = 42);

// Pods whose constraints are all preferences: preferred node affinity to test-zone-1,
// preferred anti-affinity to each other on zone (weight 10) and on hostname (weight 1).
// Sizes as DiversePods.
std::vector<api::Pod> PreferencePods(int count, uint32_t seed = 42);

// Cluster Autoscaler's BenchmarkEstimate workload: one instance type of 1000m CPU, 5000 bytes
// of memory, 100 pods and no overhead ...
cloud::InstanceTypes BinpackingInstanceTypes();
// ... and 50,000 pods of (50m, 100) then 1,000 pods of (95m, 190), scaled by `scale` (1.0 is the
// benchmark; its optimum is 2,595 nodes because CPU sums to exactly 2,595 nodes).
std::vector<api::Pod> BinpackingPods(double scale = 1.0);
// The optimum node count for BinpackingPods(scale): total CPU / 1000m, rounded up.
int64_t BinpackingOptimalNodes(double scale = 1.0);

// A snapshot with the given pending pods, one NodePool and the instance types, built directly
// (no api::ObjectSet round trip).
solver::Snapshot PendingSnapshot(std::vector<api::Pod> pods, cloud::InstanceTypes types,
                                 scheduling::LabelKeySet well_known);

// A running cluster: `nodes` nodes of fake-it-31 (32 vCPU, 64 GiB) spread over three zones, each
// with `pods_per_node` bound pods (diverse sizes, generic), plus `pending` pending DiversePods.
// Built through solver::BuildSnapshot, as the CLI does.
struct ClusterSpec {
  int nodes = 10000;
  int pods_per_node = 15;
  int pending = 3000;
};
// Reads argv[*i] when it is --nodes, --pods-per-node or --pending with a value (advancing *i
// past the value); false for any other argument.
bool ReadClusterSpecFlag(int argc, char** argv, int* i, ClusterSpec* spec);
core::Result<solver::Snapshot> ClusterSnapshot(const ClusterSpec& spec);
// The same cluster's objects without the pending pods: the NodePool, the nodes (of `types`'
// fake-it-31, which must be among them) and their bound pods.
api::ObjectSet ClusterObjects(const ClusterSpec& spec, const cloud::InstanceTypes& types);

// A cheap reference plan for the price column: first-fit decreasing (by CPU, then memory) into
// nodes as large as the largest type, ignoring every topology constraint except required
// hostname anti-affinity (one such pod per node); each node is then bought as the cheapest type
// that holds what was put on it. It is not a lower bound and not always feasible for Kubernetes
// (spread and affinity are ignored): it shows what plain bin packing would pay.
struct BaselinePlan {
  int64_t nodes = 0;
  double price_per_hour = 0;
};
BaselinePlan FirstFitDecreasing(const std::vector<api::Pod>& pods, const cloud::InstanceTypes& types);
// The same for pods a NodePool launches for: only the types compatible with `pool`'s
// requirements count, each at its cheapest offering those requirements allow (e.g. on-demand
// only). Pods' own requirements and extended resources are not considered.
BaselinePlan FirstFitDecreasing(const std::vector<api::Pod>& pods, const cloud::InstanceTypes& types,
                                const api::NodePool& pool, const scheduling::LabelKeySet& well_known);

}  // namespace nodesmith::bench
