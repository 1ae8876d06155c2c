#include "cloud/aws/aws_cloud_provider.h"

#include "api/hash_stamp.h"
#include "cloud/aws/instance_profile.h"
#include "cloud/aws/nodeclass_hash.h"

#include <algorithm>

#include "api/conditions.h"
#include "api/quantity.h"
#include "cloud/aws/user_data.h"
#include "cloud/ec2_overhead.h"
#include "cloud/launch_offering.h"
#include "core/base64.h"
#include "scheduling/taints.h"
#include "scheduling/well_known_labels.h"

namespace nodesmith::aws {

namespace s = scheduling;

namespace {

// The instance states in which an instance still counts as launched.
const std::vector<std::string> kLiveStates = {"pending", "running", "stopping", "stopped", "shutting-down"};

// The root volume of each family when the EC2NodeClass names none (aws.md): AL2 and AL2023 a
// 20 GiB gp3 /dev/xvda, Bottlerocket a 4 GiB OS volume and a 20 GiB data volume, Windows 50 GiB.
std::vector<LaunchTemplateData::BlockDevice> DefaultBlockDevices(cloud::AmiFamily family) {
  using B = LaunchTemplateData::BlockDevice;
  switch (family) {
    case cloud::AmiFamily::kBottlerocket:
      return {B{"/dev/xvda", 4, "gp3", true, true, std::nullopt, std::nullopt, "", ""},
              B{"/dev/xvdb", 20, "gp3", true, true, std::nullopt, std::nullopt, "", ""}};
    case cloud::AmiFamily::kWindows2019:
    case cloud::AmiFamily::kWindows2022:
      return {B{"/dev/sda1", 50, "gp3", true, true, std::nullopt, std::nullopt, "", ""}};
    case cloud::AmiFamily::kCustom:
      return {};
    default:
      return {B{"/dev/xvda", 20, "gp3", true, true, std::nullopt, std::nullopt, "", ""}};
  }
}

core::Result<std::vector<LaunchTemplateData::BlockDevice>> BlockDevicesOf(const api::EC2NodeClass& nc,
                                                                          cloud::AmiFamily family) {
  if (nc.block_device_mappings.empty()) return DefaultBlockDevices(family);
  std::vector<LaunchTemplateData::BlockDevice> out;
  for (const api::BlockDeviceMapping& m : nc.block_device_mappings) {
    LaunchTemplateData::BlockDevice b;
    b.device_name = m.device_name;
    if (m.ebs.volume_size) {
      auto q = api::Quantity::Parse(*m.ebs.volume_size);
      if (!q.ok()) {
        return core::Status::Invalid("EC2NodeClass " + nc.metadata.name + ": blockDeviceMappings " +
                                     m.device_name + ": volumeSize: " + q.status().message());
      }
      b.volume_size_gib = (q->Value() + (int64_t{1} << 30) - 1) >> 30;
    }
    b.volume_type = m.ebs.volume_type.empty() ? "gp3" : m.ebs.volume_type;
    b.encrypted = m.ebs.encrypted.value_or(true);
    b.delete_on_termination = m.ebs.delete_on_termination.value_or(true);
    if (m.ebs.iops) b.iops = *m.ebs.iops;
    if (m.ebs.throughput) b.throughput = *m.ebs.throughput;
    b.kms_key_id = m.ebs.kms_key_id;
    b.snapshot_id = m.ebs.snapshot_id;
    out.push_back(std::move(b));
  }
  return out;
}

}  // namespace

AwsCloudProvider::AwsCloudProvider(AwsSession& session, const core::Clock& clock,
                                   AwsCloudProviderOptions options)
    : session_(session), clock_(clock), options_(std::move(options)) {
  ssm_ = std::make_unique<SsmClient>(&session_.ssm());
  resolver_ = std::make_unique<NodeClassResolver>(&session_.ec2(), ssm_.get(),
                                                  options_.cluster.kubernetes_version);
}

std::string AwsCloudProvider::InstanceIdOf(const std::string& provider_id) {
  if (provider_id.rfind(kAwsProviderIdPrefix, 0) != 0) return "";
  size_t slash = provider_id.rfind('/');
  std::string id = provider_id.substr(slash + 1);
  return id.rfind("i-", 0) == 0 ? id : "";
}

core::Result<const ResolvedNodeClass*> AwsCloudProvider::Resolve(const api::EC2NodeClass& node_class) const {
  const core::Time now = clock_.Now();
  auto it = resolutions_.find(node_class.metadata.name);
  if (it != resolutions_.end() && now - it->second.at < options_.resolution_ttl &&
      it->second.resolved.conditions.size() > 0 &&
      api::FindCondition(it->second.resolved.conditions, "Ready")->observed_generation ==
          node_class.metadata.generation) {
    return &it->second.resolved;
  }
  std::vector<api::Condition> previous =
      it == resolutions_.end() ? node_class.conditions : it->second.resolved.conditions;
  auto resolved = resolver_->Resolve(node_class, now, previous);
  if (!resolved.ok()) return resolved.status();
  Resolution& r = resolutions_[node_class.metadata.name];
  r.resolved = std::move(*resolved);
  r.at = now;
  return &r.resolved;
}

core::Result<std::string> AwsCloudProvider::EnsureLaunchTemplate(const LaunchTemplateData& data) {
  const std::string name = LaunchTemplateName(data);
  const core::Time now = clock_.Now();
  auto known = launch_templates_.find(name);
  if (known != launch_templates_.end()) {
    known->second = now;
    return name;
  }
  auto found = session_.ec2().DescribeLaunchTemplates({}, {name});
  if (found.ok() && !found->empty()) {
    launch_templates_[name] = now;
    return name;
  }
  if (!found.ok() && found.status().code() != core::StatusCode::kNotFound) return found.status();
  auto created = session_.ec2().CreateLaunchTemplate(name, data, data.tags);
  // Another replica (or an earlier life of this one) may have made it meanwhile: same name, same
  // contents.
  if (!created.ok() && ErrorCodeOf(created.status()) != "InvalidLaunchTemplateName.AlreadyExistsException")
    return created.status().WithPrefix("creating launch template " + name);
  launch_templates_[name] = now;
  return name;
}

core::Result<std::vector<std::string>> AwsCloudProvider::DeleteUnusedLaunchTemplates() {
  const core::Time now = clock_.Now();
  if (!launch_templates_listed_) {
    // Templates an earlier life of the controller made count as used now: each goes one TTL
    // from now unless a launch uses it again.
    auto templates = session_.ec2().DescribeLaunchTemplates(
        {{std::string("tag:") + kTagEksClusterName, {options_.cluster.name}}});
    if (!templates.ok()) return templates.status().WithPrefix("listing this cluster's launch templates");
    for (const LaunchTemplate& t : *templates) launch_templates_.emplace(t.name, now);
    launch_templates_listed_ = true;
  }
  std::vector<std::string> deleted;
  for (auto it = launch_templates_.begin(); it != launch_templates_.end();) {
    if (now - it->second < options_.launch_template_ttl) {
      ++it;
      continue;
    }
    core::Status st = session_.ec2().DeleteLaunchTemplate(it->first);
    if (!st.ok() && st.code() != core::StatusCode::kNotFound)
      return st.WithPrefix("deleting unused launch template " + it->first);
    deleted.push_back(it->first);
    it = launch_templates_.erase(it);
  }
  return deleted;
}

core::Result<AwsCloudProvider::LaunchTemplateSource> AwsCloudProvider::LaunchTemplateSourceFor(
    const api::EC2NodeClass& node_class, const ResolvedNodeClass& rc, const api::NodeClaim& node_claim,
    const std::string& instance_profile) {
  LaunchTemplateSource src;
  src.node_class = &node_class;
  src.family = cloud::AmiFamilyOf(node_class);
  auto block_devices = BlockDevicesOf(node_class, src.family);
  if (!block_devices.ok()) return block_devices.status();
  src.block_devices = std::move(block_devices).value();
  src.tags = TagsFor(node_class, node_claim);
  src.instance_profile = instance_profile;
  for (const SecurityGroup& g : rc.security_groups) src.security_group_ids.push_back(g.id);

  BootstrapOptions& bootstrap = src.bootstrap;
  bootstrap.cluster_name = options_.cluster.name;
  bootstrap.cluster_endpoint = options_.cluster.endpoint;
  bootstrap.ca_bundle_base64 = options_.cluster.ca_bundle_base64;
  bootstrap.cluster_dns_ip = options_.cluster.dns_ip;
  bootstrap.cluster_cidr = options_.cluster.service_cidr;
  bootstrap.labels = node_claim.metadata.labels;
  for (const auto& r : node_claim.spec.requirements)
    if (r.op == "In" && r.values.size() == 1) bootstrap.labels[r.key] = r.values[0];
  bootstrap.taints = node_claim.spec.taints;
  bootstrap.taints.insert(bootstrap.taints.end(), node_claim.spec.startup_taints.begin(),
                          node_claim.spec.startup_taints.end());
  bootstrap.taints.push_back({s::kTaintUnregistered, "", "NoExecute"});
  bootstrap.kubelet = node_class.kubelet;
  bootstrap.custom_user_data = node_class.user_data;
  bootstrap.instance_store_policy = node_class.instance_store_policy;
  // The user data must build; its max pods only changes a number in it.
  auto user_data = BuildUserData(src.family, bootstrap);
  if (!user_data.ok()) return user_data.status().WithPrefix("EC2NodeClass " + node_class.metadata.name);

  src.images = rc.images;
  return src;
}

std::optional<int> AwsCloudProvider::MaxPodsOf(const LaunchTemplateSource& src, const cloud::InstanceType& type) {
  // The class's own maxPods is in the kubelet settings the user data carries already.
  if (src.node_class->kubelet && src.node_class->kubelet->max_pods) return std::nullopt;
  const int64_t pods = type.capacity.Get("pods").Value();
  if (pods <= 0) return std::nullopt;
  return static_cast<int>(pods);
}

core::Result<std::string> AwsCloudProvider::EnsureLaunchTemplateFor(LaunchTemplateSource& src,
                                                                    const cloud::InstanceType& type) {
  const ResolvedImage* image = ImageForType(src.images, type);
  if (image == nullptr) {
    return core::Status(core::StatusCode::kFailedPrecondition,
                        "EC2NodeClass " + src.node_class->metadata.name + " has no image for " + type.name);
  }
  const std::optional<int> max_pods = MaxPodsOf(src, type);
  const std::string key = image->id + "/" + (max_pods ? std::to_string(*max_pods) : std::string());
  if (auto known = src.made.find(key); known != src.made.end()) return known->second;

  BootstrapOptions bootstrap = src.bootstrap;
  bootstrap.max_pods = max_pods;
  auto user_data = BuildUserData(src.family, bootstrap);
  if (!user_data.ok()) return user_data.status().WithPrefix("EC2NodeClass " + src.node_class->metadata.name);
  const api::EC2NodeClass& node_class = *src.node_class;
  LaunchTemplateData data;
  data.image_id = image->id;
  data.user_data = core::Base64Encode(*user_data);
  data.instance_profile_name = src.instance_profile;
  for (const std::string& id : src.security_group_ids) data.security_group_ids.push_back(id);
  data.block_devices = src.block_devices;
  data.metadata.http_endpoint = node_class.metadata_options.http_endpoint;
  data.metadata.http_protocol_ipv6 = node_class.metadata_options.http_protocol_ipv6;
  data.metadata.http_put_response_hop_limit = node_class.metadata_options.http_put_response_hop_limit;
  data.metadata.http_tokens = node_class.metadata_options.http_tokens;
  data.detailed_monitoring = node_class.detailed_monitoring.value_or(false);
  data.tags = src.tags;
  auto name = EnsureLaunchTemplate(data);
  if (!name.ok()) return name.status();
  src.made[key] = *name;
  return *name;
}

Tags AwsCloudProvider::TagsFor(const api::EC2NodeClass& node_class,
                               const api::NodeClaim& node_claim) const {
  auto pool = node_claim.metadata.labels.find(s::kLabelNodePool);
  return LaunchTags(options_.cluster.name, pool == node_claim.metadata.labels.end() ? "" : pool->second,
                    node_class.metadata.name, node_class.tags);
}

core::Result<NodeClassValidation> AwsCloudProvider::Validate(const api::EC2NodeClass& node_class) {
  const std::string& class_name = node_class.metadata.name;
  auto resolved = Resolve(node_class);
  if (!resolved.ok()) return resolved.status().WithPrefix("resolving EC2NodeClass " + class_name);
  const ResolvedNodeClass& rc = **resolved;
  const std::string& instance_profile =
      node_class.role.empty() ? node_class.instance_profile : node_class.status_instance_profile;
  // A NodeClaim of no NodePool: the template and the calls carry the class's and the cluster's
  // tags, as every launch's do.
  api::NodeClaim probe;
  probe.spec.node_class_ref = {"karpenter.k8s.aws", "EC2NodeClass", class_name};
  const Tags tags = TagsFor(node_class, probe);
  // AWS's answers to the three calls, in Karpenter's order, as a condition reason and message.
  auto denied = [](const char* reason, const char* call, const core::Status& st)
      -> core::Result<NodeClassValidation> {
    if (ErrorCodeOf(st) != "UnauthorizedOperation") {
      return st.WithPrefix(std::string("validating ec2:") + call + " authorization");
    }
    return NodeClassValidation{reason,
                               std::string("Controller isn't authorized to call ec2:") + call +
                                   ": " + st.message(),
                               call};
  };

  auto source = LaunchTemplateSourceFor(node_class, rc, probe, instance_profile);
  if (!source.ok()) return source.status();
  if (source->images.empty() || rc.subnets.empty()) {
    return core::Status(core::StatusCode::kFailedPrecondition,
                        "EC2NodeClass " + class_name + " has no image or no subnet to validate with");
  }
  // The cheapest on-demand type the class has an image for: a type it could launch.
  const cloud::InstanceType* type = nullptr;
  double cheapest = 0;
  for (const cloud::InstanceTypePtr& t : options_.instance_types) {
    if (ImageForType(source->images, *t) == nullptr) continue;
    for (const cloud::Offering& o : t->offerings) {
      if (o.capacity_type != "on-demand") continue;
      if (type == nullptr || o.price < cheapest) {
        type = t.get();
        cheapest = o.price;
      }
    }
  }
  if (type == nullptr) {
    return core::Status(core::StatusCode::kFailedPrecondition,
                        "EC2NodeClass " + class_name + ": no on-demand instance type for its images");
  }
  auto made = EnsureLaunchTemplateFor(*source, *type);
  if (!made.ok()) return denied("CreateLaunchTemplateAuthCheckFailed", "CreateLaunchTemplate", made.status());
  const std::string template_name = *made;

  CreateFleetRequest fleet;
  fleet.capacity_type = "on-demand";
  fleet.tags = tags;
  FleetLaunchTemplateConfig config;
  config.launch_template_name = template_name;
  for (const Subnet& subnet : SubnetPerZone(rc.subnets)) {
    FleetOverride o;
    o.instance_type = type->name;
    o.subnet_id = subnet.id;
    config.overrides.push_back(o);
  }
  fleet.configs.push_back(std::move(config));
  core::Status st = session_.ec2().DryRunCreateFleet(std::move(fleet));
  if (!st.ok()) return denied("CreateFleetAuthCheckFailed", "CreateFleet", st);

  // Authorization does not depend on the subnet; one that answers is enough.
  core::Status first;
  for (const Subnet& subnet : rc.subnets) {
    st = session_.ec2().DryRunRunInstances({template_name, type->name, subnet.id, tags});
    if (st.ok()) return NodeClassValidation{};
    if (first.ok()) first = st;
  }
  return denied("RunInstancesAuthCheckFailed", "RunInstances", first);
}

core::Result<AwsCloudProvider::PreparedLaunch> AwsCloudProvider::PrepareLaunch(
    const api::NodeClaim& node_claim) {
  const std::string& class_name = node_claim.spec.node_class_ref.name;
  auto node_class = options_.node_classes ? options_.node_classes(class_name)
                                          : core::Result<api::EC2NodeClass>(core::Status::NotFound("no node classes"));
  if (!node_class.ok()) {
    if (node_class.status().code() == core::StatusCode::kNotFound) {
      return core::Status::Unavailable("insufficient capacity: resolving node class EC2NodeClass/" +
                                       class_name + ": " + node_class.status().message());
    }
    return node_class.status();
  }
  auto resolved = Resolve(*node_class);
  if (!resolved.ok()) return resolved.status().WithPrefix("resolving EC2NodeClass " + class_name);
  if (!(*resolved)->ready()) {
    const api::Condition* ready = api::FindCondition((*resolved)->conditions, "Ready");
    return core::Status(core::StatusCode::kFailedPrecondition,
                        "EC2NodeClass/" + class_name + " is not ready: " +
                            (ready != nullptr ? ready->message : std::string("not resolved")));
  }
  const ResolvedNodeClass& rc = **resolved;
  // A class naming a role launches with the profile made for it, once there is one.
  const std::string& instance_profile =
      node_class->role.empty() ? node_class->instance_profile : node_class->status_instance_profile;
  if (!node_class->role.empty() && instance_profile.empty()) {
    return core::Status(core::StatusCode::kFailedPrecondition,
                        "EC2NodeClass/" + class_name + " is not ready: its instance profile for role " +
                            node_class->role + " is not created yet (status.instanceProfile)");
  }
  auto source = LaunchTemplateSourceFor(*node_class, rc, node_claim, instance_profile);
  if (!source.ok()) return source.status();

  FleetPlanInput in;
  in.instance_types = options_.instance_types;
  in.node_claim = &node_claim;
  in.zonal_subnets = SubnetPerZone(rc.subnets);
  in.has_image = [&source](const cloud::InstanceType& type) {
    return ImageForType(source->images, type) != nullptr;
  };
  in.launch_template_for = [this, &source](const cloud::InstanceType& type) {
    return EnsureLaunchTemplateFor(*source, type);
  };
  in.search.catalog_source = "aws";
  const core::Time now = clock_.Now();
  in.search.unavailable = [this, now](const cloud::OfferingRef& o) { return unavailable_.IsUnavailable(o, now); };
  // As Karpenter's, the tags name no NodeClaim (the tagging controller adds it once the node
  // joined), so equal launches make equal requests and a batch merges them into one fleet.
  in.tags = TagsFor(*node_class, node_claim);
  auto plan = PlanFleet(in);
  if (!plan.ok()) return plan.status();
  PreparedLaunch out{std::move(plan).value(), rc.images,
                     EC2NodeClassHash(*node_class, options_.cluster.ca_bundle_base64), instance_profile};
  return out;
}

core::Result<api::NodeClaim> AwsCloudProvider::LaunchedAs(const api::NodeClaim& node_claim,
                                                          const PreparedLaunch& launch,
                                                          const FleetInstance& instance) const {
  auto choice = launch.plan.offering_of.find({instance.instance_type, instance.zone});
  if (choice == launch.plan.offering_of.end()) {
    return core::Status::Internal("CreateFleet launched " + instance.instance_id + " as " +
                                  instance.instance_type + " in " + instance.zone +
                                  ", which the request did not offer");
  }
  const cloud::InstanceType& type = *choice->second.type;
  const cloud::Offering& offering = *choice->second.offering;
  api::NodeClaim launched = cloud::LaunchedNodeClaim(
      node_claim, type, offering, session_.region(),
      std::string(kAwsProviderIdPrefix) + instance.zone + "/" + instance.instance_id);
  // The image it was launched with, for AMI drift.
  if (const ResolvedImage* image = ImageForType(launch.images, type)) launched.status.image_id = image->id;
  // What it was launched from, for NodeClassDrift.
  api::SetHashStamp(launched.metadata, kEC2NodeClassHashStamp, launch.node_class_hash);
  // The profile it runs with, which the instance-profile collector keeps while the NodeClaim lives.
  if (!launch.instance_profile.empty())
    launched.metadata.annotations[kAnnotationInstanceProfile] = launch.instance_profile;
  return launched;
}

core::Result<api::NodeClaim> AwsCloudProvider::Create(const api::NodeClaim& node_claim) {
  return std::move(CreateAll({node_claim})[0]);
}

std::vector<core::Result<api::NodeClaim>> AwsCloudProvider::CreateAll(
    const std::vector<api::NodeClaim>& node_claims) {
  std::vector<core::Result<api::NodeClaim>> out(
      node_claims.size(), core::Status::Internal("not launched"));
  // Equal requests, in the order their first NodeClaim came: one fleet each.
  std::vector<PreparedLaunch> launches;
  std::vector<std::vector<size_t>> batches;  // indexes into node_claims, per launch
  for (size_t i = 0; i < node_claims.size(); ++i) {
    auto prepared = PrepareLaunch(node_claims[i]);
    if (!prepared.ok()) {
      out[i] = prepared.status();
      continue;
    }
    size_t b = 0;
    while (b < launches.size() &&
           (!(launches[b].plan.request == prepared->plan.request) || batches[b].size() >= kMaxLaunchBatch))
      ++b;
    if (b == launches.size()) {
      launches.push_back(std::move(prepared).value());
      batches.emplace_back();
    }
    batches[b].push_back(i);
  }

  for (size_t b = 0; b < launches.size(); ++b) {
    const PreparedLaunch& launch = launches[b];
    const std::vector<size_t>& batch = batches[b];
    std::string names;
    for (size_t i : batch) names += (names.empty() ? "" : ", ") + node_claims[i].metadata.name;
    CreateFleetRequest request = launch.plan.request;
    request.total_target_capacity = static_cast<int64_t>(batch.size());
    auto fleet = session_.ec2().CreateFleet(request);
    if (!fleet.ok()) {
      core::Status failed =
          IsInsufficientCapacityCode(ErrorCodeOf(fleet.status()))
              ? core::Status::Unavailable("insufficient capacity: " + fleet.status().message())
              : fleet.status().WithPrefix("launching NodeClaim " + names);
      for (size_t i : batch) out[i] = failed;
      continue;
    }
    FleetOutcome outcome = InterpretFleet(*fleet, launch.plan, batch.size(), names);
    const core::Time now = clock_.Now();
    for (const cloud::OfferingRef& o : outcome.unavailable) unavailable_.Mark(o, now + options_.unavailable_for);
    // What was launched is what Get is asked about next (registration, termination).
    for (const FleetInstance& i : outcome.instances) asked_[i.instance_id] = now;
    for (size_t k = 0; k < batch.size(); ++k) {
      out[batch[k]] = k < outcome.instances.size()
                          ? LaunchedAs(node_claims[batch[k]], launch, outcome.instances[k])
                          : core::Result<api::NodeClaim>(outcome.error);
    }
  }
  return out;
}

core::Status AwsCloudProvider::DeleteLaunchTemplates(const std::string& node_class) {
  auto templates = session_.ec2().DescribeLaunchTemplates(
      {{std::string("tag:") + kTagNodeClass, {node_class}},
       {std::string("tag:") + kTagEksClusterName, {options_.cluster.name}}});
  if (!templates.ok()) return templates.status().WithPrefix("listing the launch templates of EC2NodeClass " + node_class);
  for (const LaunchTemplate& t : *templates) {
    core::Status deleted = session_.ec2().DeleteLaunchTemplate(t.name);
    if (!deleted.ok() && deleted.code() != core::StatusCode::kNotFound)
      return deleted.WithPrefix("deleting launch template " + t.name);
    launch_templates_.erase(t.name);
  }
  resolutions_.erase(node_class);
  return core::Status::Ok();
}

core::Status AwsCloudProvider::Delete(const api::NodeClaim& node_claim) {
  const std::string id = InstanceIdOf(node_claim.status.provider_id);
  if (id.empty()) return core::Status::NotFound("instance " + node_claim.status.provider_id + " not found");
  answers_.erase(id);  // the next Get asks EC2 again
  auto terminated = session_.ec2().TerminateInstances({id});
  if (!terminated.ok()) {
    if (terminated.status().code() == core::StatusCode::kNotFound)
      return core::Status::NotFound("instance " + id + " not found");
    return terminated.status();
  }
  return core::Status::Ok();
}

std::vector<core::Status> AwsCloudProvider::DeleteAll(const std::vector<api::NodeClaim>& node_claims) {
  std::vector<core::Status> out(node_claims.size(), core::Status::Ok());
  std::vector<std::string> ids;
  for (size_t i = 0; i < node_claims.size(); ++i) {
    const std::string id = InstanceIdOf(node_claims[i].status.provider_id);
    if (id.empty()) {
      out[i] = core::Status::NotFound("instance " + node_claims[i].status.provider_id + " not found");
      continue;
    }
    answers_.erase(id);  // the next Get asks EC2 again
    if (std::find(ids.begin(), ids.end(), id) == ids.end()) ids.push_back(id);
  }
  if (ids.size() <= 1) {
    for (size_t i = 0; i < node_claims.size(); ++i)
      if (out[i].ok()) out[i] = Delete(node_claims[i]);
    return out;
  }
  // What the whole call did not take (all of it, when EC2 refused it) goes one call each.
  std::set<std::string> terminating;
  for (size_t first = 0; first < ids.size(); first += kMaxDeleteBatch) {
    std::vector<std::string> chunk(ids.begin() + first,
                                   ids.begin() + std::min(ids.size(), first + kMaxDeleteBatch));
    auto terminated = session_.ec2().TerminateInstances(chunk);
    if (terminated.ok()) terminating.insert(terminated->begin(), terminated->end());
  }
  for (size_t i = 0; i < node_claims.size(); ++i) {
    if (!out[i].ok() || terminating.count(InstanceIdOf(node_claims[i].status.provider_id))) continue;
    out[i] = Delete(node_claims[i]);
  }
  return out;
}

const cloud::InstanceType* AwsCloudProvider::FindType(const std::string& name) const {
  for (const cloud::InstanceTypePtr& t : options_.instance_types)
    if (t->name == name) return t.get();
  return nullptr;
}

api::NodeClaim AwsCloudProvider::FromInstance(const Instance& instance) const {
  api::NodeClaim claim;
  for (const auto& [k, v] : instance.tags) {
    if (k == kTagNodeClaim) claim.metadata.name = v;
    if (k == s::kLabelNodePool) claim.metadata.labels[s::kLabelNodePool] = v;
  }
  claim.status.provider_id = std::string(kAwsProviderIdPrefix) + instance.zone + "/" + instance.id;
  claim.status.image_id = instance.image_id;
  claim.metadata.labels[s::kLabelInstanceTypeStable] = instance.type;
  claim.metadata.labels[s::kLabelTopologyZone] = instance.zone;
  claim.metadata.labels[s::kLabelCapacityType] = instance.is_spot() ? "spot" : "on-demand";
  if (const cloud::InstanceType* type = FindType(instance.type)) {
    for (const auto& [k, v] : type->requirements.SingleValuedLabels()) claim.metadata.labels[k] = v;
    claim.status.capacity = type->capacity;
    claim.status.allocatable = type->allocatable;
  }
  if (auto t = core::ParseRfc3339(instance.launch_time); t.ok()) claim.metadata.creation_timestamp = *t;
  return claim;
}

core::Status AwsCloudProvider::DescribeIntoAnswers(const std::vector<std::string>& ids, core::Time now) const {
  auto described = session_.ec2().DescribeInstances({{"instance-state-name", kLiveStates}}, ids);
  if (!described.ok()) {
    if (described.status().code() != core::StatusCode::kNotFound) return described.status();
    if (ids.size() == 1) {
      answers_[ids[0]] = {std::nullopt, now};
      asked_.erase(ids[0]);  // gone for good: not worth asking about again
      return core::Status::Ok();
    }
    // One of them is unknown to EC2 and fails the call: ask each alone.
    for (const std::string& id : ids) NS_RETURN_IF_ERROR(DescribeIntoAnswers({id}, now));
    return core::Status::Ok();
  }
  for (const std::string& id : ids) answers_[id] = {std::nullopt, now};
  for (const Instance& i : *described) {
    auto it = answers_.find(i.id);
    if (it == answers_.end() || i.state == "shutting-down" || i.state == "terminated") continue;
    it->second.instance = i;
  }
  return core::Status::Ok();
}

core::Result<api::NodeClaim> AwsCloudProvider::Get(const std::string& provider_id) const {
  const std::string id = InstanceIdOf(provider_id);
  if (id.empty()) return core::Status::NotFound("instance " + provider_id + " not found");
  const core::Time now = clock_.Now();
  asked_[id] = now;
  auto known = answers_.find(id);
  if (known == answers_.end() || now - known->second.at >= options_.describe_batch_window) {
    // This id, then the others asked about lately whose answers are not fresh, up to the batch.
    std::vector<std::string> ids = {id};
    for (auto it = asked_.begin(); it != asked_.end();) {
      if (now - it->second >= options_.describe_watch) {
        answers_.erase(it->first);
        it = asked_.erase(it);
        continue;
      }
      auto answer = answers_.find(it->first);
      if (it->first != id && ids.size() < kMaxDescribeBatch &&
          (answer == answers_.end() || now - answer->second.at >= options_.describe_batch_window))
        ids.push_back(it->first);
      ++it;
    }
    NS_RETURN_IF_ERROR(DescribeIntoAnswers(ids, now));
    known = answers_.find(id);
  }
  if (known == answers_.end() || !known->second.instance)
    return core::Status::NotFound("instance " + id + " not found");
  return FromInstance(*known->second.instance);
}

std::vector<api::NodeClaim> AwsCloudProvider::List() const {
  std::vector<api::NodeClaim> out;
  auto instances = DescribeOwnInstances();
  if (!instances.ok()) return out;  // the interface has no error; GC tries again next round
  for (const Instance& i : *instances)
    if (i.state != "shutting-down" && i.state != "terminated") out.push_back(FromInstance(i));
  return out;
}

core::Result<cloud::InstanceTypes> AwsCloudProvider::GetInstanceTypes(const api::NodePool& node_pool) const {
  std::set<std::string> zones;
  bool zones_known = false;
  const std::string& class_name = node_pool.template_.spec.node_class_ref.name;
  if (options_.node_classes) {
    auto node_class = options_.node_classes(class_name);
    if (node_class.ok()) {
      auto resolved = Resolve(*node_class);
      if (resolved.ok()) {
        for (const std::string& z : (*resolved)->zones()) zones.insert(z);
        zones_known = true;
      }
    }
  }
  const core::Time now = clock_.Now();
  cloud::InstanceTypes out;
  for (const cloud::InstanceTypePtr& t : options_.instance_types) {
    bool changed = false;
    std::vector<cloud::Offering> offerings = t->offerings;
    for (cloud::Offering& o : offerings) {
      bool no_subnet = zones_known && zones.count(o.zone) == 0;
      if (o.available && (no_subnet || unavailable_.IsUnavailable({t->name, o.zone, o.capacity_type}, now))) {
        o.available = false;
        changed = true;
      }
    }
    if (!changed) {
      out.push_back(t);
      continue;
    }
    out.push_back(cloud::NewInstanceType(t->name, t->requirements, t->capacity, t->overhead, std::move(offerings)));
  }
  return out;
}

void AwsCloudProvider::MarkOfferingUnavailable(const cloud::UnavailableOffering& offering) {
  unavailable_.Mark({offering.instance_type, offering.zone, offering.capacity_type},
                    clock_.Now() + offering.ttl);
}

cloud::DriftReason AwsCloudProvider::IsDrifted(const api::NodeClaim& node_claim) const {
  if (!options_.node_classes) return {};
  auto node_class = options_.node_classes(node_claim.spec.node_class_ref.name);
  if (!node_class.ok()) return {};
  // The class's stamp, not a hash computed here: the hash controller writes it, and both
  // stamps must be of the same version to compare.
  if (api::HashStampsDiffer(node_class->metadata, node_claim.metadata, kEC2NodeClassHashStamp))
    return {"NodeClassDrift"};
  auto resolved = Resolve(*node_class);
  if (!resolved.ok()) return {};
  const ResolvedNodeClass& rc = **resolved;
  if (!node_claim.status.image_id.empty() && !rc.images.empty()) {
    bool current = false;
    for (const ResolvedImage& image : rc.images) current = current || image.id == node_claim.status.image_id;
    if (!current) return {"AMIDrift"};
  }
  const Instance* instance = CachedInstance(InstanceIdOf(node_claim.status.provider_id));
  if (instance == nullptr) return {};
  // An instance in a VPC always has a security group; none listed means the answer did not
  // say, which is no evidence of drift.
  if (!rc.security_groups.empty() && !instance->security_group_ids.empty()) {
    std::set<std::string> want, have(instance->security_group_ids.begin(),
                                     instance->security_group_ids.end());
    for (const SecurityGroup& g : rc.security_groups) want.insert(g.id);
    if (want != have) return {"SecurityGroupDrift"};
  }
  if (!rc.subnets.empty() && !instance->subnet_id.empty()) {
    bool found = false;
    for (const Subnet& subnet : rc.subnets) found = found || subnet.id == instance->subnet_id;
    if (!found) return {"SubnetDrift"};
  }
  return {};
}

const Instance* AwsCloudProvider::CachedInstance(const std::string& id) const {
  if (id.empty()) return nullptr;
  const core::Time now = clock_.Now();
  if (!instances_at_ || now - *instances_at_ >= options_.resolution_ttl) {
    auto listed = DescribeOwnInstances();
    if (!listed.ok()) return nullptr;
    instances_.clear();
    for (Instance& i : *listed) instances_[i.id] = std::move(i);
    instances_at_ = now;
  }
  auto it = instances_.find(id);
  return it == instances_.end() ? nullptr : &it->second;
}

core::Result<std::vector<Instance>> AwsCloudProvider::DescribeOwnInstances() const {
  return session_.ec2().DescribeInstances(
      {{"tag-key", {s::kLabelNodePool}},
       {std::string("tag:") + kTagEksClusterName, {options_.cluster.name}},
       {"instance-state-name", kLiveStates}});
}

}  // namespace nodesmith::aws
