#include "controllers/disruption/disruption_controller.h"

#include <charconv>
#include <cmath>

#include "controllers/common/karpenter.h"
#include "controllers/controllers.h"
#include "controllers/disruption/candidates.h"
#include "controllers/disruption/emptiness.h"

namespace nodesmith::controllers {
namespace {

constexpr const char* kLogger = "controller.disruption";

std::string FormatPrice(double price) {
  price = std::round(price * 1e6) / 1e6;  // hide float noise from summing prices
  char buf[64];
  auto r = std::to_chars(buf, buf + sizeof(buf), price);
  return std::string(buf, r.ptr);
}

}  // namespace

std::vector<std::unique_ptr<Method>> DefaultMethods(const core::Clock& clock) {
  std::vector<std::unique_ptr<Method>> methods;
  methods.push_back(std::make_unique<Emptiness>(clock));
  return methods;
}

DisruptionController::DisruptionController(const core::Clock& clock, cluster::ClusterApi& cluster,
                                           cloud::CloudProvider& cloud,
                                           runtime::EventRecorder& recorder,
                                           std::vector<std::unique_ptr<Method>> methods,
                                           DisruptionOptions options)
    : clock_(clock), cluster_(cluster), cloud_(cloud), recorder_(recorder),
      methods_(std::move(methods)), options_(options) {}

std::string DisruptionController::Name() const { return kDisruptionName; }

core::Result<runtime::ReconcileResult> DisruptionController::Reconcile(const runtime::Request&) {
  const auto requeue = runtime::ReconcileResult::RequeueAfter(options_.poll_interval);
  std::vector<Candidate> all = BuildCandidates(clock_, cluster_, cloud_, options_.nominations.get());
  ObserveEmptiness(all);
  if (all.empty()) return requeue;
  for (const auto& method : methods_) {
    std::vector<Candidate> eligible;
    for (const auto& c : all) {
      if (method->ShouldDisrupt(c)) eligible.push_back(c);
    }
    if (eligible.empty()) continue;
    BudgetMapping budgets = BuildBudgetMapping(cluster_, method->Reason());
    auto commands = method->ComputeCommands(budgets, eligible);
    if (!commands.ok()) return commands.status().WithPrefix(method->Name());
    for (const auto& cmd : *commands) {
      if (cmd.empty()) continue;
      NS_RETURN_IF_ERROR(Execute(cmd));
      return requeue;  // one command per pass: the next sees the cluster it left
    }
  }
  return requeue;
}

void DisruptionController::ObserveEmptiness(std::vector<Candidate>& candidates) {
  const core::Time now = clock_.Now();
  std::map<std::string, Seen> next;
  for (Candidate& c : candidates) {
    Seen seen;
    auto prev = seen_.find(c.node_claim.metadata.name);
    if (prev != seen_.end()) seen = prev->second;
    if (!c.reschedulable_pods.empty()) {
      seen = Seen{true, std::nullopt};
    } else if (seen.had_pods && !seen.emptied_at) {
      seen.emptied_at = now;
    }
    if (seen.emptied_at && *seen.emptied_at > c.last_activity) c.last_activity = *seen.emptied_at;
    next[c.node_claim.metadata.name] = seen;
  }
  seen_ = std::move(next);
}

core::Status DisruptionController::Execute(const Command& command) {
  if (!command.replacements.empty()) {
    // Replacing nodes needs launch-before-delete orchestration no method asks for yet.
    return core::Status::Internal(command.method + " asked for replacements, not supported yet");
  }
  std::string nodes, claims;
  for (const auto& c : command.candidates) {
    nodes += (nodes.empty() ? "" : ",") + c.name();
    claims += (claims.empty() ? "" : ",") + c.node_claim.metadata.name;
  }
  for (const auto& c : command.candidates) {
    if (command.reason == "Empty") {
      const auto& after = c.node_pool.disruption.consolidate_after;
      Emit(recorder_, runtime::LogLevel::kInfo, kLogger,
           "Triggering termination after " + core::FormatNillableDuration(after) +
               " for empty node " + c.name());
    } else {
      Emit(recorder_, runtime::LogLevel::kInfo, kLogger,
           "Disrupting node " + c.name() + " via " + command.method + " (" + command.reason + ")");
    }
  }
  Emit(recorder_, runtime::LogLevel::kInfo, kLogger,
       "Disrupting via " + command.method + " " + std::to_string(command.candidates.size()) +
           " candidate(s) [" + nodes + "], savings $" + FormatPrice(command.savings_per_hour) +
           "/hour",
       "DisruptionDecision",
       {{"method", command.method},
        {"reason", command.reason},
        {"nodes", nodes},
        {"nodeClaims", claims},
        {"savingsPerHour", FormatPrice(command.savings_per_hour)}});
  for (const auto& c : command.candidates) {
    core::Status st = cluster_.Delete<api::NodeClaim>("", c.node_claim.metadata.name);
    if (!st.ok() && st.code() != core::StatusCode::kNotFound) {
      return st.WithPrefix("deleting nodeclaim " + c.node_claim.metadata.name);
    }
  }
  return core::Status::Ok();
}

}  // namespace nodesmith::controllers
