// DisruptionPlan: what `nodesmith disrupt` prints — the disruption commands the controller
// would take, in order, the nodes it may not touch and why, and what the cluster costs before
// and after — rendered as the CLI contract's `kind: DisruptionPlan` JSON or as tables a person
// reads.
//
// Pure rendering: building the plan (loading the cluster, asking the DisruptionController,
// applying commands for --until-stable) is disrupt_command.cc's job.
#pragma once

#include <string>
#include <vector>

#include <nlohmann/json.hpp>

#include "controllers/disruption/types.h"
#include "solver/results.h"

namespace nodesmith::cli {

struct DisruptionPlan {
  // In the order they would run; one for a single pass, each pass's for --until-stable.
  std::vector<controllers::Command> commands;
  // Nodes graceful methods must leave alone, each listed once.
  std::vector<controllers::BlockedNode> blocked;
  int nodes = 0;                      // managed nodes (with a NodeClaim) before any command
  double price_per_hour_before = 0;   // their prices summed
  double price_per_hour_after = 0;    // after every listed command
  double solve_seconds = 0;           // wall time spent deciding
};

// One planned NodeClaim in the shape `nodesmith plan` prints under newNodeClaims (name,
// nodePool, instanceTypeOptions, launch, labels, taints, requests, pods).
nlohmann::ordered_json NewNodeClaimJson(const solver::NewNodeClaim& claim);

// The contract's JSON: kind, commands[] (method, reason, candidates, replacements,
// savingsPerHour, plus candidateNodes with each candidate's NodeClaim, pool, offering, price and
// pods), blocked[] (node, reason) and summary (nodes, pricePerHourBefore, pricePerHourAfter,
// solveSeconds). Prices are rounded to nine decimals to hide float noise from summing.
nlohmann::ordered_json DisruptionPlanJson(const DisruptionPlan& plan);

// The same as text: per command a heading (method, reason, saving) and tables of candidates and
// replacements; then the blocked nodes; then one summary line.
std::string DisruptionPlanText(const DisruptionPlan& plan);

}  // namespace nodesmith::cli
