#include "cloud/aws/fleet_request.h"

#include <algorithm>
#include <set>

#include "scheduling/well_known_labels.h"

namespace nodesmith::aws {

Tags LaunchTags(const std::string& cluster_name, const std::string& node_pool,
                const std::string& node_class, const std::map<std::string, std::string>& user_tags) {
  std::map<std::string, std::string> tags = user_tags;
  tags["kubernetes.io/cluster/" + cluster_name] = "owned";
  tags[kTagNodePool] = node_pool;
  tags[kTagEksClusterName] = cluster_name;
  tags[kTagNodeClass] = node_class;
  return Tags(tags.begin(), tags.end());
}

std::string LaunchTemplateName(const LaunchTemplateData& d) {
  // FNV-1a over a canonical text of every field: stable across processes and releases.
  std::string text = d.image_id + '\x1f' + d.user_data + '\x1f' + d.instance_profile_name + '\x1f';
  for (const std::string& g : d.security_group_ids) text += g + ',';
  text += '\x1f';
  for (const auto& b : d.block_devices) {
    text += b.device_name + ':' + std::to_string(b.volume_size_gib) + ':' + b.volume_type + ':' +
            (b.encrypted ? "e" : "") + ':' + (b.delete_on_termination ? "d" : "") + ':' +
            (b.iops ? std::to_string(*b.iops) : "") + ':' +
            (b.throughput ? std::to_string(*b.throughput) : "") + ':' + b.kms_key_id + ':' +
            b.snapshot_id + ';';
  }
  text += '\x1f' + d.metadata.http_endpoint + ':' + d.metadata.http_protocol_ipv6 + ':' +
          std::to_string(d.metadata.http_put_response_hop_limit) + ':' + d.metadata.http_tokens;
  text += d.detailed_monitoring ? "\x1fmonitoring" : "\x1f";
  for (const auto& [k, v] : d.tags) text += '\x1f' + k + '=' + v;
  uint64_t h = 14695981039346656037ull;
  for (unsigned char c : text) {
    h ^= c;
    h *= 1099511628211ull;
  }
  return kLaunchTemplateNamePrefix + std::to_string(h);
}

core::Result<FleetPlan> PlanFleet(const FleetPlanInput& input) {
  std::vector<cloud::OfferingRef> tried;
  std::vector<cloud::LaunchChoice> choices =
      cloud::CompatibleOfferings(input.instance_types, *input.node_claim, input.search, &tried);
  std::map<std::string, const Subnet*> subnet_of_zone;
  for (const Subnet& s : input.zonal_subnets) subnet_of_zone[s.zone] = &s;
  // Only offerings the fleet can launch: a zone with a subnet, a type with an image.
  std::vector<cloud::LaunchChoice> launchable;
  for (const cloud::LaunchChoice& c : choices) {
    if (subnet_of_zone.count(c.offering->zone) == 0) continue;
    if (!input.has_image(*c.type)) continue;
    launchable.push_back(c);
  }
  if (launchable.empty()) return cloud::NoLaunchableOffering(*input.node_claim, input.search, tried);

  FleetPlan plan;
  bool spot = std::any_of(launchable.begin(), launchable.end(), [](const cloud::LaunchChoice& c) {
    return c.offering->capacity_type == "spot";
  });
  plan.request.capacity_type = spot ? "spot" : "on-demand";
  plan.request.total_target_capacity = 1;
  plan.request.tags = input.tags;
  std::set<std::string> types;
  // One config per template, in the order of their cheapest override: EC2 weighs every override
  // of the request whatever its place, but a peer that takes the first (moto) then launches the
  // cheapest too, and the request does not depend on how the templates' names hash.
  std::map<std::string, FleetLaunchTemplateConfig> configs;  // by template name
  std::vector<std::string> config_order;
  for (const cloud::LaunchChoice& c : launchable) {  // cheapest first
    if (c.offering->capacity_type != plan.request.capacity_type) continue;
    if (types.count(c.type->name) == 0) {
      if (static_cast<int>(types.size()) == kMaxFleetInstanceTypes) continue;
      types.insert(c.type->name);
    }
    auto made = input.launch_template_for(*c.type);
    if (!made.ok()) return made.status();
    const std::string& lt = *made;
    if (configs.count(lt) == 0) config_order.push_back(lt);
    FleetLaunchTemplateConfig& config = configs[lt];
    config.launch_template_name = lt;
    config.overrides.push_back({c.type->name, subnet_of_zone[c.offering->zone]->id,
                                c.offering->zone, "", c.offering->price});
    plan.offering_of[{c.type->name, c.offering->zone}] = c;
  }
  for (const std::string& name : config_order) plan.request.configs.push_back(std::move(configs[name]));
  return plan;
}

FleetOutcome InterpretFleet(const CreateFleetResult& result, const FleetPlan& plan, size_t wanted,
                            const std::string& node_claims) {
  FleetOutcome out;
  for (const FleetInstance& i : result.instances) {
    if (out.instances.size() == wanted) break;  // more than asked for: not ours to hand out
    if (!i.instance_id.empty()) out.instances.push_back(i);
  }
  for (const FleetError& e : result.errors)
    if (IsInsufficientCapacityCode(e.code) && !e.instance_type.empty() && !e.zone.empty())
      out.unavailable.push_back({e.instance_type, e.zone, plan.request.capacity_type});
  std::sort(out.unavailable.begin(), out.unavailable.end());
  out.unavailable.erase(std::unique(out.unavailable.begin(), out.unavailable.end()), out.unavailable.end());
  if (out.instances.size() == wanted) return out;

  // Some launches are left without an instance: say why, for them.
  const std::string short_by =
      wanted == 1 ? "" : " (" + std::to_string(out.instances.size()) + " of " + std::to_string(wanted) + " launched)";
  const FleetError* first_other = nullptr;
  for (const FleetError& e : result.errors)
    if (!IsInsufficientCapacityCode(e.code)) {
      first_other = &e;
      break;
    }
  if (!result.errors.empty() && first_other == nullptr) {
    out.error = core::Status::Unavailable("insufficient capacity: CreateFleet launched nothing for NodeClaim " +
                                          node_claims + short_by + ": " + result.errors[0].code + ": " +
                                          result.errors[0].message + " (" +
                                          cloud::DescribeOfferings(out.unavailable) + ")");
    return out;
  }
  out.error = core::Status::Internal(
      "launching NodeClaim " + node_claims + " failed" + short_by + ": " +
      (first_other == nullptr ? std::string("CreateFleet answered without an instance or an error")
                              : first_other->code + ": " + first_other->message) +
      (result.fleet_id.empty() ? "" : " (fleet " + result.fleet_id + ")"));
  return out;
}

}  // namespace nodesmith::aws
