// `nodesmith plan -f ...`: what the provisioner would do now. Loads the inputs, the catalog and
// the workloads' stand-in pods, runs one solve and prints the Plan (JSON as the CLI contract,
// or a table). The solve's duration is the only clock read, and it is taken here, not in the
// solver.
#include <chrono>
#include <cmath>
#include <iomanip>
#include <iostream>
#include <memory>
#include <sstream>

#include <nlohmann/json.hpp>

#include "api/workload_pods.h"
#include "cli/command.h"
#include "cli/disruption_plan.h"
#include "cli/inputs.h"
#include "cli/text_table.h"
#include "cloud/catalog.h"
#include "solver/scheduler.h"
#include "solver/snapshot.h"

namespace nodesmith::cli {
namespace {

struct PlanFlags {
  InputFlags inputs;
  std::string preference_policy = "Respect";
  std::string min_values_policy = "Strict";
};

// Sums of prices print without binary noise (0.30000000000000004); a lower bound is rounded
// down so it stays a bound.
double RoundPrice(double v) { return std::round(v * 1e9) / 1e9; }
double RoundDown(double v) { return std::floor(v * 1e9) / 1e9; }

// Where plan's time went: building the solver's snapshot from the parsed input, deciding, and
// proving the lower bound.
struct PlanTimes {
  double snapshot = 0;
  double solve = 0;
  double bound = 0;
};

nlohmann::ordered_json PlanJson(const solver::Results& r, const PlanTimes& times) {
  using json = nlohmann::ordered_json;
  json out;
  out["kind"] = "Plan";
  out["newNodeClaims"] = json::array();
  for (const auto& n : r.new_node_claims) out["newNodeClaims"].push_back(NewNodeClaimJson(n));
  out["existingNodes"] = json::array();
  for (const auto& e : r.existing_nodes) {
    out["existingNodes"].push_back({{"name", e.name}, {"pods", e.pods}});
  }
  out["unschedulable"] = json::array();
  for (const auto& u : r.unschedulable) {
    out["unschedulable"].push_back({{"pod", u.pod}, {"reason", u.reason}});
  }
  out["summary"] = {{"pendingPods", r.pending_pods},
                    {"scheduled", r.scheduled},
                    {"newNodeClaims", r.new_node_claims.size()},
                    {"pricePerHour", RoundPrice(r.price_per_hour)},
                    {"lowerBoundPerHour", RoundDown(r.lower_bound_per_hour)},
                    {"solveSeconds", times.solve},
                    {"boundSeconds", times.bound},
                    {"snapshotSeconds", times.snapshot}};
  return out;
}

std::string Join(const std::vector<std::string>& items, size_t max_items) {
  std::string s;
  for (size_t i = 0; i < items.size() && i < max_items; ++i) s += (i ? ", " : "") + items[i];
  if (items.size() > max_items) s += ", ... (" + std::to_string(items.size()) + " in all)";
  return s;
}

std::string Price(double v) {
  std::ostringstream o;
  o << std::fixed << std::setprecision(4) << v;
  return o.str();
}

std::string PlanText(const solver::Results& r, const PlanTimes& times) {
  std::ostringstream out;
  out << "New NodeClaims: " << r.new_node_claims.size() << "\n";
  if (!r.new_node_claims.empty()) {
    std::vector<std::vector<std::string>> rows{
        {"NAME", "NODEPOOL", "INSTANCE TYPE", "ZONE", "CAPACITY", "$/HOUR", "PODS", "REQUESTS"}};
    for (const auto& n : r.new_node_claims) {
      std::string requests;
      for (const auto& [name, q] : n.requests.items()) {
        requests += (requests.empty() ? "" : " ") + name + "=" + q.String();
      }
      rows.push_back({n.name, n.node_pool, n.launch.instance_type, n.launch.zone,
                      n.launch.capacity_type, Price(n.launch.price_per_hour),
                      std::to_string(n.pods.size()), requests});
    }
    out << Table(rows);
    for (const auto& n : r.new_node_claims) {
      out << "  " << n.name << " options: " << Join(n.instance_type_options, 8) << "\n";
      out << "  " << n.name << " pods: " << Join(n.pods, 20) << "\n";
    }
  }
  if (!r.existing_nodes.empty()) {
    out << "\nPods placed on existing capacity:\n";
    std::vector<std::vector<std::string>> rows{{"NODE", "KIND", "PODS"}};
    for (const auto& e : r.existing_nodes) {
      rows.push_back({e.name, e.in_flight ? "NodeClaim (launching)" : "Node", Join(e.pods, 20)});
    }
    out << Table(rows);
  }
  if (!r.unschedulable.empty()) {
    out << "\nUnschedulable pods: " << r.unschedulable.size() << "\n";
    std::vector<std::vector<std::string>> rows{{"POD", "REASON"}};
    for (const auto& u : r.unschedulable) rows.push_back({u.pod, u.reason});
    out << Table(rows);
  }
  out << "\nSummary: " << r.scheduled << " of " << r.pending_pods << " pending pods scheduled, "
      << r.new_node_claims.size() << " new NodeClaim(s), $" << Price(RoundPrice(r.price_per_hour))
      << "/hour (lower bound $" << Price(RoundDown(r.lower_bound_per_hour)) << "/hour), solved in "
      << std::setprecision(4) << times.solve << "s (bound " << times.bound << "s, snapshot "
      << times.snapshot << "s)\n";
  return out.str();
}

int RunPlan(const PlanFlags& flags) {
  // No gate changes the provisioning simulation today; they are still checked, so that a typo
  // is refused here as it is by disrupt, simulate and the controller.
  if (core::Result<FeatureGates> gates = ParseFeatureGates(flags.inputs.feature_gates); !gates.ok()) {
    std::cerr << "error: " << gates.status().message() << "\n";
    return kExitBadInput;
  }
  int load_exit = kExitBadInput;
  std::optional<api::ObjectSet> objects = LoadInputsOrReport(flags.inputs, std::cerr, &load_exit);
  if (!objects) return load_exit;
  if (core::Status expanded = api::ExpandWorkloads(*objects); !expanded.ok()) {
    std::cerr << "error: " << expanded.message() << "\n";
    return kExitBadInput;
  }

  cloud::CatalogSource source = objects->instance_type_catalogs.empty()
                                    ? cloud::CatalogSource::FromFlag(flags.inputs.catalog)
                                    : cloud::CatalogSource::FromObject(objects->instance_type_catalogs.front().object);
  std::optional<api::EC2NodeClass> node_class;
  if (!objects->ec2_node_classes.empty()) node_class = objects->ec2_node_classes.front().object;
  core::Result<cloud::Catalog> catalog = cloud::LoadCatalog(source, flags.inputs.region, node_class);
  if (!catalog.ok()) {
    std::cerr << "error: " << catalog.status().message() << "\n";
    return catalog.status().code() == core::StatusCode::kInvalidArgument ||
                   catalog.status().code() == core::StatusCode::kNotFound
               ? kExitBadInput
               : kExitFailure;
  }

  using Clock = std::chrono::steady_clock;
  auto seconds_since = [](Clock::time_point from) {
    return std::chrono::duration<double>(Clock::now() - from).count();
  };
  PlanTimes times;
  const auto start = Clock::now();
  core::Result<solver::Snapshot> snapshot = solver::BuildSnapshot(
      std::move(*objects), {}, catalog->instance_types, catalog->well_known_labels);
  if (!snapshot.ok()) {
    std::cerr << "error: " << snapshot.status().message() << "\n";
    return kExitBadInput;
  }
  solver::SchedulerOptions options;
  options.ignore_preferences = flags.preference_policy == "Ignore";
  options.min_values_best_effort = flags.min_values_policy == "BestEffort";
  times.snapshot = seconds_since(start);
  const auto solve_start = Clock::now();
  Clock::time_point decided;
  options.on_decided = [&decided] { decided = Clock::now(); };
  core::Result<solver::Results> results = solver::Solve(*snapshot, options);
  if (results.ok()) {
    times.solve = std::chrono::duration<double>(decided - solve_start).count();
    times.bound = seconds_since(decided);
  }
  if (!results.ok()) {
    std::cerr << "error: " << results.status().message() << "\n";
    return kExitBadInput;
  }

  if (flags.inputs.output == "json") {
    std::cout << PlanJson(*results, times).dump(2) << "\n";
  } else {
    std::cout << PlanText(*results, times);
  }
  std::cout.flush();
  return std::cout ? kExitOk : kExitFailure;
}

}  // namespace

void RegisterPlan(CLI::App& app, int* exit_code) {
  auto flags = std::make_shared<PlanFlags>();
  CLI::App* cmd = app.add_subcommand(
      "plan", "what the provisioner would do now: where pending pods go and which NodeClaims to launch");
  AddInputAndClusterFlags(cmd, &flags->inputs);
  cmd->add_option("--preference-policy", flags->preference_policy,
                  "Respect: relax preferences one by one when needed; Ignore: drop them up front")
      ->check(CLI::IsMember({"Respect", "Ignore"}))
      ->capture_default_str();
  cmd->add_option("--min-values-policy", flags->min_values_policy,
                  "Strict: a NodeClaim that cannot meet minValues fails; BestEffort: relax minValues")
      ->check(CLI::IsMember({"Strict", "BestEffort"}))
      ->capture_default_str();
  cmd->callback([flags, exit_code] { *exit_code = RunPlan(*flags); });
}

}  // namespace nodesmith::cli
