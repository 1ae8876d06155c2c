// What a controller's report (runtime::RecordedEvent) becomes in a real cluster: a log line with
// Karpenter's message and structured fields, and the core/v1 Events Karpenter would publish, so
// log queries, `kubectl describe` and `kubectl get events` keep working for a Karpenter user.
//
// The controllers report in the simulator's words ("Created nodeclaim default-x2k4q" with fields
// {"nodeClaim": ...}); this file is the one place that knows Karpenter's:
//   NodeClaimCreated   "created nodeclaim"       NodePool, NodeClaim, instance-types
//                      (from disruption: also the DisruptionLaunching Event on the NodeClaim)
//   NodeClaimLaunched  "launched nodeclaim"      NodeClaim, provider-id, instance-type, zone,
//                                                capacity-type
//   NodeRegistered     "registered nodeclaim"    NodeClaim, Node
//   NodeInitialized    "initialized nodeclaim"   NodeClaim, Node
//   NodeTainted        "tainted node"            Node, taint
//   NodeClaimDeleted   "deleted nodeclaim"       NodeClaim, Node, reason (nodesmith: every delete
//                                                says why)
//   DisruptionDecision "disrupting node(s)"      command, reason, ...; DisruptionTerminating
//                                                Events on each Node and NodeClaim
//   PodNominated       Nominated Event on the pod ("Pod should schedule on: nodeclaim/<name>")
//   PodUnschedulable   "could not schedule pod" + FailedScheduling Event
//   PodEvicted         Evicted (or, forced, Disrupted) Event on the pod
//   NodeClaimLaunchFailed  "failed launching nodeclaim" + InsufficientCapacityError Event
// and a few untyped lines by their wording ("Found N provisionable pods" -> "found provisionable
// pod(s)", "Computed N new nodeclaim(s) to fit M pod(s)" -> "computed new nodeclaim(s) to fit
// pod(s)" (one a round, as Karpenter's; the per-NodeClaim "Computed packing ..." becomes DEBUG),
// "Deleted node X" -> "deleted node"). Anything else keeps its message. Pure functions; no I/O.
#pragma once

#include <string>
#include <vector>

#include <nlohmann/json.hpp>

#include "operator/json_logger.h"
#include "runtime/event_recorder.h"

namespace nodesmith::op {

// A core/v1 Event to publish about one object.
struct KubeEventSpec {
  std::string kind;        // "Pod", "Node", "NodeClaim", "NodePool"
  std::string namespace_;  // pods only
  std::string name;
  bool warning = false;
  std::string reason;
  std::string message;
  bool operator==(const KubeEventSpec&) const = default;
};

struct OperatorLine {
  LogSeverity severity = LogSeverity::kInfo;
  std::string controller;  // "provisioner", "nodeclaim.lifecycle", ...
  std::string message;
  nlohmann::ordered_json fields = nlohmann::ordered_json::object();
  std::vector<KubeEventSpec> events;
};

OperatorLine TranslateRecordedEvent(const runtime::RecordedEvent& event);

// The value of a report's field ("" when absent).
std::string FieldOf(const runtime::RecordedEvent& event, const std::string& key);
using runtime::SplitFieldList;  // a field that lists names ("n1,n2"), split

// "controller.nodeclaim.lifecycle" -> "nodeclaim.lifecycle".
std::string ControllerOfLogger(const std::string& logger);

// Karpenter's name of a notice's kind (the interruption metrics' message_type, the log's
// messageKind) for nodesmith's (cloud::InterruptionMessageKindName): "spot" -> "spot_interrupted".
std::string InterruptionMessageType(const std::string& kind);

}  // namespace nodesmith::op
