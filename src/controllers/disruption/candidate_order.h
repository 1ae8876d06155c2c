// The order in which disruption methods try their candidates, as Karpenter's methods sort them.
// Each returns the candidates reordered (a copy; ties keep their input order, which
// BuildCandidates makes deterministic).
#pragma once

#include <vector>

#include "controllers/disruption/types.h"

namespace nodesmith::controllers {

// Highest SavingsRatio first: the most money saved per pod moved (consolidation.go
// sortCandidates; emptiness, single- and multi-node consolidation).
std::vector<Candidate> BySavingsRatio(const std::vector<Candidate>& candidates);

// BySavingsRatio, then one candidate of each NodePool in turn (NodePools by name), so one large
// NodePool cannot starve the others of single-node consolidation's attention
// (singlenodeconsolidation.go SortCandidates).
std::vector<Candidate> BySavingsRatioInterleavingNodePools(const std::vector<Candidate>& candidates);

// Earliest Drifted transition first: the node that drifted longest ago is replaced first
// (drift.go). Candidates without the condition's time come last.
std::vector<Candidate> ByDriftTime(const std::vector<Candidate>& candidates, const char* condition);

}  // namespace nodesmith::controllers
