#include "controllers/disruption/orchestration_queue.h"

#include <algorithm>
#include <map>
#include <set>
#include <utility>

#include "api/conditions.h"
#include "controllers/common/karpenter.h"
#include "controllers/provisioning/nodeclaim_builder.h"
#include "scheduling/taints.h"

namespace nodesmith::controllers {
namespace {

constexpr const char* kLogger = "controller.disruption.queue";

api::Taint DisruptedTaint() {
  return api::Taint{scheduling::kTaintDisrupted, "", scheduling::kTaintEffectNoSchedule};
}

bool IsDisruptedTaint(const api::Taint& t) {
  return t.key == scheduling::kTaintDisrupted && t.effect == scheduling::kTaintEffectNoSchedule;
}

std::string Join(const std::vector<std::string>& items) {
  std::string out;
  for (const auto& s : items) out += (out.empty() ? "" : ",") + s;
  return out;
}

std::string NodesOf(const Command& command) {
  std::vector<std::string> names;
  for (const auto& c : command.candidates) names.push_back(c.name());
  return Join(names);
}

std::string NodeClaimsOf(const Command& command) {
  std::vector<std::string> names;
  for (const auto& c : command.candidates) names.push_back(c.node_claim.metadata.name);
  return Join(names);
}

// Keeps the first error of several independent steps, so one failure does not stop the rest.
void Keep(core::Status& first, core::Status next) {
  if (first.ok() && !next.ok()) first = std::move(next);
}

// Sets (`set`) or removes the DisruptionReason condition (reason and message: the command's
// reason) on every candidate's NodeClaim, as upstream marks the NodeClaims it disrupts. NodeClaims
// already gone are skipped.
core::Status SetDisruptionReason(const core::Clock& clock, cluster::ClusterApi& cluster,
                                 const Command& command, bool set) {
  core::Status first_error;
  for (const auto& c : command.candidates) {
    const std::string& name = c.node_claim.metadata.name;
    auto claim = cluster.Get<api::NodeClaim>("", name);
    if (!claim.ok()) {
      if (claim.status().code() != core::StatusCode::kNotFound) Keep(first_error, claim.status());
      continue;
    }
    auto& conditions = claim->status.conditions;
    const bool changed =
        set ? api::SetCondition(conditions, kConditionDisruptionReason, "True", command.reason,
                                clock.Now(), command.reason, claim->metadata.generation)
            : api::ClearCondition(conditions, kConditionDisruptionReason);
    if (!changed) continue;
    auto updated = cluster.Update(*claim);
    if (!updated.ok() && updated.status().code() != core::StatusCode::kNotFound) {
      Keep(first_error, updated.status().WithPrefix((set ? "setting " : "clearing ") +
                                                    std::string(kConditionDisruptionReason) +
                                                    " of nodeclaim " + name));
    }
  }
  return first_error;
}

}  // namespace

OrchestrationQueue::OrchestrationQueue(const core::Clock& clock, cluster::ClusterApi& cluster,
                                       runtime::EventRecorder& recorder,
                                       OrchestrationOptions options)
    : clock_(clock), cluster_(cluster), recorder_(recorder), options_(options) {}

bool OrchestrationQueue::InProgress(const std::string& node_name) const {
  for (const auto& f : in_flight_) {
    for (const auto& c : f.command.candidates) {
      if (c.name() == node_name) return true;
    }
  }
  return false;
}

core::Status OrchestrationQueue::Add(const Command& command) {
  if (command.empty()) return core::Status::Ok();
  for (const auto& c : command.candidates) {
    if (InProgress(c.name())) {
      return core::Status(core::StatusCode::kFailedPrecondition,
                          "node " + c.name() + " is already being disrupted");
    }
  }
  InFlight flight{command, {}, {}, clock_.Now()};
  // Cordon first: nothing may schedule onto the candidates while their replacements come up.
  if (core::Status st = SetDisruptedTaint(command, true); !st.ok()) {
    Keep(st, Abandon(flight, "tainting nodes: " + st.message()));
    return st.WithPrefix("tainting nodes " + NodesOf(command));
  }
  if (core::Status st = SetDisruptionReason(clock_, cluster_, command, true); !st.ok()) {
    Keep(st, Abandon(flight, "marking nodeclaims disrupted: " + st.message()));
    return st.WithPrefix("marking nodeclaims " + NodeClaimsOf(command) + " disrupted");
  }
  if (command.replacements.empty()) return DeleteCandidates(command);

  for (const auto& planned : command.replacements) {
    core::Status failed;
    auto pool = cluster_.Get<api::NodePool>("", planned.node_pool);
    if (!pool.ok()) {
      failed = pool.status().WithPrefix("getting nodepool " + planned.node_pool);
    } else if (auto created = cluster_.Create(BuildNodeClaim(planned, *pool)); !created.ok()) {
      failed = created.status().WithPrefix("creating replacement nodeclaim for nodepool " +
                                           planned.node_pool);
    } else {
      const std::string& name = created->metadata.name;
      flight.replacements.push_back(name);
      Emit(recorder_, runtime::LogLevel::kInfo, kLogger,
           "Launching replacement nodeclaim " + name + " for node(s) " + NodesOf(command) +
               " via " + command.method + " (" + command.reason + ")",
           "NodeClaimCreated",
           {{"nodeClaim", name},
            {"nodePool", planned.node_pool},
            {"instanceTypes", std::to_string(planned.instance_type_options.size())},
            {"replaces", NodesOf(command)},
            {"reason", command.reason}});
    }
    if (!failed.ok()) {
      // No disruption without somewhere for the pods to go.
      Keep(failed, Abandon(flight, failed.message()));
      return failed;
    }
  }
  flight.initialized.assign(flight.replacements.size(), false);
  in_flight_.push_back(std::move(flight));
  return core::Status::Ok();
}

core::Result<runtime::ReconcileResult> OrchestrationQueue::Reconcile(const runtime::Request&) {
  core::Status first_error;
  std::vector<InFlight> waiting;
  for (auto& flight : in_flight_) {
    auto outcome = Advance(flight);
    if (!outcome.ok()) {
      Keep(first_error, outcome.status());
      waiting.push_back(std::move(flight));  // tried again with backoff
    } else if (*outcome == Outcome::kWaiting) {
      waiting.push_back(std::move(flight));
    }
  }
  in_flight_ = std::move(waiting);
  if (!first_error.ok()) return first_error;
  if (in_flight_.empty()) return runtime::ReconcileResult::Done();
  // Wake at the next poll, or sooner when a command's timeout falls before it.
  const core::Time now = clock_.Now();
  core::Duration wait = options_.poll_interval;
  for (const auto& f : in_flight_) {
    const core::Time deadline = f.added + options_.replacement_timeout;
    if (deadline > now) wait = std::min(wait, deadline - now);
  }
  return runtime::ReconcileResult::RequeueAfter(wait);
}

core::Result<OrchestrationQueue::Outcome> OrchestrationQueue::Advance(InFlight& flight) {
  const Command& command = flight.command;
  std::string failure;
  for (size_t i = 0; i < flight.replacements.size() && failure.empty(); ++i) {
    if (flight.initialized[i]) continue;
    const std::string& name = flight.replacements[i];
    auto claim = cluster_.Get<api::NodeClaim>("", name);
    if (!claim.ok()) {
      if (claim.status().code() != core::StatusCode::kNotFound) return claim.status();
      failure = "replacement nodeclaim " + name + " was deleted";
    } else if (claim->metadata.deletion_timestamp) {
      failure = "replacement nodeclaim " + name + " is being deleted";
    } else if (claim->IsTrue(kConditionInitialized)) {
      flight.initialized[i] = true;
    }
  }
  if (!failure.empty()) {
    NS_RETURN_IF_ERROR(Abandon(flight, failure));
    return Outcome::kDone;
  }

  if (std::all_of(flight.initialized.begin(), flight.initialized.end(), [](bool b) { return b; })) {
    Emit(recorder_, runtime::LogLevel::kInfo, kLogger,
         "Replacement(s) " + Join(flight.replacements) + " initialized; deleting nodeclaim(s) " +
             NodeClaimsOf(command) + " of node(s) " + NodesOf(command));
    NS_RETURN_IF_ERROR(DeleteCandidates(command));
    return Outcome::kDone;
  }

  const core::Duration waited = clock_.Now() - flight.added;
  if (waited >= options_.replacement_timeout) {
    std::vector<std::string> pending;
    for (size_t i = 0; i < flight.replacements.size(); ++i) {
      if (!flight.initialized[i]) pending.push_back(flight.replacements[i]);
    }
    NS_RETURN_IF_ERROR(Abandon(flight, "replacement(s) " + Join(pending) +
                                           " not initialized after " +
                                           core::FormatDuration(waited)));
    return Outcome::kDone;
  }

  bool candidates_left = false;
  for (const auto& c : command.candidates) {
    auto claim = cluster_.Get<api::NodeClaim>("", c.node_claim.metadata.name);
    if (claim.ok() && !claim->metadata.deletion_timestamp) candidates_left = true;
  }
  if (!candidates_left) {
    Emit(recorder_, runtime::LogLevel::kInfo, kLogger,
         "Dropping disruption of node(s) " + NodesOf(command) +
             ": their nodeclaims are already being deleted");
    return Outcome::kDone;
  }
  return Outcome::kWaiting;
}

core::Status OrchestrationQueue::Abandon(const InFlight& flight, const std::string& cause) {
  const Command& command = flight.command;
  core::Status st = SetDisruptedTaint(command, false);
  Keep(st, SetDisruptionReason(clock_, cluster_, command, false));
  Emit(recorder_, runtime::LogLevel::kWarn, kLogger,
       "Abandoning disruption of node(s) " + NodesOf(command) + " via " + command.method + ": " +
           cause,
       "DisruptionAbandoned",
       {{"method", command.method},
        {"reason", command.reason},
        {"nodes", NodesOf(command)},
        {"nodeClaims", NodeClaimsOf(command)},
        {"replacements", Join(flight.replacements)},
        {"cause", cause}});
  return st;
}

core::Status OrchestrationQueue::SetDisruptedTaint(const Command& command, bool add) {
  core::Status first_error;
  for (const auto& c : command.candidates) {
    auto node = cluster_.Get<api::Node>("", c.name());
    if (!node.ok()) {
      // A node already gone needs no taint either way.
      if (node.status().code() != core::StatusCode::kNotFound) Keep(first_error, node.status());
      continue;
    }
    auto& taints = node->spec.taints;
    const bool has = std::any_of(taints.begin(), taints.end(), IsDisruptedTaint);
    if (add) {
      if (has) continue;
      // The key with another effect is replaced, not duplicated.
      std::erase_if(taints, [](const api::Taint& t) { return t.key == scheduling::kTaintDisrupted; });
      taints.push_back(DisruptedTaint());
    } else {
      if (!has) continue;
      // A node being terminated keeps its taint: the terminator put it there or relies on it.
      if (node->metadata.deletion_timestamp) continue;
      auto claim = cluster_.Get<api::NodeClaim>("", c.node_claim.metadata.name);
      if (!claim.ok() || claim->metadata.deletion_timestamp) continue;
      std::erase_if(taints, IsDisruptedTaint);
    }
    auto updated = cluster_.Update(*node);
    if (!updated.ok()) {
      Keep(first_error, updated.status().WithPrefix((add ? "cordoning node " : "uncordoning node ") +
                                                    c.name()));
      continue;
    }
    if (add) {
      tainted_.insert(c.name());
      Emit(recorder_, runtime::LogLevel::kInfo, kLogger, "Cordoned node " + c.name(),
           "NodeTainted",
           {{"node", c.name()},
            {"nodeClaim", c.node_claim.metadata.name},
            {"taint", scheduling::TaintString(DisruptedTaint())}});
    } else {
      tainted_.erase(c.name());
      Emit(recorder_, runtime::LogLevel::kInfo, kLogger, "Uncordoned node " + c.name());
    }
  }
  return first_error;
}

core::Status OrchestrationQueue::RemoveOutdatedTaints() {
  const std::vector<api::NodeClaim> claims = cluster_.List<api::NodeClaim>();
  std::map<std::string, const api::NodeClaim*> claim_by_provider_id;
  for (const auto& c : claims) {
    if (!c.status.provider_id.empty()) claim_by_provider_id[c.status.provider_id] = &c;
  }
  std::set<std::string> present;
  Command outdated;
  for (auto& node : cluster_.List<api::Node>()) {
    present.insert(node.metadata.name);
    const auto& taints = node.spec.taints;
    if (std::none_of(taints.begin(), taints.end(), IsDisruptedTaint)) continue;
    if (node.metadata.deletion_timestamp || tainted_.count(node.metadata.name) != 0 ||
        InProgress(node.metadata.name)) {
      continue;
    }
    auto it = claim_by_provider_id.find(node.spec.provider_id);
    if (it == claim_by_provider_id.end() || it->second->metadata.deletion_timestamp) continue;
    Candidate c;
    c.node_claim = *it->second;
    c.node = std::move(node);
    outdated.candidates.push_back(std::move(c));
  }
  std::erase_if(tainted_, [&](const std::string& name) { return present.count(name) == 0; });
  if (outdated.candidates.empty()) return core::Status::Ok();
  Emit(recorder_, runtime::LogLevel::kInfo, kLogger,
       "Removing the disrupted taint from node(s) " + NodesOf(outdated) +
           ": no disruption of them is in flight (one was cut short by a restart)");
  core::Status st = SetDisruptedTaint(outdated, false);
  Keep(st, SetDisruptionReason(clock_, cluster_, outdated, false));
  return st;
}

core::Status OrchestrationQueue::DeleteCandidates(const Command& command) {
  core::Status first_error;
  for (const auto& c : command.candidates) {
    const std::string& name = c.node_claim.metadata.name;
    core::Status st = cluster_.Delete<api::NodeClaim>("", name);
    if (!st.ok() && st.code() != core::StatusCode::kNotFound) {
      Keep(first_error, st.WithPrefix("deleting nodeclaim " + name));
    }
  }
  return first_error;
}

}  // namespace nodesmith::controllers
