#include "cli/disruption_plan.h"

#include <cmath>
#include <iomanip>
#include <sstream>

#include "cli/text_table.h"

namespace nodesmith::cli {
namespace {

using json = nlohmann::ordered_json;

// Sums and differences of prices print without binary noise (0.30000000000000004).
double RoundPrice(double v) { return std::round(v * 1e9) / 1e9; }

std::string Price(double v) {
  std::ostringstream o;
  o << std::fixed << std::setprecision(4) << RoundPrice(v);
  return o.str();
}

std::string Join(const std::vector<std::string>& items, size_t max_items) {
  std::string s;
  for (size_t i = 0; i < items.size() && i < max_items; ++i) s += (i ? ", " : "") + items[i];
  if (items.size() > max_items) s += ", ... (" + std::to_string(items.size()) + " in all)";
  return s;
}

json CandidateJson(const controllers::Candidate& c) {
  json j;
  j["name"] = c.name();
  j["nodeClaim"] = c.node_claim.metadata.name;
  j["nodePool"] = c.node_pool_name();
  j["instanceType"] = c.instance_type;
  j["zone"] = c.zone;
  j["capacityType"] = c.capacity_type;
  j["pricePerHour"] = RoundPrice(c.price_per_hour);
  j["pods"] = c.reschedulable_pods;
  return j;
}

std::string Plural(size_t n, const char* one, const char* many) {
  return std::to_string(n) + " " + (n == 1 ? one : many);
}

void CommandText(const controllers::Command& cmd, size_t index, std::ostringstream& out) {
  out << "Command " << index << ": " << cmd.method << " (" << cmd.reason << "), "
      << (cmd.replacements.empty() ? "delete " : "replace ")
      << Plural(cmd.candidates.size(), "node", "nodes");
  if (!cmd.replacements.empty()) {
    out << " with " << Plural(cmd.replacements.size(), "new NodeClaim", "new NodeClaims");
  }
  out << ", saves $" << Price(cmd.savings_per_hour) << "/hour\n";

  std::vector<std::vector<std::string>> rows{{"CANDIDATE", "NODECLAIM", "NODEPOOL", "INSTANCE TYPE",
                                              "ZONE", "CAPACITY", "$/HOUR", "PODS"}};
  for (const auto& c : cmd.candidates) {
    rows.push_back({c.name(), c.node_claim.metadata.name, c.node_pool_name(), c.instance_type,
                    c.zone, c.capacity_type, Price(c.price_per_hour),
                    std::to_string(c.reschedulable_pods.size())});
  }
  out << Table(rows);
  for (const auto& c : cmd.candidates) {
    if (!c.reschedulable_pods.empty()) {
      out << "  " << c.name() << " pods: " << Join(c.reschedulable_pods, 20) << "\n";
    }
  }
  if (cmd.replacements.empty()) return;
  rows = {{"REPLACEMENT", "NODEPOOL", "INSTANCE TYPE", "ZONE", "CAPACITY", "$/HOUR", "PODS"}};
  for (const auto& r : cmd.replacements) {
    rows.push_back({r.name, r.node_pool, r.launch.instance_type, r.launch.zone,
                    r.launch.capacity_type, Price(r.launch.price_per_hour),
                    std::to_string(r.pods.size())});
  }
  out << Table(rows);
  for (const auto& r : cmd.replacements) {
    out << "  " << r.name << " options: " << Join(r.instance_type_options, 8) << "\n";
  }
}

}  // namespace

json NewNodeClaimJson(const solver::NewNodeClaim& n) {
  json c;
  c["name"] = n.name;
  c["nodePool"] = n.node_pool;
  c["instanceTypeOptions"] = n.instance_type_options;
  c["launch"] = {{"instanceType", n.launch.instance_type},
                 {"zone", n.launch.zone},
                 {"capacityType", n.launch.capacity_type},
                 {"pricePerHour", n.launch.price_per_hour}};
  c["labels"] = json(n.labels);
  c["taints"] = json::array();
  for (const auto& t : n.taints) {
    json tj{{"key", t.key}};
    if (!t.value.empty()) tj["value"] = t.value;
    tj["effect"] = t.effect;
    c["taints"].push_back(tj);
  }
  json requests = json::object();
  for (const auto& [name, q] : n.requests.items()) requests[name] = q.String();
  c["requests"] = requests;
  c["pods"] = n.pods;
  return c;
}

json DisruptionPlanJson(const DisruptionPlan& plan) {
  json out;
  out["kind"] = "DisruptionPlan";
  out["commands"] = json::array();
  for (const auto& cmd : plan.commands) {
    json c;
    c["method"] = cmd.method;
    c["reason"] = cmd.reason;
    c["candidates"] = json::array();
    for (const auto& cand : cmd.candidates) c["candidates"].push_back(cand.name());
    c["replacements"] = json::array();
    for (const auto& r : cmd.replacements) c["replacements"].push_back(NewNodeClaimJson(r));
    c["savingsPerHour"] = RoundPrice(cmd.savings_per_hour);
    c["candidateNodes"] = json::array();
    for (const auto& cand : cmd.candidates) c["candidateNodes"].push_back(CandidateJson(cand));
    out["commands"].push_back(c);
  }
  out["blocked"] = json::array();
  for (const auto& b : plan.blocked) {
    out["blocked"].push_back({{"node", b.node}, {"reason", b.reason}});
  }
  out["summary"] = {{"nodes", plan.nodes},
                    {"commands", plan.commands.size()},
                    {"pricePerHourBefore", RoundPrice(plan.price_per_hour_before)},
                    {"pricePerHourAfter", RoundPrice(plan.price_per_hour_after)},
                    {"solveSeconds", plan.solve_seconds}};
  return out;
}

std::string DisruptionPlanText(const DisruptionPlan& plan) {
  std::ostringstream out;
  if (plan.commands.empty()) {
    out << "No disruption: nothing would be disrupted now.\n";
  }
  for (size_t i = 0; i < plan.commands.size(); ++i) {
    if (i) out << "\n";
    CommandText(plan.commands[i], i + 1, out);
  }
  if (!plan.blocked.empty()) {
    out << "\nBlocked nodes: " << plan.blocked.size() << "\n";
    std::vector<std::vector<std::string>> rows{{"NODE", "REASON"}};
    for (const auto& b : plan.blocked) rows.push_back({b.node, b.reason});
    out << Table(rows);
  }
  out << "\nSummary: " << Plural(static_cast<size_t>(plan.nodes), "managed node", "managed nodes")
      << ", " << Plural(plan.commands.size(), "command", "commands") << ", $"
      << Price(plan.price_per_hour_before) << "/hour before, $" << Price(plan.price_per_hour_after)
      << "/hour after (saves $" << Price(plan.price_per_hour_before - plan.price_per_hour_after)
      << "/hour), decided in " << std::setprecision(4) << plan.solve_seconds << "s\n";
  return out.str();
}

}  // namespace nodesmith::cli
