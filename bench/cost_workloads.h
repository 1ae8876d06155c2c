// Workloads for the cost benchmark (cost_vs_bound): plans whose price is compared with the LP
// lower bound (solver/lower_bound.h) rather than timed against a peer.
//
//   KwokBasic  Karpenter's KWOK "basic" scale-out: 500 pods of 900m / 3100Mi and 500 of
//              3500m / 28Gi, one NodePool restricted to on-demand linux types under 32 vCPU of
//              the built-in `kwok` catalog.
//   OpenB      the pods of Alibaba's OpenB trace (CPU, memory and whole GPUs) against the
//              built-in `aws` catalog, one on-demand NodePool.
//   Mixed      a web / batch / GPU mix against the `aws` catalog: zone-spread web pods, CPU- and
//              memory-heavy batch pods on a general-purpose NodePool, GPU pods on a tainted GPU
//              NodePool.
//
// Every builder is deterministic; `scale` multiplies the pod counts (CI runs a small fraction).
#pragma once

#include <string>

#include "core/status.h"
#include "solver/snapshot.h"

namespace nodesmith::bench {

core::Result<solver::Snapshot> KwokBasicSnapshot(double scale = 1.0);

// `trace_csv` is openb_pod_list_default.csv. Every pod of the list is taken (the trace's
// phases are ignored: the question is what its pods cost to pack, not when they ran).
core::Result<solver::Snapshot> OpenBSnapshot(const std::string& trace_csv, double scale = 1.0);

core::Result<solver::Snapshot> MixedSnapshot(double scale = 1.0);

}  // namespace nodesmith::bench
