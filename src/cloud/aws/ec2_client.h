// Ec2Client: the EC2 calls nodesmith makes, typed, over the EC2 query protocol.
//
// Each call sends what aws.md says Karpenter sends and decodes only the fields nodesmith uses;
// describe calls follow NextToken until the last page. Errors are AwsError Statuses
// (aws_error.h) naming the call. CreateFleet's per-override errors are data, not a failure: an
// instant fleet that launched nothing answers 200 with Errors, and the caller decides.
// Thread-safe (the QueryClient is). REQUIRES: `query` outlives the client.
#pragma once

#include <map>
#include <optional>
#include <string>
#include <utility>
#include <vector>

#include "cloud/aws/query_protocol.h"

namespace nodesmith::aws {

using Tags = std::vector<std::pair<std::string, std::string>>;

// One filter of a describe call: Name and values ("tag:Name", {"private-*"}).
struct Ec2Filter {
  std::string name;
  std::vector<std::string> values;
};

struct Subnet {
  std::string id;
  std::string zone;
  std::string zone_id;
  std::string vpc_id;
  int64_t available_ip_addresses = 0;
  Tags tags;
};

struct SecurityGroup {
  std::string id;
  std::string name;
  std::string vpc_id;
  Tags tags;
};

struct Image {
  std::string id;
  std::string name;
  std::string owner_id;
  std::string architecture;   // "x86_64" | "arm64"
  std::string creation_date;  // RFC 3339, as EC2 gives it
  std::string deprecation_time;  // empty when not deprecated
  std::string state;
  Tags tags;
};

struct Instance {
  std::string id;
  std::string type;
  std::string zone;
  std::string subnet_id;
  std::string image_id;
  std::string state;           // pending | running | shutting-down | terminated | stopping | stopped
  std::string lifecycle;       // "spot" or "" (on-demand): InstanceLifecycle
  std::string spot_request_id;  // SpotInstanceRequestId
  std::string launch_time;
  std::string private_dns_name;
  std::string private_ip;
  std::vector<std::string> security_group_ids;
  Tags tags;

  bool is_spot() const { return lifecycle == "spot" || !spot_request_id.empty(); }
};

struct LaunchTemplate {
  std::string id;
  std::string name;
  std::string created;  // RFC 3339
  Tags tags;
};

struct LaunchTemplateData {
  std::string image_id;
  std::string user_data;  // base64
  std::string instance_profile_name;
  std::vector<std::string> security_group_ids;
  struct BlockDevice {
    std::string device_name;  // "/dev/xvda"
    int64_t volume_size_gib = 0;
    std::string volume_type;  // "gp3"
    bool encrypted = true;
    bool delete_on_termination = true;
    std::optional<int64_t> iops, throughput;
    std::string kms_key_id, snapshot_id;
  };
  std::vector<BlockDevice> block_devices;
  struct Metadata {
    std::string http_endpoint = "enabled";
    std::string http_protocol_ipv6 = "disabled";
    int64_t http_put_response_hop_limit = 1;
    std::string http_tokens = "required";
  } metadata;
  bool detailed_monitoring = false;
  Tags tags;  // of the instances, volumes and network interfaces it launches
};

struct FleetOverride {
  std::string instance_type;
  std::string subnet_id;
  std::string zone;
  std::string image_id;  // empty: the launch template's
  std::optional<double> priority;
  bool operator==(const FleetOverride&) const = default;
};

struct FleetLaunchTemplateConfig {
  std::string launch_template_name;
  std::vector<FleetOverride> overrides;
  bool operator==(const FleetLaunchTemplateConfig&) const = default;
};

struct CreateFleetRequest {
  std::string capacity_type;  // "spot" | "on-demand"
  int64_t total_target_capacity = 1;
  std::vector<FleetLaunchTemplateConfig> configs;
  Tags tags;  // on the fleet, the instances and the volumes
  std::string client_token;  // idempotency; empty: none
  bool dry_run = false;
  // Equal requests launch alike: a batch sends one of them for the total of their capacities.
  bool operator==(const CreateFleetRequest&) const = default;
};

// One instance from a launch template in a subnet: what RunInstances' dry run asks to be allowed.
struct RunInstancesDryRun {
  std::string launch_template_name;
  std::string instance_type;
  std::string subnet_id;
  Tags tags;  // on the instance, its volumes and its network interface
};

struct FleetError {
  std::string code;
  std::string message;
  std::string instance_type;
  std::string zone;
  std::string subnet_id;
};

struct FleetInstance {
  std::string instance_id;
  std::string instance_type;
  std::string zone;
  std::string subnet_id;
  std::string lifecycle;  // "spot" | "on-demand"
};

struct CreateFleetResult {
  std::string fleet_id;
  std::vector<FleetInstance> instances;
  std::vector<FleetError> errors;
};

struct InstanceTypeOffering {
  std::string instance_type;
  std::string zone;
};

struct SpotPrice {
  std::string instance_type;
  std::string zone;
  double price = 0;
  std::string timestamp;
};

struct AvailabilityZone {
  std::string name;
  std::string id;
  std::string state;
};

class Ec2Client {
 public:
  static constexpr const char* kApiVersion = "2016-11-15";
  explicit Ec2Client(QueryClient* query) : query_(query) {}

