#include "controllers/interruption/interruption_controller.h"

#include <set>
#include <utility>

#include "cloud/instance_type.h"
#include "controllers/common/karpenter.h"
#include "controllers/controllers.h"
#include "scheduling/well_known_labels.h"

namespace nodesmith::controllers {
namespace {

constexpr const char* kLogger = "controller.interruption";

using cloud::InterruptionMessageKind;

// Whether Karpenter replaces the node for this kind of message (its CordonAndDrain action).
bool Replaces(InterruptionMessageKind kind) {
  switch (kind) {
    case InterruptionMessageKind::kSpotInterruption:
    case InterruptionMessageKind::kCapacityReservationInterruption:
    case InterruptionMessageKind::kScheduledChange:
    case InterruptionMessageKind::kStateChange:
      return true;
    case InterruptionMessageKind::kRebalanceRecommendation:
    case InterruptionMessageKind::kUnknown:
      break;
  }
  return false;
}

std::string Label(const api::NodeClaim& claim, const char* key) {
  auto it = claim.metadata.labels.find(key);
  return it == claim.metadata.labels.end() ? "" : it->second;
}

}  // namespace

InterruptionController::InterruptionController(const core::Clock& clock,
                                               cluster::ClusterApi& cluster,
                                               cloud::InterruptionQueue& queue,
                                               cloud::UnavailableOfferingsSink& unavailable_offerings,
                                               runtime::EventRecorder& recorder,
                                               InterruptionOptions options)
    : clock_(clock),
      cluster_(cluster),
      queue_(queue),
      unavailable_offerings_(unavailable_offerings),
      recorder_(recorder),
      options_(options) {}

std::string InterruptionController::Name() const { return kInterruptionName; }

core::Result<runtime::ReconcileResult> InterruptionController::Reconcile(const runtime::Request&) {
  std::optional<InstanceIndex> index;
  core::Status first_error;
  while (true) {
    auto received = queue_.Receive(options_.max_messages);
    if (!received.ok()) {
      return core::Status(received.status().code(), "receiving from interruption queue " +
                                                        queue_.QueueName() + ": " +
                                                        received.status().message());
    }
    if (received->empty()) break;
    if (!index) index = BuildIndex();

    // A notice naming several instances arrives as several messages sharing an id; it is deleted
    // once, and only when every one of them was handled.
    std::vector<const cloud::InterruptionMessage*> by_id_order;
    std::map<std::string, bool> handled;  // id -> every message with it handled
    for (const auto& message : *received) {
      core::Status st = Handle(message, *index);
      auto [it, inserted] = handled.emplace(message.id, true);
      if (inserted) {
        by_id_order.push_back(&message);
        // One line a notice (the metrics count these: Karpenter counts SQS messages).
        Emit(recorder_, runtime::LogLevel::kDebug, kLogger,
             "Received interruption message " + message.id, "",
             {{"kind", cloud::InterruptionMessageKindName(message)}});
      }
      if (!st.ok()) {
        it->second = false;
        if (first_error.ok()) first_error = st;
      }
    }
    for (const cloud::InterruptionMessage* message : by_id_order) {
      if (!handled[message->id]) continue;  // redelivered after the visibility timeout
      core::Status st = queue_.Delete(*message);
      if (!st.ok() && first_error.ok()) {
        first_error = core::Status(st.code(), "deleting interruption message " + message->id +
                                                  ": " + st.message());
      }
      if (st.ok()) {
        // How long the notice waited, from when the cloud sent it, when it says.
        std::vector<std::pair<std::string, std::string>> fields;
        if (message->start_time) {
          fields.emplace_back(
              "queueSeconds",
              std::to_string(std::chrono::duration<double>(clock_.Now() - *message->start_time).count()));
        }
        Emit(recorder_, runtime::LogLevel::kDebug, kLogger,
             "Deleted interruption message " + message->id, "", std::move(fields));
      }
    }
    if (static_cast<int>(received->size()) < options_.max_messages) break;
  }
  if (!first_error.ok()) return first_error;
  return runtime::ReconcileResult::RequeueAfter(options_.poll_interval);
}

InterruptionController::InstanceIndex InterruptionController::BuildIndex() const {
  InstanceIndex index;
  for (auto& claim : cluster_.List<api::NodeClaim>()) {
    if (claim.status.provider_id.empty()) continue;
    std::string id = InstanceIdOf(claim.status.provider_id);
    index.node_claims.emplace(std::move(id), std::move(claim));
  }
  for (auto& node : cluster_.List<api::Node>()) {
    if (node.spec.provider_id.empty()) continue;
    std::string id = InstanceIdOf(node.spec.provider_id);
    index.nodes.emplace(std::move(id), std::move(node));
  }
  return index;
}

core::Status InterruptionController::Handle(const cloud::InterruptionMessage& message,
                                            InstanceIndex& index) {
  const std::string kind = cloud::InterruptionMessageKindName(message);
  if (message.kind == InterruptionMessageKind::kUnknown) {
    Emit(recorder_, runtime::LogLevel::kInfo, kLogger,
         "Deleting interruption message " + message.id + " that needs no action: " +
             (message.detail.empty() ? "unknown message" : message.detail));
    return core::Status::Ok();
  }
  auto claim_it = index.node_claims.find(message.instance_id);
  if (message.instance_id.empty() || claim_it == index.node_claims.end()) {
    Emit(recorder_, runtime::LogLevel::kDebug, kLogger,
         "Deleting " + kind + " interruption message " + message.id + ": no nodeclaim for instance " +
             (message.instance_id.empty() ? "(none)" : message.instance_id));
    return core::Status::Ok();
  }
  api::NodeClaim& claim = claim_it->second;
  auto node_it = index.nodes.find(message.instance_id);
  const std::string node = node_it == index.nodes.end() ? "" : node_it->second.metadata.name;

  const bool replace = Replaces(message.kind);
  std::string text = "Received " + kind + " interruption for nodeclaim " + claim.metadata.name;
  if (!node.empty()) text += ", node " + node;
  text += ", instance " + message.instance_id;
  if (message.action_time) {
    core::Duration left = *message.action_time - clock_.Now();
    text += left > core::Duration::zero()
                ? ", reclaimed in " + core::FormatDuration(left)
                : std::string(", reclaimed already");
  }
  text += replace ? "" : " (no action)";
  Emit(recorder_, runtime::LogLevel::kInfo, kLogger, std::move(text), "Interruption",
       {{"node", node},
        {"nodeClaim", claim.metadata.name},
        {"kind", kind},
        {"instanceId", message.instance_id}});

  if (message.kind == InterruptionMessageKind::kSpotInterruption) {
    // The capacity behind a spot reclaim is likely gone for the replacement too.
    std::string type = Label(claim, scheduling::kLabelInstanceTypeStable);
    std::string zone = Label(claim, scheduling::kLabelTopologyZone);
    if (!type.empty() && !zone.empty()) {
      unavailable_offerings_.MarkOfferingUnavailable({type, zone, cloud::kCapacityTypeSpot, kind,
                                                      options_.unavailable_offering_ttl});
      Emit(recorder_, runtime::LogLevel::kInfo, kLogger,
           "Marked offering " + type + "/" + zone + "/" + cloud::kCapacityTypeSpot +
               " unavailable for " + core::FormatDuration(options_.unavailable_offering_ttl),
           "", {{"instanceType", type}, {"zone", zone}, {"capacityType", cloud::kCapacityTypeSpot}});
    }
  }
  if (!replace) return core::Status::Ok();
  return DeleteNodeClaim(claim, kind);
}

core::Status InterruptionController::DeleteNodeClaim(api::NodeClaim& claim,
                                                     const std::string& kind) {
  if (claim.metadata.deletion_timestamp) return core::Status::Ok();  // already on its way
  core::Status st = cluster_.Delete<api::NodeClaim>("", claim.metadata.name);
  if (!st.ok() && st.code() != core::StatusCode::kNotFound) {
    return core::Status(st.code(), "deleting nodeclaim " + claim.metadata.name + " on " + kind +
                                       " interruption: " + st.message());
  }
  claim.metadata.deletion_timestamp = clock_.Now();
  if (st.ok()) {
    Emit(recorder_, runtime::LogLevel::kInfo, kLogger,
         "Deleting nodeclaim " + claim.metadata.name + " on " + kind + " interruption", "",
         {{"nodeClaim", claim.metadata.name}, {"kind", kind}});
  }
  return core::Status::Ok();
}

}  // namespace nodesmith::controllers
