#include "controllers/disruption/disruption_controller.h"

#include <algorithm>
#include <charconv>
#include <climits>
#include <set>
#include <cmath>

#include "controllers/common/karpenter.h"
#include "controllers/controllers.h"
#include "controllers/disruption/budgets.h"
#include "controllers/disruption/candidates.h"
#include "controllers/disruption/drift.h"
#include "controllers/disruption/emptiness.h"
#include "controllers/disruption/expiration.h"
#include "controllers/disruption/multi_node_consolidation.h"
#include "controllers/disruption/orchestration_queue.h"
#include "controllers/disruption/single_node_consolidation.h"
#include "core/field_hasher.h"

namespace nodesmith::controllers {
namespace {

constexpr const char* kLogger = "controller.disruption";

// A command issued: look again at once, as Karpenter does, rather than a poll later. The next
// pass sees the cluster the command left (its candidates disrupting, their budget taken), so
// drift and expiry replace node after node without a 10-second pause between them.
const runtime::ReconcileResult kAgain =
    runtime::ReconcileResult::RequeueAfter(std::chrono::nanoseconds(1));

std::string FormatPrice(double price) {
  price = std::round(price * 1e6) / 1e6;  // hide float noise from summing prices
  char buf[64];
  auto r = std::to_chars(buf, buf + sizeof(buf), price);
  return std::string(buf, r.ptr);
}

}  // namespace

std::vector<std::unique_ptr<Method>> DefaultMethods(const core::Clock& clock,
                                                    SchedulingSimulator& simulator,
                                                    const MethodOptions& options) {
  std::vector<std::unique_ptr<Method>> methods;
  methods.push_back(std::make_unique<Emptiness>(clock));
  methods.push_back(std::make_unique<Drift>(clock, simulator));
  methods.push_back(std::make_unique<Expiration>(clock));
  methods.push_back(std::make_unique<MultiNodeConsolidation>(clock, simulator, options));
  methods.push_back(std::make_unique<SingleNodeConsolidation>(clock, simulator, options));
  return methods;
}

runtime::RecordedEvent ConsolidationTimeoutEvent(const std::string& method,
                                                 const std::string& consolidation_type,
                                                 ConsolidationTimeout timeout) {
  const bool paused = timeout == ConsolidationTimeout::kPaused;
  std::string message =
      paused ? "Pausing " + method + " consolidation: this pass's share of simulation is spent; " +
                   "the next pass goes on with the candidates not yet tried"
             : "Cutting " + method + " consolidation short: this pass's share of simulation is " +
                   "spent; " +
                   (timeout == ConsolidationTimeout::kCutShortWithCommand
                        ? "acting on the best command found"
                        : "no command was found");
  return {runtime::LogLevel::kDebug,
          kLogger,
          std::move(message),
          "",
          {{"consolidationType", consolidation_type},
           {kConsolidationTimeoutField, paused ? "paused" : "cutShort"}}};
}

DisruptionController::DisruptionController(const core::Clock& clock, cluster::ClusterApi& cluster,
                                           cloud::CloudProvider& cloud,
                                           runtime::EventRecorder& recorder,
                                           std::vector<std::unique_ptr<Method>> methods,
                                           DisruptionOptions options)
    : clock_(clock), cluster_(cluster), cloud_(cloud), recorder_(recorder),
      methods_(std::move(methods)), options_(options),
      pods_(options_.index_pods ? std::make_unique<PodsByNode>(cluster) : nullptr) {}

std::string DisruptionController::Name() const { return kDisruptionName; }

uint64_t DisruptionController::ConsolidationState(const std::vector<Candidate>& candidates) const {
  // FNV-1a over the names, versions and pods that consolidation reads.
  core::FieldHasher hasher;
  auto mix = [&hasher](const std::string& s) { hasher.Add(s); };
  for (const auto& c : candidates) {
    mix(c.name());
    mix(c.node.metadata.resource_version);
    // The NodeClaim as consolidation reads it, not its resourceVersion: the conditions that
    // only report on disruption (Consolidatable, DisruptionReason) are written as a consequence
    // of what is mixed here and must not count as a change.
    const api::NodeClaim& claim = c.node_claim;
    mix(std::to_string(claim.metadata.generation));
    for (const auto& [k, v] : claim.metadata.labels) { mix(k); mix(v); }
    for (const auto& [k, v] : claim.metadata.annotations) { mix(k); mix(v); }
    if (const auto& t = claim.status.last_pod_event_time) mix(core::FormatRfc3339(*t));
    for (const auto& cond : claim.status.conditions) {
      if (cond.type == kConditionConsolidatable || cond.type == kConditionDisruptionReason) {
        continue;
      }
      mix(cond.type);
      mix(cond.status);
      mix(cond.reason);
    }
    mix(c.blocked);
    // Whether consolidateAfter has passed: a node turns consolidatable by time alone.
    const auto& after = c.node_pool.disruption.consolidate_after;
    mix(!after.never() && clock_.Now() >= c.last_activity + *after.value ? "ready" : "waiting");
    for (const auto& pod : c.reschedulable_pods) mix(pod);
  }
  // NodePools by generation: their status (counts, conditions) and annotations (hash) follow
  // the nodes and do not change what consolidation may do.
  cluster_.ForEachObject(cluster::Kind::kNodePool, [&](const cluster::Object& o) {
    const auto& pool = std::get<api::NodePool>(o);
    mix(pool.metadata.name);
    mix(pool.metadata.uid);
    mix(std::to_string(pool.metadata.generation));
    mix(pool.metadata.deletion_timestamp ? "deleting" : "");
  });
  if (pods_ != nullptr) {
    for (const auto& [key, pod] : pods_->Unbound()) mix(key.second);
  } else {
    cluster_.ForEachPodOn("", [&](const api::Pod& pod) { mix(pod.metadata.name); });
  }
  return hasher.value();
}

DisruptionController::Survey DisruptionController::TakeSurvey() {
  Survey survey;
  survey.candidates = BuildCandidates(clock_, cluster_, cloud_, options_.nominations.get(),
                                      &survey.excluded, pods_.get());
  ObserveEmptiness(survey.candidates);
  return survey;
}

core::Result<DisruptionController::Pass> DisruptionController::RunPass(
    bool skip_unchanged, size_t first_method, bool bounded, std::optional<Survey> survey) {
  if (options_.simulator) {
    options_.simulator->Reset(bounded ? options_.simulation_work_per_pass : 0);
  }
  if (!survey) survey = TakeSurvey();
  Pass pass;
  std::vector<Candidate> all = std::move(survey->candidates);
  pass.decision.blocked = std::move(survey->excluded);
  pass.decision.nodes = static_cast<int>(all.size() + pass.decision.blocked.size());
  if (options_.queue != nullptr) {
    std::erase_if(all, [&](const Candidate& c) {
      if (!options_.queue->InProgress(c.name())) return false;
      pass.decision.blocked.push_back({c.name(), "a disruption is already in progress on it"});
      return true;
    });
  }
  for (const auto& c : all) {
    if (!c.blocked.empty()) pass.decision.blocked.push_back({c.name(), c.blocked});
  }
  const core::Time now = clock_.Now();
  const uint64_t state = ConsolidationState(all);
  const bool unchanged = skip_unchanged && idle_state_ && *idle_state_ == state &&
                         now < idle_since_ + options_.consolidation_recheck;
  bool consolidation_ran = false;
  // Budgets that stopped a method from considering a node, reported when nothing else acts on it.
  std::map<std::string, std::string> budget_blocked;
  for (size_t m = first_method; m < methods_.size() && !pass.decision.command; ++m) {
    const auto& method = methods_[m];
    const std::string type = method->ConsolidationType();
    const bool expensive = type == "multi" || type == "single";
    if (expensive && unchanged) continue;
    consolidation_ran = consolidation_ran || expensive;
    std::vector<Candidate> eligible;
    for (const auto& c : all) {
      if (!method->Forceful() && !c.blocked.empty()) continue;
      if (method->ShouldDisrupt(c)) eligible.push_back(c);
    }
    if (eligible.empty()) continue;
    BudgetMapping budgets;
    if (method->Forceful()) {
      for (const auto& c : eligible) budgets[c.node_pool_name()] = INT_MAX;
    } else {
      budgets = BuildBudgetMapping(cluster_, method->Reason(), now);
      for (const auto& c : eligible) {
        auto b = budgets.find(c.node_pool_name());
        if (b == budgets.end() || b->second <= 0) {
          budget_blocked.emplace(c.name(), "disruption budgets of nodepool " + c.node_pool_name() +
                                               " allow no more disruptions for reason " +
                                               method->Reason() + " now");
        }
      }
    }
    auto commands = method->ComputeCommands(budgets, eligible);
    if (!commands.ok()) return commands.status().WithPrefix(method->Name());
    // A method waiting for capacity coming up ends the pass: the next, a second later, acts on
    // its candidate. A later method's command now (a consolidation, held for its validation
    // delay) would keep it waiting all that time.
    if (method->WaitingForCapacity()) {
      pass.decision.waiting_for_capacity = true;
      break;
    }
    for (auto& cmd : *commands) {
      if (cmd.empty()) continue;
      pass.decision.command = std::move(cmd);
      pass.method = m;
      break;
    }
    if (!pass.decision.command && method->Unfinished()) {
      recorder_.Record(
          ConsolidationTimeoutEvent(method->Name(), type, ConsolidationTimeout::kPaused));
      pass.unfinished = true;
      break;
    }
    if (method->CutShort()) {
      recorder_.Record(ConsolidationTimeoutEvent(
          method->Name(), type,
          pass.decision.command ? ConsolidationTimeout::kCutShortWithCommand
                                : ConsolidationTimeout::kCutShortWithoutCommand));
    }
  }
  if (skip_unchanged && consolidation_ran) {
    if (pass.decision.command || pass.unfinished) {
      // A command changes the cluster; an unfinished round has not looked at all of it.
      idle_state_.reset();
    } else {
      idle_state_ = state;
      idle_since_ = now;
    }
  }
  for (const auto& [node, reason] : budget_blocked) {
    bool acted = false;
    if (pass.decision.command) {
      for (const auto& c : pass.decision.command->candidates) acted = acted || c.name() == node;
    }
    if (!acted) pass.decision.blocked.push_back({node, reason});
  }
  return pass;
}

core::Result<Decision> DisruptionController::Decide() {
  auto pass = RunPass(/*skip_unchanged=*/false, /*first_method=*/0, /*bounded=*/false);
  if (!pass.ok()) return pass.status();
  return std::move(pass->decision);
}

core::Result<runtime::ReconcileResult> DisruptionController::Reconcile(const runtime::Request&) {
  const core::Time now = clock_.Now();
  if (options_.queue != nullptr &&
      (!taints_checked_ || now - *taints_checked_ >= options_.consolidation_recheck)) {
    NS_RETURN_IF_ERROR(options_.queue->RemoveOutdatedTaints().WithPrefix(
        "removing the disrupted taints of commands cut short"));
    taints_checked_ = now;
  }
  if (held_) {
    if (now < held_->since + options_.validation_delay) {
      return runtime::ReconcileResult::RequeueAfter(held_->since + options_.validation_delay - now);
    }
    Held held = std::move(*held_);
    held_.reset();
    Survey survey = TakeSurvey();
    auto valid = Validate(held.command, held.method, survey);
    if (!valid.ok()) return valid.status().WithPrefix("validating " + held.command.method);
    if (!*valid) {
      Emit(recorder_, runtime::LogLevel::kInfo, kLogger,
           "Abandoning " + held.command.method + " disruption of " +
               std::to_string(held.command.candidates.size()) +
               " candidate(s): the command is no longer valid");
      // As Karpenter, the methods after it look now. Their pass records no idle state: the
      // abandoned method has not looked at this cluster.
      auto rest = RunPass(/*skip_unchanged=*/false, held.method + 1, /*bounded=*/true,
                          std::move(survey));
      if (!rest.ok()) return rest.status();
      return Act(std::move(*rest));
    }
    NS_RETURN_IF_ERROR(Execute(held.command));
    return kAgain;
  }
  auto pass = RunPass(/*skip_unchanged=*/true);
  if (!pass.ok()) return pass.status();
  return Act(std::move(*pass));
}

core::Result<runtime::ReconcileResult> DisruptionController::Act(Pass pass) {
  // Unfinished: the other controllers' waiting work runs first (it is due already), then the
  // next pass goes on.
  if (!pass.decision.command && pass.unfinished) return kAgain;
  if (!pass.decision.command) {
    return runtime::ReconcileResult::RequeueAfter(pass.decision.waiting_for_capacity
                                                      ? options_.capacity_recheck
                                                      : options_.poll_interval);
  }
  Command& command = *pass.decision.command;
  const bool validates = !methods_[pass.method]->ConsolidationType().empty();
  if (validates && options_.validation_delay > core::Duration::zero()) {
    held_ = Held{std::move(command), pass.method, clock_.Now()};
    return runtime::ReconcileResult::RequeueAfter(options_.validation_delay);
  }
  NS_RETURN_IF_ERROR(Execute(command));
  return kAgain;  // one command per pass: the next sees the cluster it left
}

core::Result<bool> DisruptionController::Validate(const Command& command, size_t m,
                                                  const Survey& survey) {
  if (options_.simulator) options_.simulator->Reset();
  const auto& method = methods_[m];
  std::map<std::string, const Candidate*> by_name;
  for (const auto& c : survey.candidates) by_name[c.name()] = &c;
  // Every candidate must still be one, unblocked, that the method would consider.
  std::vector<Candidate> still;
  for (const auto& c : command.candidates) {
    auto it = by_name.find(c.name());
    if (it == by_name.end()) return false;
    const Candidate& now_c = *it->second;
    if (!method->Forceful() && !now_c.blocked.empty()) return false;
    if (!method->ShouldDisrupt(now_c)) return false;
    still.push_back(now_c);
  }
  BudgetMapping budgets = BuildBudgetMapping(cluster_, method->Reason(), clock_.Now());
  auto commands = method->ComputeCommands(budgets, still);
  if (!commands.ok()) return commands.status();
  for (const auto& again : *commands) {
    if (again.empty()) continue;
    std::set<std::string> before, after;
    for (const auto& c : command.candidates) before.insert(c.name());
    for (const auto& c : again.candidates) after.insert(c.name());
    if (before != after || again.replacements.size() != command.replacements.size()) return false;
    for (size_t i = 0; i < command.replacements.size(); ++i) {
      const auto& now_options = again.replacements[i].instance_type_options;
      for (const auto& type : command.replacements[i].instance_type_options) {
        if (std::find(now_options.begin(), now_options.end(), type) == now_options.end()) {
          return false;
        }
      }
    }
    return true;
  }
  return false;
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
  if (!command.replacements.empty() && options_.queue == nullptr) {
    // Replacing nodes needs the queue to launch the replacements before deleting anything.
    return core::Status::Internal(command.method +
                                  " asked for replacements without an orchestration queue");
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
  if (options_.queue != nullptr) return options_.queue->Add(command);
  for (const auto& c : command.candidates) {
    core::Status st = cluster_.Delete<api::NodeClaim>("", c.node_claim.metadata.name);
    if (!st.ok() && st.code() != core::StatusCode::kNotFound) {
      return st.WithPrefix("deleting nodeclaim " + c.node_claim.metadata.name);
    }
  }
  return core::Status::Ok();
}

}  // namespace nodesmith::controllers
