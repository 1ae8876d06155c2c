#include "operator/karpenter_log.h"

#include <charconv>
#include <cstdint>
#include <optional>

namespace nodesmith::op {

namespace {

using Fields = std::vector<std::pair<std::string, std::string>>;

std::string Field(const Fields& fields, const std::string& key) {
  for (const auto& [k, v] : fields) {
    if (k == key) return v;
  }
  return "";
}

bool StartsWith(const std::string& s, const std::string& prefix) {
  return s.compare(0, prefix.size(), prefix) == 0;
}

nlohmann::ordered_json Ref(const std::string& name) { return {{"name", name}}; }

// "default/inflate-1" -> {"name":"inflate-1","namespace":"default"}
nlohmann::ordered_json PodRef(const std::string& key) {
  const auto slash = key.find('/');
  if (slash == std::string::npos) return {{"name", key}};
  return {{"name", key.substr(slash + 1)}, {"namespace", key.substr(0, slash)}};
}

KubeEventSpec PodEvent(const std::string& key, bool warning, std::string reason,
                       std::string message) {
  KubeEventSpec e;
  e.kind = "Pod";
  const auto slash = key.find('/');
  if (slash != std::string::npos) {
    e.namespace_ = key.substr(0, slash);
    e.name = key.substr(slash + 1);
  } else {
    e.name = key;
  }
  e.warning = warning;
  e.reason = std::move(reason);
  e.message = std::move(message);
  return e;
}

LogSeverity SeverityOf(runtime::LogLevel level) {
  switch (level) {
    case runtime::LogLevel::kDebug:
      return LogSeverity::kDebug;
    case runtime::LogLevel::kInfo:
      return LogSeverity::kInfo;
    case runtime::LogLevel::kWarn:
      return LogSeverity::kWarn;
    case runtime::LogLevel::kError:
      return LogSeverity::kError;
  }
  return LogSeverity::kInfo;
}

// A count the controller reported as a decimal string; nullopt if it is not one.
std::optional<int64_t> CountOf(const Fields& fields, const std::string& key) {
  const std::string v = Field(fields, key);
  int64_t n = 0;
  const auto [end, ec] = std::from_chars(v.data(), v.data() + v.size(), n);
  if (v.empty() || ec != std::errc() || end != v.data() + v.size()) return std::nullopt;
  return n;
}

// The count as the JSON number Karpenter logs (the string itself if it is not one).
nlohmann::ordered_json CountField(const Fields& fields, const std::string& key) {
  const auto n = CountOf(fields, key);
  if (!n) return Field(fields, key);
  return *n;
}

// "a, b, c and 7 other(s)": the names given, then how many of `total` were left out, as
// Karpenter's pretty.Slice writes a list into a log line.
std::string PrettyList(const std::vector<std::string>& first, int64_t total) {
  std::string out;
  for (size_t i = 0; i < first.size(); ++i) out += (i == 0 ? "" : ", ") + first[i];
  const int64_t left = total - static_cast<int64_t>(first.size());
  if (left > 0) out += " and " + std::to_string(left) + " other(s)";
  return out;
}

// A word after `marker` in `message` ("Found 5 provisionable" -> "5").
std::string WordAfter(const std::string& message, const std::string& marker) {
  auto at = message.find(marker);
  if (at == std::string::npos) return "";
  std::string rest = message.substr(at + marker.size());
  return rest.substr(0, rest.find(' '));
}

// Karpenter's event and message kind for a notice of nodesmith's kind
// (cloud::InterruptionMessageKindName).
struct InterruptionEvent {
  std::string reason;
  std::string message;
  bool warning = true;
  std::string message_kind;  // the log's messageKind, as Karpenter's parser names it
};

InterruptionEvent InterruptionEventOf(const std::string& kind) {
  if (kind == "spot")
    return {"SpotInterrupted", "Spot interruption warning was triggered", true, "spot_interrupted"};
  if (kind == "rebalanceRecommendation")
    return {"SpotRebalanceRecommendation", "Spot rebalance recommendation was triggered", false,
            "rebalance_recommendation"};
  if (kind == "stopping" || kind == "stopped")
    return {"InstanceStopping", "Instance is stopping", true, "state_change"};
  if (kind == "shutting-down" || kind == "terminated")
    return {"InstanceTerminating", "Instance is terminating", true, "state_change"};
  if (kind == "scheduledChange")
    return {"InstanceUnhealthy", "An unhealthy warning was triggered for the instance", true,
            "scheduled_change"};
  if (kind == "capacityReservation")
    return {"CapacityReservationInstanceInterrupted",
            "Capacity Reservation interruption warning was triggered", true,
            "capacity_reservation_interrupted"};
  return {"", "", false, "no_op"};
}

}  // namespace

std::string InterruptionMessageType(const std::string& kind) {
  return InterruptionEventOf(kind).message_kind;
}

std::string FieldOf(const runtime::RecordedEvent& event, const std::string& key) {
  return Field(event.fields, key);
}

std::string ControllerOfLogger(const std::string& logger) {
  const std::string prefix = "controller.";
  return StartsWith(logger, prefix) ? logger.substr(prefix.size()) : logger;
}

OperatorLine TranslateRecordedEvent(const runtime::RecordedEvent& event) {
  OperatorLine line;
  line.severity = SeverityOf(event.level);
  line.controller = ControllerOfLogger(event.logger);
  line.message = event.message;
  const Fields& f = event.fields;
  auto& out = line.fields;
  const std::string claim = Field(f, "nodeClaim");
  const std::string node = Field(f, "node");
  const std::string pool = Field(f, "nodePool");

  if (event.type == "NodeClaimCreated") {
    line.message = "created nodeclaim";
    if (!pool.empty()) out["NodePool"] = Ref(pool);
    out["NodeClaim"] = Ref(claim);
    if (auto n = Field(f, "instanceTypes"); !n.empty()) out["instance-types"] = n;
    if (auto pods = Field(f, "pods"); !pods.empty()) out["pods"] = pods;
    if (line.controller == "disruption.queue") {
      const std::string reason = WordAfter(event.message, "(");
      line.events.push_back({"NodeClaim", "", claim, false, "DisruptionLaunching",
                             "Launching NodeClaim: " + reason.substr(0, reason.find(')'))});
    }
  } else if (event.type == "NodeClaimLaunched") {
    line.message = "launched nodeclaim";
    out["NodeClaim"] = Ref(claim);
    out["provider-id"] = Field(f, "providerID");
    out["instance-type"] = Field(f, "instanceType");
    out["zone"] = Field(f, "zone");
    out["capacity-type"] = Field(f, "capacityType");
    if (auto price = Field(f, "pricePerHour"); !price.empty()) out["price-per-hour"] = price;
  } else if (event.type == "NodeRegistered" || event.type == "NodeInitialized") {
    line.message =
        event.type == "NodeRegistered" ? "registered nodeclaim" : "initialized nodeclaim";
    out["NodeClaim"] = Ref(claim);
    out["Node"] = Ref(node);
  } else if (event.type == "NodeTainted") {
    line.message = "tainted node";
    out["Node"] = Ref(node);
    if (!claim.empty()) out["NodeClaim"] = Ref(claim);
    out["taint"] = Field(f, "taint");
  } else if (event.type == "NodeClaimDeleted") {
    line.message = "deleted nodeclaim";
    out["NodeClaim"] = Ref(claim);
    if (!node.empty()) out["Node"] = Ref(node);
    if (auto reason = Field(f, "reason"); !reason.empty()) out["reason"] = reason;
  } else if (event.type == "DisruptionDecision") {
    line.message = "disrupting node(s)";
    const std::string method = Field(f, "method");
    const std::string reason = Field(f, "reason");
    out["command"] = event.message;
    out["reason"] = reason;
    out["method"] = method;
    const auto nodes = SplitFieldList(Field(f, "nodes"));
    const auto claims = SplitFieldList(Field(f, "nodeClaims"));
    out["disrupted-node-count"] = nodes.size();
    if (auto savings = Field(f, "savingsPerHour"); !savings.empty()) out["savings"] = savings;
    for (const auto& n : nodes) {
      line.events.push_back(
          {"Node", "", n, false, "DisruptionTerminating", "Disrupting Node: " + reason});
    }
    for (const auto& c : claims) {
      line.events.push_back(
          {"NodeClaim", "", c, false, "DisruptionTerminating", "Disrupting NodeClaim: " + reason});
    }
  } else if (event.type == "DisruptionAbandoned") {
    line.message = "abandoning disruption";
    out["command"] = event.message;
    out["reason"] = Field(f, "reason");
  } else if (event.type == "PodNominated") {
    const std::string pod = Field(f, "pod");
    line.severity = LogSeverity::kDebug;
    line.message = "nominated pod";
    out["Pod"] = PodRef(pod);
    const std::string target = claim.empty() ? "node/" + node : "nodeclaim/" + claim;
    out["target"] = target;
    line.events.push_back(
        PodEvent(pod, false, "Nominated", "Pod should schedule on: " + target));
  } else if (event.type == "PodUnschedulable") {
    const std::string pod = Field(f, "pod");
    const std::string reason = Field(f, "reason");
    line.severity = LogSeverity::kError;
    line.message = "could not schedule pod";
    out["Pod"] = PodRef(pod);
    out["error"] = reason;
    line.events.push_back(
        PodEvent(pod, true, "FailedScheduling", "Failed to schedule pod, " + reason));
  } else if (event.type == "PodEvicted") {
    const std::string pod = Field(f, "pod");
    const bool forced = Field(f, "forced") == "true";
    line.severity = LogSeverity::kDebug;
    line.message = forced ? "deleting pod" : "evicted pod";
    out["Pod"] = PodRef(pod);
    if (!node.empty()) out["Node"] = Ref(node);
    line.events.push_back(
        forced ? PodEvent(pod, true, "Disrupted",
                          "Deleting the pod to accommodate the terminationTime of the node")
               : PodEvent(pod, false, "Evicted", "Evicted pod: node " + node + " is terminating"));
  } else if (event.type == "NodeClaimLaunchFailed") {
    line.message = "failed launching nodeclaim";
    out["NodeClaim"] = Ref(claim);
    out["error"] = event.message;
    line.events.push_back({"NodeClaim", "", claim, true, "InsufficientCapacityError",
                           "NodeClaim " + claim + " event: " + event.message});
  } else if (event.type == "WaitingOnNodeClaimTermination") {
    const std::string node_class = Field(f, "ec2NodeClass");
    line.message = "waiting on nodeclaim termination";
    out["EC2NodeClass"] = Ref(node_class);
    out["nodeclaims"] = Field(f, "nodeClaims");
    line.events.push_back({"EC2NodeClass", "", node_class, false, "WaitingOnNodeClaimTermination",
                           event.message});
  } else if (event.type == "NodeClaimNotRegistered") {
    line.message = "terminating due to registration timeout";
    out["NodeClaim"] = Ref(claim);
    out["reason"] = "registration timeout";
  } else if (event.type == "NodeClaimGarbageCollected") {
    line.message = "garbage collecting nodeclaim with no cloudprovider representation";
    out["NodeClaim"] = Ref(claim);
    out["provider-id"] = Field(f, "providerID");
  } else if (event.type == "Interruption") {
    // Karpenter's events for the notice, on the NodeClaim and its Node.
    const InterruptionEvent e = InterruptionEventOf(Field(f, "kind"));
    if (!e.reason.empty()) {
      line.events.push_back({"NodeClaim", "", claim, e.warning, e.reason, e.message});
      if (!node.empty()) line.events.push_back({"Node", "", node, e.warning, e.reason, e.message});
    }
  } else if (StartsWith(event.message, "Deleting nodeclaim ") &&
             line.controller == "interruption") {
    line.message = "initiating delete from interruption message";
    out["NodeClaim"] = Ref(claim);
    out["messageKind"] = InterruptionMessageType(Field(f, "kind"));
    out["action"] = "CordonAndDrain";
    line.events.push_back({"NodeClaim", "", claim, true, "TerminatingOnInterruption",
                           "Interruption triggered termination for the NodeClaim"});
  } else if (event.type == "InstanceGarbageCollected") {
    line.message = "garbage collected instance with no nodeclaim";
    out["provider-id"] = Field(f, "providerID");
  } else if (StartsWith(event.message, "Found ") &&
             event.message.find(" provisionable pods") != std::string::npos) {
    line.message = "found provisionable pod(s)";
    out["Pods"] = PrettyList(SplitFieldList(Field(f, "firstPods")), CountOf(f, "pods").value_or(0));
  } else if (StartsWith(event.message, "Computed ") &&
             event.message.find(" new nodeclaim(s) to fit ") != std::string::npos) {
    line.message = "computed new nodeclaim(s) to fit pod(s)";
    out["nodeclaims"] = CountField(f, "nodeclaims");
    out["pods"] = CountField(f, "pods");
  } else if (StartsWith(event.message, "Computed ") &&
             event.message.find(" existing node(s) will fit ") != std::string::npos) {
    line.message = "computed unready node(s) will fit pod(s)";
    out["nodes"] = CountField(f, "nodes");
    out["pods"] = CountField(f, "pods");
  } else if (StartsWith(event.message, "Computed packing for ")) {
    // One line a NodeClaim; Karpenter logs only the round's summary above, so this is detail.
    line.severity = LogSeverity::kDebug;
    line.message = event.message;
  } else if (StartsWith(event.message, "Deleted node ")) {
    line.message = "deleted node";
    out["Node"] = Ref(event.message.substr(13));
  } else {
    // Keep the words; carry the fields under Karpenter-like names.
    for (const auto& [k, v] : f) {
      if (k == "nodeClaim") {
        out["NodeClaim"] = Ref(v);
      } else if (k == "node") {
        out["Node"] = Ref(v);
      } else if (k == "nodePool") {
        out["NodePool"] = Ref(v);
      } else if (k == "pod") {
        out["Pod"] = PodRef(v);
      } else {
        out[k] = v;
      }
    }
  }
  return line;
}

}  // namespace nodesmith::op
