// NodeClassResolver: what an EC2NodeClass's selectors match in the account right now — the
// subnets, security groups and AMIs its status lists — and the conditions that say so.
//
// One describe call per selector term (nodeclass_selectors.h); AMI aliases read their SSM
// parameters for the cluster's Kubernetes version, then DescribeImages for the images' dates,
// architectures and deprecation. A selector that matches nothing is not an error: it is a False
// condition (SubnetsReady, SecurityGroupsReady, AMIsReady) whose message names the selector, and
// Ready is False with it, as Karpenter reports. Only a failed AWS call is an error Status.
// Thread-compatible; the clients it holds are thread-safe. REQUIRES: the clients outlive it.
#pragma once

#include <string>
#include <vector>

#include "api/ec2nodeclass.h"
#include "cloud/aws/ec2_client.h"
#include "cloud/aws/nodeclass_selectors.h"
#include "cloud/aws/ssm_client.h"
#include "core/time.h"

namespace nodesmith::aws {

struct ResolvedNodeClass {
  std::vector<Subnet> subnets;  // every match, sorted by id; SubnetPerZone picks the launch's
  std::vector<SecurityGroup> security_groups;  // sorted by id
  std::vector<ResolvedImage> images;           // NewestImages' choice
  // SubnetsReady, SecurityGroupsReady, AMIsReady and Ready, at the class's generation.
  std::vector<api::Condition> conditions;

  bool ready() const;
  std::vector<std::string> zones() const;  // of the subnets, sorted, unique
};

class NodeClassResolver {
 public:
  // `kubernetes_version`: the cluster's, "MAJOR.MINOR" (the API server's /version).
  NodeClassResolver(Ec2Client* ec2, SsmClient* ssm, std::string kubernetes_version)
      : ec2_(ec2), ssm_(ssm), kubernetes_version_(std::move(kubernetes_version)) {}

  // `previous` conditions keep their transition times when their status did not change.
  core::Result<ResolvedNodeClass> Resolve(const api::EC2NodeClass& node_class, core::Time now,
                                          const std::vector<api::Condition>& previous = {});

 private:
  core::Result<std::vector<ResolvedImage>> ResolveImages(const api::EC2NodeClass& node_class,
                                                         core::Time now, std::string* problem);
  Ec2Client* ec2_;
  SsmClient* ssm_;
  std::string kubernetes_version_;
};

}  // namespace nodesmith::aws
