#include "cloud/aws/nodeclass_status_controller.h"

#include <algorithm>

#include "api/conditions.h"
#include "scheduling/well_known_labels.h"

namespace nodesmith::aws {

bool ApplyResolution(const ResolvedNodeClass& resolved, api::EC2NodeClass& node_class) {
  std::vector<api::SubnetStatus> subnets;
  for (const Subnet& s : resolved.subnets) subnets.push_back({s.id, s.zone, s.zone_id});
  std::vector<api::SecurityGroupStatus> groups;
  for (const SecurityGroup& g : resolved.security_groups) groups.push_back({g.id, g.name});
  std::vector<api::AMIStatus> amis;
  for (const ResolvedImage& image : resolved.images) {
    api::AMIStatus a;
    a.id = image.id;
    a.name = image.name;
    a.requirements = ImageRequirements(image).ToNodeSelectorRequirements();
    a.deprecated = image.deprecated;
    amis.push_back(std::move(a));
  }

  bool changed = false;
  auto assign = [&changed](auto& field, auto value) {
    if (field == value) return;
    field = std::move(value);
    changed = true;
  };
  assign(node_class.status_subnets, std::move(subnets));
  assign(node_class.status_security_groups, std::move(groups));
  assign(node_class.status_amis, std::move(amis));
  // The resolver kept the transition times of conditions whose status did not change, so equal
  // conditions compare equal.
  std::vector<api::Condition> conditions = node_class.conditions;
  for (const api::Condition& c : resolved.conditions) {
    // Ready also waits on the instance profile, which the resolver does not know: the
    // controller sets it.
    if (c.type == "Ready") continue;
    api::Condition* existing = nullptr;
    for (api::Condition& e : conditions) {
      if (e.type == c.type) existing = &e;
    }
    if (existing == nullptr) conditions.push_back(c);
    else *existing = c;
  }
  assign(node_class.conditions, std::move(conditions));
  return changed;
}

namespace {

// What ValidationSucceeded waits on (InstanceProfileReady only once there is one).
constexpr const char* kValidationDependencies[] = {"SubnetsReady", "SecurityGroupsReady", "AMIsReady",
                                                   kConditionInstanceProfileReady};

// Ready: every dependent condition present is True (InstanceProfileReady only once there is one,
// ValidationSucceeded unless `validated` is false: shadow mode makes no dry runs).
void SetReady(api::EC2NodeClass& node_class, core::Time now, bool validated) {
  std::string message;
  for (const char* type : {"SubnetsReady", "SecurityGroupsReady", "AMIsReady",
                           kConditionInstanceProfileReady, kConditionValidationSucceeded}) {
    const api::Condition* c = api::FindCondition(node_class.conditions, type);
    if (c == nullptr && std::string(type) == kConditionInstanceProfileReady) continue;
    if (!validated && std::string(type) == kConditionValidationSucceeded) continue;
    if (c == nullptr || c->status != "True") message += (message.empty() ? "" : ", ") + std::string(type) + "=False";
  }
  api::SetCondition(node_class.conditions, "Ready", message.empty() ? "True" : "False",
                    message.empty() ? "Ready" : "UnhealthyDependents", now, message,
                    node_class.metadata.generation);
}

std::string Join(const std::vector<std::string>& names) {
  std::string out;
  for (const std::string& n : names) out += (out.empty() ? "" : ", ") + n;
  return out;
}

}  // namespace

NodeClassStatusController::NodeClassStatusController(const core::Clock& clock,
                                                     cluster::ClusterApi& cluster,
                                                     AwsCloudProvider& provider,
                                                     NodeClassStatusOptions options)
    : clock_(clock), cluster_(cluster), provider_(provider), options_(options) {}

core::Result<runtime::ReconcileResult> NodeClassStatusController::Finalize(
    api::EC2NodeClass node_class) {
  const std::string& name = node_class.metadata.name;
  auto& finalizers = node_class.metadata.finalizers;
  auto it = std::find(finalizers.begin(), finalizers.end(), kNodeClassTerminationFinalizer);
  if (it == finalizers.end() || options_.dry_run) return runtime::ReconcileResult{};

  std::vector<std::string> claims;
  for (const api::NodeClaim& c : cluster_.List<api::NodeClaim>()) {
    if (c.spec.node_class_ref.name != name) continue;
    if (!c.spec.node_class_ref.kind.empty() && c.spec.node_class_ref.kind != "EC2NodeClass") continue;
    claims.push_back(c.metadata.name);
  }
  const core::Time now = clock_.Now();
  if (!claims.empty()) {
    auto last = waiting_event_at_.find(name);
    if (options_.recorder != nullptr &&
        (last == waiting_event_at_.end() || now - last->second >= options_.waiting_event_every)) {
      options_.recorder->Record(runtime::RecordedEvent{
          runtime::LogLevel::kInfo, std::string("controller.") + kNodeClassStatusControllerName,
          "Waiting on NodeClaim termination for " + Join(claims), "WaitingOnNodeClaimTermination",
          {{"ec2NodeClass", name}, {"nodeClaims", Join(claims)}}});
      waiting_event_at_[name] = now;
    }
    return runtime::ReconcileResult::RequeueAfter(options_.waiting_interval);
  }
  waiting_event_at_.erase(name);
  validated_.erase(name);
  if (options_.instance_profiles != nullptr) {
    NS_RETURN_IF_ERROR(options_.instance_profiles->DeleteProfiles(node_class)
                           .WithPrefix("EC2NodeClass " + name + ": deleting its instance profiles"));
  }
  NS_RETURN_IF_ERROR(provider_.DeleteLaunchTemplates(name).WithPrefix("EC2NodeClass " + name));
  finalizers.erase(it);
  auto written = cluster_.Update<api::EC2NodeClass>(node_class);
  if (!written.ok() && written.status().code() != core::StatusCode::kNotFound) {
    return written.status().WithPrefix("EC2NodeClass " + name + ": removing the finalizer");
  }
  return runtime::ReconcileResult{};
}

core::Result<runtime::ReconcileResult> NodeClassStatusController::Reconcile(
    const runtime::Request& request) {
  auto node_class = cluster_.Get<api::EC2NodeClass>("", request.name);
  if (!node_class.ok()) {
    if (node_class.status().code() == core::StatusCode::kNotFound) return runtime::ReconcileResult{};
    return node_class.status();
  }
  if (node_class->metadata.deletion_timestamp) return Finalize(std::move(*node_class));

  const core::Time now = clock_.Now();
  const api::EC2NodeClass stored = *node_class;
  auto& finalizers = node_class->metadata.finalizers;
  if (std::find(finalizers.begin(), finalizers.end(), kNodeClassTerminationFinalizer) == finalizers.end())
    finalizers.push_back(kNodeClassTerminationFinalizer);

  core::Status profile;
  if (options_.instance_profiles != nullptr && !options_.dry_run) {
    profile = options_.instance_profiles->Reconcile(*node_class, now);
  }
  auto resolved = provider_.Resolve(*node_class);
  if (!resolved.ok()) return resolved.status().WithPrefix("EC2NodeClass " + request.name);
  ApplyResolution(**resolved, *node_class);
  core::Status validation;
  if (!options_.dry_run) validation = SetValidation(*node_class, now);
  SetReady(*node_class, now, !options_.dry_run);
  const bool changed = node_class->metadata.finalizers != stored.metadata.finalizers ||
                       node_class->conditions != stored.conditions ||
                       node_class->status_subnets != stored.status_subnets ||
                       node_class->status_security_groups != stored.status_security_groups ||
                       node_class->status_amis != stored.status_amis ||
                       node_class->status_instance_profile != stored.status_instance_profile;
  if (changed) {
    auto written = cluster_.Update<api::EC2NodeClass>(*node_class);
    if (!written.ok()) {
      return written.status().WithPrefix("EC2NodeClass " + request.name + ": writing status");
    }
  }
  if (!profile.ok()) return profile;
  if (!validation.ok()) return validation;
  return runtime::ReconcileResult::RequeueAfter(options_.refresh_interval);
}

core::Status NodeClassStatusController::SetValidation(api::EC2NodeClass& node_class, core::Time now) {
  const std::string& name = node_class.metadata.name;
  const int64_t generation = node_class.metadata.generation;
  auto set = [&](const std::string& status, const std::string& reason, const std::string& message) {
    api::SetCondition(node_class.conditions, kConditionValidationSucceeded, status, reason, now,
                      message, generation);
  };
  bool unknown = false;
  for (const char* type : kValidationDependencies) {
    const api::Condition* c = api::FindCondition(node_class.conditions, type);
    if (c == nullptr && std::string(type) == kConditionInstanceProfileReady) continue;
    if (c != nullptr && c->status == "False") {
      validated_.erase(name);
      set("False", "DependenciesNotReady", "Awaiting AMI, Instance Profile, Security Group, and Subnet resolution");
      return core::Status::Ok();
    }
    if (c == nullptr || c->status != "True") unknown = true;
  }
  if (unknown) {
    set("Unknown", "DependenciesNotReady", "Awaiting AMI, Instance Profile, Security Group, and Subnet resolution");
    return core::Status::Ok();
  }
  if (options_.disable_dry_run) {
    set("True", kConditionValidationSucceeded, "");
    return core::Status::Ok();
  }
  // The same class, resolved to the same things, is not asked again within the TTL.
  std::string key = std::to_string(generation) + "|" + node_class.status_instance_profile;
  for (const api::SubnetStatus& s : node_class.status_subnets) key += "|" + s.id;
  for (const api::SecurityGroupStatus& g : node_class.status_security_groups) key += "|" + g.id;
  for (const api::AMIStatus& a : node_class.status_amis) key += "|" + a.id;
  auto cached = validated_.find(name);
  if (cached == validated_.end() || cached->second.key != key ||
      now - cached->second.at >= options_.validation_ttl) {
    auto result = provider_.Validate(node_class);
    if (!result.ok()) return result.status().WithPrefix("EC2NodeClass " + name);
    cached = validated_.insert_or_assign(name, Validated{key, *result, now}).first;
    if (!result->succeeded() && options_.recorder != nullptr) {
      options_.recorder->Record(runtime::RecordedEvent{
          runtime::LogLevel::kError, std::string("controller.") + kNodeClassStatusControllerName,
          "unauthorized to call ec2:" + result->operation, "",
          {{"ec2NodeClass", name}, {"reason", result->reason}, {"error", result->message}}});
    }
  }
  const NodeClassValidation& v = cached->second.result;
  if (v.succeeded()) set("True", kConditionValidationSucceeded, "");
  else set("False", v.reason, v.message);
  return core::Status::Ok();
}

}  // namespace nodesmith::aws