  core::Result<std::vector<Subnet>> DescribeSubnets(const std::vector<Ec2Filter>& filters,
                                                    const std::vector<std::string>& ids = {});
  core::Result<std::vector<SecurityGroup>> DescribeSecurityGroups(
      const std::vector<Ec2Filter>& filters, const std::vector<std::string>& ids = {});
  core::Result<std::vector<Image>> DescribeImages(const std::vector<Ec2Filter>& filters,
                                                  const std::vector<std::string>& ids = {},
                                                  const std::vector<std::string>& owners = {});
  core::Result<std::vector<AvailabilityZone>> DescribeAvailabilityZones();
  core::Result<std::vector<InstanceTypeOffering>> DescribeInstanceTypeOfferings();
  // The raw <item> elements of every page (the instance-type decoder lives with the catalog).
  core::Result<std::vector<XmlAnswer>> DescribeInstanceTypesPages(const std::vector<Ec2Filter>& filters);
  core::Result<std::vector<SpotPrice>> DescribeSpotPriceHistory(const std::vector<std::string>& types,
                                                                const std::string& start_time);

  core::Result<std::vector<Instance>> DescribeInstances(const std::vector<Ec2Filter>& filters,
                                                        const std::vector<std::string>& ids = {});
  // The ids whose state became shutting-down or terminated.
  core::Result<std::vector<std::string>> TerminateInstances(const std::vector<std::string>& ids);
  core::Status CreateTags(const std::vector<std::string>& resource_ids, const Tags& tags);

  core::Result<LaunchTemplate> CreateLaunchTemplate(const std::string& name,
                                                    const LaunchTemplateData& data,
                                                    const Tags& template_tags);
  core::Result<std::vector<LaunchTemplate>> DescribeLaunchTemplates(
      const std::vector<Ec2Filter>& filters, const std::vector<std::string>& names = {});
  core::Status DeleteLaunchTemplate(const std::string& name);

  core::Result<CreateFleetResult> CreateFleet(const CreateFleetRequest& request);

  // Authorization checks, as Karpenter's EC2NodeClass validation makes them: the call with DryRun,
  // which EC2 answers DryRunOperation when it would have been allowed. Ok then; otherwise the
  // AWS error (UnauthorizedOperation when the controller's role may not make the call).
  core::Status DryRunCreateFleet(CreateFleetRequest request);
  core::Status DryRunRunInstances(const RunInstancesDryRun& request);

 private:
  // Calls `action` page by page; `on_page` gets each answer and returns false to stop.
  core::Status Paged(const std::string& action, QueryParams params,
                     const std::function<bool(const XmlAnswer&)>& on_page);
  QueryClient* query_;
};

// Tags of a <tagSet> element.
Tags TagsOf(pugi::xml_node tag_set);

}  // namespace nodesmith::aws
