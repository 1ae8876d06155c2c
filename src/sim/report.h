// The simulation report: a SimulationResult drawn as one HTML page a person can skim.
//
// `nodesmith simulate --report FILE.html` writes it. The page is self-contained (inline CSS and
// SVG, no scripts, fonts or images fetched from anywhere) so it can be attached to a ticket or
// opened offline, and it is deterministic: the same result gives the same bytes, so reports of
// two runs can be diffed.
#pragma once

#include <iosfwd>
#include <nlohmann/json_fwd.hpp>

namespace nodesmith::sim {

// Writes `result` — a SimulationResult as `nodesmith simulate -o json` prints it (`scenario`,
// `start`, `events`, `log`, `summary`) plus its `samples` series (`t`, `nodes` by instance type,
// `pendingPods`, `pricePerHour`, `cpuUtilization`, `memoryUtilization`, the last two as
// fractions) — to `out` as an HTML page: summary cards; charts of nodes by instance type, cost
// per hour, pending pods and utilisation over virtual time with disruption decisions and
// interruptions marked; the disruption decisions (time, method, reason, nodes, replacements,
// saving per hour, and the total saving of the decisions not abandoned) with the interruptions;
// the decision log; the controller log.
//
// Every part is optional: missing or malformed fields show as "—" or a "no data" note rather
// than failing, since a partial result is still worth looking at. All text from `result` is
// HTML-escaped. The charts' <svg> elements have ids `chart-nodes`, `chart-cost`,
// `chart-pending` and `chart-utilization`; the decision table has id `decision-log` and the
// disruption table `disruption-decisions`.
void WriteHtmlReport(const nlohmann::json& result, std::ostream& out);

}  // namespace nodesmith::sim
