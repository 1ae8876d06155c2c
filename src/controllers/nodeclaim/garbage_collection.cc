#include "controllers/nodeclaim/garbage_collection.h"

#include <set>

#include "controllers/common/karpenter.h"
#include "controllers/controllers.h"
#include "api/node_status.h"

namespace nodesmith::controllers {
namespace {
constexpr const char* kLogger = "controller.nodeclaim.garbagecollection";
}  // namespace

GarbageCollector::GarbageCollector(const core::Clock& clock, cluster::ClusterApi& cluster,
                                   cloud::CloudProvider& cloud, runtime::EventRecorder& recorder,
                                   GarbageCollectionOptions options)
    : clock_(clock), cluster_(cluster), cloud_(cloud), recorder_(recorder), options_(options) {}

std::string GarbageCollector::Name() const { return kGarbageCollectionName; }

core::Result<runtime::ReconcileResult> GarbageCollector::Reconcile(const runtime::Request&) {
  const core::Time now = clock_.Now();
  std::vector<api::NodeClaim> claims = cluster_.List<api::NodeClaim>();
  std::set<std::string> known;
  for (const auto& c : claims) {
    if (!c.status.provider_id.empty()) known.insert(c.status.provider_id);
  }
  const std::vector<api::NodeClaim> instances = cloud_.List();
  std::set<std::string> running;
  for (const auto& instance : instances) {
    if (!instance.metadata.deletion_timestamp) running.insert(instance.status.provider_id);
  }

  for (const auto& instance : instances) {
    const std::string& id = instance.status.provider_id;
    if (id.empty() || known.count(id) || instance.metadata.deletion_timestamp) continue;
    if (instance.metadata.creation_timestamp &&
        now - *instance.metadata.creation_timestamp < options_.min_age) {
      continue;  // a launch whose NodeClaim update may still be on its way
    }
    core::Status st = cloud_.Delete(instance);
    if (!st.ok() && st.code() != core::StatusCode::kNotFound) return st;
    Emit(recorder_, runtime::LogLevel::kInfo, kLogger,
         "Garbage collected instance " + InstanceIdOf(id) + " with no nodeclaim",
         "InstanceGarbageCollected", {{"providerID", id}});
  }

  // A launch of seconds ago may be missing from the cloud's List (EC2 is eventually
  // consistent): only claims launched at least `min_launched_age` ago count.
  for (const auto& c : claims) {
    if (c.metadata.deletion_timestamp || c.status.provider_id.empty() ||
        !c.IsTrue(kConditionLaunched) || running.count(c.status.provider_id)) {
      continue;
    }
    const api::Condition* launched = c.FindCondition(kConditionLaunched);
    if (launched != nullptr && launched->last_transition_time &&
        now - *launched->last_transition_time < options_.min_launched_age) {
      continue;
    }
    // A Ready Node means its kubelet still runs, whatever the cloud says.
    if (!c.status.node_name.empty()) {
      auto node = cluster_.Get<api::Node>("", c.status.node_name);
      if (node.ok() && api::IsNodeReady(*node)) continue;
    }
    core::Status st = cluster_.Delete<api::NodeClaim>("", c.metadata.name);
    if (!st.ok() && st.code() != core::StatusCode::kNotFound) return st;
    Emit(recorder_, runtime::LogLevel::kInfo, kLogger,
         "Garbage collecting nodeclaim " + c.metadata.name + " with no cloudprovider representation",
         "NodeClaimGarbageCollected",
         {{"nodeClaim", c.metadata.name}, {"providerID", c.status.provider_id}});
  }
  return runtime::ReconcileResult::RequeueAfter(options_.interval);
}

}  // namespace nodesmith::controllers
