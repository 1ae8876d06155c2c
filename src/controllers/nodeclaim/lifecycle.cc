#include "controllers/nodeclaim/lifecycle.h"

#include <charconv>
#include <optional>

#include "controllers/common/karpenter.h"
#include "controllers/controllers.h"
#include "scheduling/taints.h"
#include "scheduling/well_known_labels.h"

namespace nodesmith::controllers {
namespace {

// The root condition from its three dependents, as Karpenter's status conditions compute it:
// True when all are True, False when any is False, else Unknown. It is what the `Ready` column
// of `kubectl get nodeclaims` shows.
constexpr const char* kNodeClaimReady = "Ready";

void SetReadyCondition(api::NodeClaim& claim, core::Time now) {
  bool all_true = true;
  bool any_false = false;
  for (const char* type : {kConditionLaunched, kConditionRegistered, kConditionInitialized}) {
    const api::Condition* c = claim.FindCondition(type);
    all_true = all_true && c != nullptr && c->status == "True";
    any_false = any_false || (c != nullptr && c->status == "False");
  }
  if (all_true) {
    SetCondition(claim.status.conditions, kNodeClaimReady, "True", "Ready", now);
  } else if (any_false) {
    SetCondition(claim.status.conditions, kNodeClaimReady, "False", "NotReady", now);
  } else {
    SetCondition(claim.status.conditions, kNodeClaimReady, "Unknown", "AwaitingReconciliation",
                 now);
  }
}

constexpr const char* kLogger = "controller.nodeclaim.lifecycle";

std::string LabelOr(const api::Labels& labels, const char* key) {
  auto it = labels.find(key);
  return it == labels.end() ? "" : it->second;
}

// Resources every node reports; anything else requested is an extended resource that a device
// plugin must advertise before the node counts as initialized.
bool IsExtendedResource(const std::string& name) {
  return name != "cpu" && name != "memory" && name != "pods" && name != "ephemeral-storage" &&
         name.rfind("hugepages-", 0) != 0;
}

bool HasTaint(const std::vector<api::Taint>& taints, const api::Taint& t) {
  for (const auto& x : taints) {
    if (scheduling::TaintsMatch(x, t)) return true;
  }
  return false;
}

std::string FormatPrice(double price) {
  char buf[64];
  auto r = std::to_chars(buf, buf + sizeof(buf), price);
  return std::string(buf, r.ptr);
}

}  // namespace

NodeClaimLifecycle::NodeClaimLifecycle(const core::Clock& clock, cluster::ClusterApi& cluster,
                                       cloud::CloudProvider& cloud,
                                       runtime::EventRecorder& recorder, LifecycleOptions options)
    : clock_(clock), cluster_(cluster), cloud_(cloud), recorder_(recorder), options_(options) {}

std::string NodeClaimLifecycle::Name() const { return kLifecycleName; }

std::vector<cluster::Kind> NodeClaimLifecycle::Watches() const {
  return {cluster::Kind::kNodeClaim, cluster::Kind::kNode};
}

core::Result<runtime::ReconcileResult> NodeClaimLifecycle::Reconcile(
    const runtime::Request& request) {
  // Whatever became of it, a NodeClaim that failed in another's batch has its own reconcile now.
  failed_in_batch_.erase(request.name);
  std::optional<api::NodeClaim> claim;
  if (auto named = cluster_.Get<api::NodeClaim>("", request.name); named.ok()) {
    claim = std::move(named).value();
  } else if (named.status().code() != core::StatusCode::kNotFound) {
    return named.status();
  } else if (auto node = cluster_.Get<api::Node>("", request.name); node.ok()) {
    // A Node request: reconcile the NodeClaim behind it, if any.
    claim = NodeClaimForNode(cluster_, *node);
  }
  if (!claim) return runtime::ReconcileResult::Done();
  auto result = ReconcileClaim(std::move(*claim));
  // The kubelet (or kwok) writes its Node every few seconds, so a write of ours may find it
  // changed since the cache read it. That is no error: the watch brings the newer version, and
  // the claim is looked at again then or after kConflictRecheck, as Karpenter requeues.
  if (!result.ok() && cluster::IsConflict(result.status()))
    return runtime::ReconcileResult::RequeueAfter(kConflictRecheck);
  return result;
}

core::Result<runtime::ReconcileResult> NodeClaimLifecycle::ReconcileClaim(api::NodeClaim claim) {
  if (claim.metadata.deletion_timestamp) return runtime::ReconcileResult::Done();
  if (!claim.IsTrue(kConditionLaunched)) return Launch(std::move(claim));

  const core::Time now = clock_.Now();
  if (!claim.IsTrue(kConditionRegistered)) {
    std::optional<api::Node> node;
    if (!claim.status.provider_id.empty()) node = NodeForNodeClaim(cluster_, claim);
    if (!node) {
      const api::Condition* launched = claim.FindCondition(kConditionLaunched);
      core::Time since = launched && launched->last_transition_time
                             ? *launched->last_transition_time
                             : claim.metadata.creation_timestamp.value_or(now);
      core::Time deadline = since + options_.registration_ttl;
      if (now < deadline) return runtime::ReconcileResult::RequeueAfter(deadline - now);
      Emit(recorder_, runtime::LogLevel::kWarn, kLogger,
           "Deleting nodeclaim " + claim.metadata.name + ": node not registered within " +
               core::FormatDuration(options_.registration_ttl),
           "NodeClaimNotRegistered", {{"nodeClaim", claim.metadata.name}});
      core::Status st = cluster_.Delete<api::NodeClaim>("", claim.metadata.name);
      if (!st.ok() && st.code() != core::StatusCode::kNotFound) return st;
      return runtime::ReconcileResult::Done();
    }
    NS_RETURN_IF_ERROR(Register(claim, std::move(*node)));
  }
  if (!claim.IsTrue(kConditionInitialized)) {
    auto node = NodeForNodeClaim(cluster_, claim);
    if (node) NS_RETURN_IF_ERROR(Initialize(claim, *node));
  }
  return runtime::ReconcileResult::Done();
}

core::Result<runtime::ReconcileResult> NodeClaimLifecycle::Launch(api::NodeClaim claim) {
  // The NodeClaims waiting for a launch go together when the cloud merges launches (Karpenter's
  // CreateFleet batcher): a burst the provisioner created in one pass costs one call. Those
  // whose launch failed in another's batch are left to their own reconcile, which reports and
  // retries it with backoff, so a failing class is not tried again by every other request.
  std::vector<api::NodeClaim> batch;
  batch.push_back(std::move(claim));
  if (const size_t most = cloud_.MaxLaunchBatch(); most > 1) {
    cluster_.ForEachObject(cluster::Kind::kNodeClaim, [&](const cluster::Object& o) {
      const auto& other = std::get<api::NodeClaim>(o);
      if (batch.size() >= most || other.metadata.name == batch[0].metadata.name ||
          other.metadata.deletion_timestamp || other.IsTrue(kConditionLaunched) ||
          failed_in_batch_.count(other.metadata.name))
        return;
      batch.push_back(other);
    });
  }
  std::vector<core::Result<api::NodeClaim>> launched = cloud_.CreateAll(batch);
  for (size_t i = 1; i < batch.size(); ++i) {
    std::string name = batch[i].metadata.name;
    auto recorded = RecordLaunch(std::move(batch[i]), std::move(launched[i]));
    if (!recorded.ok()) failed_in_batch_.insert(std::move(name));
  }
  return RecordLaunch(std::move(batch[0]), std::move(launched[0]));
}

core::Result<runtime::ReconcileResult> NodeClaimLifecycle::RecordLaunch(
    api::NodeClaim claim, core::Result<api::NodeClaim> launched) {
  if (!launched.ok()) {
    if (launched.status().code() != core::StatusCode::kUnavailable) {
      return launched.status().WithPrefix("launching nodeclaim " + claim.metadata.name);
    }
    // Insufficient capacity: give the pods back to the provisioner, which plans them again
    // against the offerings that remain.
    Emit(recorder_, runtime::LogLevel::kError, kLogger,
         "Failed launching nodeclaim " + claim.metadata.name + ": " + launched.status().message(),
         "NodeClaimLaunchFailed",
         {{"nodeClaim", claim.metadata.name}, {"reason", "InsufficientCapacity"}});
    core::Status st = cluster_.Delete<api::NodeClaim>("", claim.metadata.name);
    if (!st.ok() && st.code() != core::StatusCode::kNotFound) return st;
    return runtime::ReconcileResult::Done();
  }

  const api::NodeClaim& out = *launched;
  for (const auto& [k, v] : out.metadata.labels) claim.metadata.labels[k] = v;
  // What the cloud stamps (the AWS provider: the EC2NodeClass hash it launched from).
  for (const auto& [k, v] : out.metadata.annotations) claim.metadata.annotations[k] = v;
  claim.status.provider_id = out.status.provider_id;
  claim.status.capacity = out.status.capacity;
  claim.status.allocatable = out.status.allocatable;
  claim.status.image_id = out.status.image_id;
  SetCondition(claim.status.conditions, kConditionLaunched, "True", "Launched", clock_.Now());
  SetReadyCondition(claim, clock_.Now());
  auto updated = cluster_.Update(claim);
  if (!updated.ok()) {
    // The instance exists but the NodeClaim did not record it: terminate it rather than leak it
    // (the next reconcile launches again from a fresh read).
    (void)cloud_.Delete(out);
    return updated.status().WithPrefix("recording launch of nodeclaim " + claim.metadata.name);
  }

  const std::string type = LabelOr(claim.metadata.labels, scheduling::kLabelInstanceTypeStable);
  const std::string zone = LabelOr(claim.metadata.labels, scheduling::kLabelTopologyZone);
  const std::string capacity_type = LabelOr(claim.metadata.labels, scheduling::kLabelCapacityType);
  std::vector<std::pair<std::string, std::string>> fields = {
      {"nodeClaim", claim.metadata.name}, {"instanceType", type},
      {"zone", zone},                     {"capacityType", capacity_type},
      {"providerID", claim.status.provider_id}};
  std::string price = PriceOf(claim);
  if (!price.empty()) fields.emplace_back("pricePerHour", price);
  Emit(recorder_, runtime::LogLevel::kInfo, kLogger,
       "Launched instance: " + InstanceIdOf(claim.status.provider_id) + ", type: " + type +
           ", zone: " + zone + ", capacityType: " + capacity_type,
       "NodeClaimLaunched", std::move(fields));
  return runtime::ReconcileResult::RequeueAfter(options_.registration_ttl);
}

std::string NodeClaimLifecycle::PriceOf(const api::NodeClaim& launched) const {
  auto pool = cluster_.Get<api::NodePool>(
      "", LabelOr(launched.metadata.labels, scheduling::kLabelNodePool));
  if (!pool.ok()) return "";
  auto types = cloud_.GetInstanceTypes(*pool);
  if (!types.ok()) return "";
  const std::string type = LabelOr(launched.metadata.labels, scheduling::kLabelInstanceTypeStable);
  const std::string zone = LabelOr(launched.metadata.labels, scheduling::kLabelTopologyZone);
  const std::string ct = LabelOr(launched.metadata.labels, scheduling::kLabelCapacityType);
  for (const auto& t : *types) {
    if (t->name != type) continue;
    for (const auto& o : t->offerings) {
      if (o.zone == zone && o.capacity_type == ct) return FormatPrice(o.price);
    }
  }
  return "";
}

core::Status NodeClaimLifecycle::Register(api::NodeClaim& claim, api::Node node) {
  // The Node takes the NodeClaim's labels and taints (startup taints included) once, at
  // registration; later changes to the Node are the user's.
  bool changed = false;
  for (const auto& [k, v] : claim.metadata.labels) {
    auto it = node.metadata.labels.find(k);
    if (it == node.metadata.labels.end() || it->second != v) {
      node.metadata.labels[k] = v;
      changed = true;
    }
  }
  if (node.metadata.labels[scheduling::kLabelNodeRegistered] != "true") {
    node.metadata.labels[scheduling::kLabelNodeRegistered] = "true";
    changed = true;
  }
  std::vector<api::Taint> taints;
  for (const auto& t : node.spec.taints) {
    if (t.key == scheduling::kTaintUnregistered) {
      changed = true;
      continue;
    }
    taints.push_back(t);
  }
  for (const auto* list : {&claim.spec.taints, &claim.spec.startup_taints}) {
    for (const auto& t : *list) {
      if (!HasTaint(taints, t)) {
        taints.push_back(t);
        changed = true;
      }
    }
  }
  node.spec.taints = std::move(taints);
  if (changed) {
    auto updated = cluster_.Update(node);
    if (!updated.ok()) return updated.status().WithPrefix("syncing node " + node.metadata.name);
  }

  claim.status.node_name = node.metadata.name;
  SetCondition(claim.status.conditions, kConditionRegistered, "True", "Registered", clock_.Now());
  SetReadyCondition(claim, clock_.Now());
  auto updated = cluster_.Update(claim);
  if (!updated.ok()) return updated.status().WithPrefix("registering nodeclaim " + claim.metadata.name);
  claim = std::move(updated).value();
  Emit(recorder_, runtime::LogLevel::kInfo, kLogger,
       "Registered node " + node.metadata.name + " for nodeclaim " + claim.metadata.name,
       "NodeRegistered", {{"nodeClaim", claim.metadata.name}, {"node", node.metadata.name}});
  return core::Status::Ok();
}

core::Status NodeClaimLifecycle::Initialize(api::NodeClaim& claim, const api::Node& node) {
  if (!api::IsNodeReady(node)) return core::Status::Ok();
  for (const auto& t : claim.spec.startup_taints) {
    if (HasTaint(node.spec.taints, t)) return core::Status::Ok();
  }
  for (const auto& [name, q] : claim.spec.resource_requests.items()) {
    if (!IsExtendedResource(name) || q.IsZero()) continue;
    if (node.status.allocatable.Get(name).IsZero()) return core::Status::Ok();
  }
  if (node.metadata.labels.count(scheduling::kLabelNodeInitialized) == 0) {
    api::Node labelled = node;
    labelled.metadata.labels[scheduling::kLabelNodeInitialized] = "true";
    auto updated = cluster_.Update(labelled);
    if (!updated.ok()) return updated.status().WithPrefix("labelling node " + node.metadata.name);
  }
  SetCondition(claim.status.conditions, kConditionInitialized, "True", "Initialized", clock_.Now());
  SetReadyCondition(claim, clock_.Now());
  auto updated = cluster_.Update(claim);
  if (!updated.ok()) return updated.status().WithPrefix("initializing nodeclaim " + claim.metadata.name);
  claim = std::move(updated).value();
  Emit(recorder_, runtime::LogLevel::kInfo, kLogger,
       "Initialized node " + node.metadata.name + " for nodeclaim " + claim.metadata.name,
       "NodeInitialized", {{"nodeClaim", claim.metadata.name}, {"node", node.metadata.name}});
  return core::Status::Ok();
}

}  // namespace nodesmith::controllers
