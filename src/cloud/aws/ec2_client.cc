#include "cloud/aws/ec2_client.h"

#include <cmath>
#include <cstdio>
#include <cstdlib>

namespace nodesmith::aws {

namespace {

void AddFilters(QueryParams& params, const std::vector<Ec2Filter>& filters) {
  for (const Ec2Filter& f : filters) params.AddFilter(f.name, f.values);
}

// EC2's decimal text ("0.0312") as a price; 0 when unreadable. strtod also reads "1e999" and
// "inf" (infinity) and "nan", which are no price, nor is a negative number.
double ParseDouble(const char* text) {
  char* end = nullptr;
  double v = std::strtod(text, &end);
  return end == text || !std::isfinite(v) || v < 0 ? 0 : v;
}

std::string FormatPriority(double p) {
  char buf[32];
  std::snprintf(buf, sizeof buf, "%.6f", p);
  return buf;
}

void AddTagSpecification(QueryParams& params, int index, const std::string& resource_type,
                         const Tags& tags, const std::string& prefix = "TagSpecification") {
  std::string p = prefix + "." + std::to_string(index);
  params.Add(p + ".ResourceType", resource_type);
  params.AddTags(p + ".Tag", tags);
}

Instance DecodeInstance(pugi::xml_node item) {
  Instance i;
  i.id = ChildText(item, "instanceId");
  i.type = ChildText(item, "instanceType");
  i.zone = ChildText(item.child("placement"), "availabilityZone");
  i.subnet_id = ChildText(item, "subnetId");
  i.image_id = ChildText(item, "imageId");
  i.state = ChildText(item.child("instanceState"), "name");
  i.lifecycle = ChildText(item, "instanceLifecycle");
  i.spot_request_id = ChildText(item, "spotInstanceRequestId");
  i.launch_time = ChildText(item, "launchTime");
  i.private_dns_name = ChildText(item, "privateDnsName");
  i.private_ip = ChildText(item, "privateIpAddress");
  for (pugi::xml_node g : item.child("groupSet").children("item"))
    i.security_group_ids.push_back(ChildText(g, "groupId"));
  i.tags = TagsOf(item.child("tagSet"));
  return i;
}

}  // namespace

Tags TagsOf(pugi::xml_node tag_set) {
  Tags tags;
  for (pugi::xml_node t : tag_set.children("item"))
    tags.emplace_back(ChildText(t, "key"), ChildText(t, "value"));
  return tags;
}

core::Status Ec2Client::Paged(const std::string& action, QueryParams params,
                              const std::function<bool(const XmlAnswer&)>& on_page) {
  std::string token;
  for (int page = 0;; ++page) {
    QueryParams p = params;
    if (!token.empty()) p.Add("NextToken", token);
    auto answer = query_->Call(action, p);
    if (!answer.ok()) return answer.status();
    if (!on_page(*answer)) return core::Status::Ok();
    std::string next = ChildText(answer->root, "nextToken");
    if (next.empty() || next == token) return core::Status::Ok();
    token = next;
    if (page > 10000)
      return core::Status::Internal("ec2 " + action + ": more than 10,000 pages; stopped");
  }
}

core::Result<std::vector<Subnet>> Ec2Client::DescribeSubnets(const std::vector<Ec2Filter>& filters,
                                                             const std::vector<std::string>& ids) {
  QueryParams params;
  AddFilters(params, filters);
  params.AddList("SubnetId", ids);
  std::vector<Subnet> out;
  NS_RETURN_IF_ERROR(Paged("DescribeSubnets", params, [&](const XmlAnswer& a) {
    for (pugi::xml_node item : a.root.child("subnetSet").children("item")) {
      Subnet s;
      s.id = ChildText(item, "subnetId");
      s.zone = ChildText(item, "availabilityZone");
      s.zone_id = ChildText(item, "availabilityZoneId");
      s.vpc_id = ChildText(item, "vpcId");
      s.available_ip_addresses = item.child("availableIpAddressCount").text().as_llong();
      s.tags = TagsOf(item.child("tagSet"));
      out.push_back(std::move(s));
    }
    return true;
  }));
  return out;
}

core::Result<std::vector<SecurityGroup>> Ec2Client::DescribeSecurityGroups(
    const std::vector<Ec2Filter>& filters, const std::vector<std::string>& ids) {
  QueryParams params;
  AddFilters(params, filters);
  params.AddList("GroupId", ids);
  std::vector<SecurityGroup> out;
  NS_RETURN_IF_ERROR(Paged("DescribeSecurityGroups", params, [&](const XmlAnswer& a) {
    for (pugi::xml_node item : a.root.child("securityGroupInfo").children("item")) {
      SecurityGroup g;
      g.id = ChildText(item, "groupId");
      g.name = ChildText(item, "groupName");
      g.vpc_id = ChildText(item, "vpcId");
      g.tags = TagsOf(item.child("tagSet"));
      out.push_back(std::move(g));
    }
    return true;
  }));
  return out;
}

core::Result<std::vector<Image>> Ec2Client::DescribeImages(const std::vector<Ec2Filter>& filters,
                                                           const std::vector<std::string>& ids,
                                                           const std::vector<std::string>& owners) {
  QueryParams params;
  AddFilters(params, filters);
  params.AddList("ImageId", ids);
  params.AddList("Owner", owners);
  params.Add("IncludeDeprecated", "true");
  std::vector<Image> out;
  NS_RETURN_IF_ERROR(Paged("DescribeImages", params, [&](const XmlAnswer& a) {
    for (pugi::xml_node item : a.root.child("imagesSet").children("item")) {
      Image im;
      im.id = ChildText(item, "imageId");
      im.name = ChildText(item, "name");
      im.owner_id = ChildText(item, "imageOwnerId");
      im.architecture = ChildText(item, "architecture");
      im.creation_date = ChildText(item, "creationDate");
      im.deprecation_time = ChildText(item, "deprecationTime");
      im.state = ChildText(item, "imageState");
      im.tags = TagsOf(item.child("tagSet"));
      out.push_back(std::move(im));
    }
    return true;
  }));
  return out;
}

core::Result<std::vector<AvailabilityZone>> Ec2Client::DescribeAvailabilityZones() {
  auto answer = query_->Call("DescribeAvailabilityZones", QueryParams());
  if (!answer.ok()) return answer.status();
  std::vector<AvailabilityZone> out;
  for (pugi::xml_node item : answer->root.child("availabilityZoneInfo").children("item"))
    out.push_back({ChildText(item, "zoneName"), ChildText(item, "zoneId"), ChildText(item, "zoneState")});
  return out;
}

core::Result<std::vector<InstanceTypeOffering>> Ec2Client::DescribeInstanceTypeOfferings() {
  QueryParams params;
  params.Add("LocationType", "availability-zone");
  std::vector<InstanceTypeOffering> out;
  NS_RETURN_IF_ERROR(Paged("DescribeInstanceTypeOfferings", params, [&](const XmlAnswer& a) {
    for (pugi::xml_node item : a.root.child("instanceTypeOfferingSet").children("item"))
      out.push_back({ChildText(item, "instanceType"), ChildText(item, "location")});
    return true;
  }));
  return out;
}

core::Result<std::vector<XmlAnswer>> Ec2Client::DescribeInstanceTypesPages(
    const std::vector<Ec2Filter>& filters) {
  QueryParams params;
  AddFilters(params, filters);
  std::vector<XmlAnswer> pages;
  NS_RETURN_IF_ERROR(Paged("DescribeInstanceTypes", params, [&](const XmlAnswer& a) {
    pages.push_back(a);
    return true;
  }));
  return pages;
}

core::Result<std::vector<SpotPrice>> Ec2Client::DescribeSpotPriceHistory(
    const std::vector<std::string>& types, const std::string& start_time) {
  QueryParams params;
  params.AddList("ProductDescription", {"Linux/UNIX", "Linux/UNIX (Amazon VPC)"});
  params.AddList("InstanceType", types);
  if (!start_time.empty()) params.Add("StartTime", start_time);
  std::vector<SpotPrice> out;
  NS_RETURN_IF_ERROR(Paged("DescribeSpotPriceHistory", params, [&](const XmlAnswer& a) {
    for (pugi::xml_node item : a.root.child("spotPriceHistorySet").children("item")) {
      out.push_back({ChildText(item, "instanceType"), ChildText(item, "availabilityZone"),
                     ParseDouble(item.child("spotPrice").text().as_string()),
                     ChildText(item, "timestamp")});
    }
    return true;
  }));
  return out;
}

core::Result<std::vector<Instance>> Ec2Client::DescribeInstances(const std::vector<Ec2Filter>& filters,
                                                                 const std::vector<std::string>& ids) {
  QueryParams params;
  AddFilters(params, filters);
  params.AddList("InstanceId", ids);
  std::vector<Instance> out;
  NS_RETURN_IF_ERROR(Paged("DescribeInstances", params, [&](const XmlAnswer& a) {
    for (pugi::xml_node reservation : a.root.child("reservationSet").children("item"))
      for (pugi::xml_node item : reservation.child("instancesSet").children("item"))
        out.push_back(DecodeInstance(item));
    return true;
  }));
  return out;
}

core::Result<std::vector<std::string>> Ec2Client::TerminateInstances(const std::vector<std::string>& ids) {
  QueryParams params;
  params.AddList("InstanceId", ids);
  auto answer = query_->Call("TerminateInstances", params);
  if (!answer.ok()) return answer.status();
  std::vector<std::string> out;
  for (pugi::xml_node item : answer->root.child("instancesSet").children("item")) {
    std::string state = ChildText(item.child("currentState"), "name");
    if (state == "shutting-down" || state == "terminated") out.push_back(ChildText(item, "instanceId"));
  }
  return out;
}

core::Status Ec2Client::CreateTags(const std::vector<std::string>& resource_ids, const Tags& tags) {
  QueryParams params;
  params.AddList("ResourceId", resource_ids);
  params.AddTags("Tag", tags);
  auto answer = query_->Call("CreateTags", params);
  return answer.ok() ? core::Status::Ok() : answer.status();
}

core::Result<LaunchTemplate> Ec2Client::CreateLaunchTemplate(const std::string& name,
                                                             const LaunchTemplateData& data,
                                                             const Tags& template_tags) {
  QueryParams params;
  params.Add("LaunchTemplateName", name);
  const std::string d = "LaunchTemplateData";
  if (!data.image_id.empty()) params.Add(d + ".ImageId", data.image_id);
  if (!data.user_data.empty()) params.Add(d + ".UserData", data.user_data);
  if (!data.instance_profile_name.empty())
    params.Add(d + ".IamInstanceProfile.Name", data.instance_profile_name);
  params.AddList(d + ".SecurityGroupId", data.security_group_ids);
  for (size_t i = 0; i < data.block_devices.size(); ++i) {
    const auto& b = data.block_devices[i];
    std::string p = d + ".BlockDeviceMapping." + std::to_string(i + 1);
    params.Add(p + ".DeviceName", b.device_name);
    params.Add(p + ".Ebs.VolumeSize", std::to_string(b.volume_size_gib));
    params.Add(p + ".Ebs.VolumeType", b.volume_type);
    params.Add(p + ".Ebs.Encrypted", b.encrypted ? "true" : "false");
    params.Add(p + ".Ebs.DeleteOnTermination", b.delete_on_termination ? "true" : "false");
    if (b.iops) params.Add(p + ".Ebs.Iops", std::to_string(*b.iops));
    if (b.throughput) params.Add(p + ".Ebs.Throughput", std::to_string(*b.throughput));
    if (!b.kms_key_id.empty()) params.Add(p + ".Ebs.KmsKeyId", b.kms_key_id);
    if (!b.snapshot_id.empty()) params.Add(p + ".Ebs.SnapshotId", b.snapshot_id);
  }
  params.Add(d + ".MetadataOptions.HttpEndpoint", data.metadata.http_endpoint);
  params.Add(d + ".MetadataOptions.HttpProtocolIpv6", data.metadata.http_protocol_ipv6);
  params.Add(d + ".MetadataOptions.HttpPutResponseHopLimit",
             std::to_string(data.metadata.http_put_response_hop_limit));
  params.Add(d + ".MetadataOptions.HttpTokens", data.metadata.http_tokens);
  params.Add(d + ".Monitoring.Enabled", data.detailed_monitoring ? "true" : "false");
  if (!data.tags.empty()) {
    int n = 0;
    for (const char* type : {"instance", "volume", "network-interface"})
      AddTagSpecification(params, ++n, type, data.tags, d + ".TagSpecification");
  }
  if (!template_tags.empty()) AddTagSpecification(params, 1, "launch-template", template_tags);
  auto answer = query_->Call("CreateLaunchTemplate", params);
  if (!answer.ok()) return answer.status();
  pugi::xml_node lt = answer->root.child("launchTemplate");
  return LaunchTemplate{ChildText(lt, "launchTemplateId"), ChildText(lt, "launchTemplateName"),
                        ChildText(lt, "createTime"), TagsOf(lt.child("tagSet"))};
}

core::Result<std::vector<LaunchTemplate>> Ec2Client::DescribeLaunchTemplates(
    const std::vector<Ec2Filter>& filters, const std::vector<std::string>& names) {
  QueryParams params;
  AddFilters(params, filters);
  params.AddList("LaunchTemplateName", names);
  std::vector<LaunchTemplate> out;
  NS_RETURN_IF_ERROR(Paged("DescribeLaunchTemplates", params, [&](const XmlAnswer& a) {
    for (pugi::xml_node lt : a.root.child("launchTemplates").children("item"))
      out.push_back({ChildText(lt, "launchTemplateId"), ChildText(lt, "launchTemplateName"),
                     ChildText(lt, "createTime"), TagsOf(lt.child("tagSet"))});
    return true;
  }));
  return out;
}

core::Status Ec2Client::DeleteLaunchTemplate(const std::string& name) {
  QueryParams params;
  params.Add("LaunchTemplateName", name);
  auto answer = query_->Call("DeleteLaunchTemplate", params);
  return answer.ok() ? core::Status::Ok() : answer.status();
}

core::Result<CreateFleetResult> Ec2Client::CreateFleet(const CreateFleetRequest& request) {
  QueryParams params;
  params.Add("Type", "instant");
  if (request.dry_run) params.Add("DryRun", "true");
  if (!request.client_token.empty()) params.Add("ClientToken", request.client_token);
  params.Add("TargetCapacitySpecification.DefaultTargetCapacityType", request.capacity_type);
  params.Add("TargetCapacitySpecification.TotalTargetCapacity",
             std::to_string(request.total_target_capacity));
  if (request.capacity_type == "spot") {
    params.Add("SpotOptions.AllocationStrategy", "price-capacity-optimized");
  } else {
    params.Add("OnDemandOptions.AllocationStrategy", "lowest-price");
  }
  for (size_t i = 0; i < request.configs.size(); ++i) {
    const auto& c = request.configs[i];
    std::string p = "LaunchTemplateConfigs." + std::to_string(i + 1);
    params.Add(p + ".LaunchTemplateSpecification.LaunchTemplateName", c.launch_template_name);
    params.Add(p + ".LaunchTemplateSpecification.Version", "$Latest");
    for (size_t j = 0; j < c.overrides.size(); ++j) {
      const auto& o = c.overrides[j];
      std::string q = p + ".Overrides." + std::to_string(j + 1);
      params.Add(q + ".InstanceType", o.instance_type);
      if (!o.subnet_id.empty()) params.Add(q + ".SubnetId", o.subnet_id);
      if (!o.zone.empty()) params.Add(q + ".AvailabilityZone", o.zone);
      if (!o.image_id.empty()) params.Add(q + ".ImageId", o.image_id);
      if (o.priority) params.Add(q + ".Priority", FormatPriority(*o.priority));
    }
  }
  if (!request.tags.empty()) {
    int n = 0;
    for (const char* type : {"fleet", "instance", "volume"})
      AddTagSpecification(params, ++n, type, request.tags);
  }
  auto answer = query_->Call("CreateFleet", params);
  if (!answer.ok()) return answer.status();
  CreateFleetResult out;
  out.fleet_id = ChildText(answer->root, "fleetId");
  for (pugi::xml_node e : answer->root.child("errorSet").children("item")) {
    pugi::xml_node o = e.child("launchTemplateAndOverrides").child("overrides");
    out.errors.push_back({ChildText(e, "errorCode"), ChildText(e, "errorMessage"),
                          ChildText(o, "instanceType"), ChildText(o, "availabilityZone"),
                          ChildText(o, "subnetId")});
  }
  for (pugi::xml_node f : answer->root.child("fleetInstanceSet").children("item")) {
    pugi::xml_node o = f.child("launchTemplateAndOverrides").child("overrides");
    std::string type = ChildText(f, "instanceType");
    if (type.empty()) type = ChildText(o, "instanceType");
    for (pugi::xml_node id : f.child("instanceIds").children("item"))
      out.instances.push_back({id.text().as_string(), type, ChildText(o, "availabilityZone"),
                               ChildText(o, "subnetId"), ChildText(f, "lifecycle")});
  }
  return out;
}

namespace {

// A dry run's answer: DryRunOperation means "would have been allowed".
core::Status DryRunOutcome(const core::Status& answer, const char* operation) {
  if (ErrorCodeOf(answer) == "DryRunOperation") return core::Status::Ok();
  if (answer.ok()) {
    return core::Status::Internal(std::string("ec2 ") + operation +
                                  " answered a dry run as if it had run the call");
  }
  return answer;
}

}  // namespace

core::Status Ec2Client::DryRunCreateFleet(CreateFleetRequest request) {
  request.dry_run = true;
  auto answer = CreateFleet(request);
  return DryRunOutcome(answer.ok() ? core::Status::Ok() : answer.status(), "CreateFleet");
}

core::Status Ec2Client::DryRunRunInstances(const RunInstancesDryRun& request) {
  QueryParams params;
  params.Add("DryRun", "true");
  params.Add("MinCount", "1");
  params.Add("MaxCount", "1");
  params.Add("LaunchTemplate.LaunchTemplateName", request.launch_template_name);
  params.Add("LaunchTemplate.Version", "$Latest");
  params.Add("InstanceType", request.instance_type);
  params.Add("SubnetId", request.subnet_id);
  if (!request.tags.empty()) {
    int n = 0;
    for (const char* type : {"instance", "volume", "network-interface"})
      AddTagSpecification(params, ++n, type, request.tags);
  }
  auto answer = query_->Call("RunInstances", params);
  return DryRunOutcome(answer.ok() ? core::Status::Ok() : answer.status(), "RunInstances");
}

}  // namespace nodesmith::aws
