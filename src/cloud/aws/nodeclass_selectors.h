// How an EC2NodeClass's selector terms become EC2 and SSM lookups, and how their answers are
// narrowed to what a launch uses — Karpenter's rules, as pure functions.
//
// Terms are ORed; within a term every field must match (tags ANDed; "*" as a tag value means
// "the key is present"). One describe call per term, answers merged by id.
//   subnets          tags | id; per zone the subnet with the most free addresses is used
//   security groups  tags | id | name
//   AMIs             alias (family@version through SSM) | id | name [+ owner] | tags [+ owner];
//                    per architecture and variant the newest CreationDate wins; a deprecated
//                    image only when nothing else matches
#pragma once

#include <string>
#include <vector>

#include "api/ec2nodeclass.h"
#include "cloud/aws/ec2_client.h"
#include "cloud/instance_type.h"
#include "core/status.h"
#include "scheduling/requirements.h"

namespace nodesmith::aws {

// One describe call: its filters, ids and owners.
struct DescribeQuery {
  std::vector<Ec2Filter> filters;
  std::vector<std::string> ids;
  std::vector<std::string> owners;
};

std::vector<DescribeQuery> SubnetQueries(const std::vector<api::SelectorTerm>& terms);
std::vector<DescribeQuery> SecurityGroupQueries(const std::vector<api::SelectorTerm>& terms);
// The image terms that are not aliases (aliases resolve through SSM first).
std::vector<DescribeQuery> ImageQueries(const std::vector<api::SelectorTerm>& terms);

// One SSM parameter an alias reads, and what an image found through it is for.
struct AliasParameter {
  std::string name;          // the SSM parameter path
  std::string architecture;  // "x86_64" | "arm64"
  std::string variant;       // "standard" | "nvidia" | "neuron"
};

// The parameters of "family@version" for the cluster's Kubernetes version ("1.34"). An
// unknown family, a version of the wrong shape, or AL2 on Kubernetes >= 1.33 is an error naming
// the alias.
core::Result<std::vector<AliasParameter>> AliasParameters(const std::string& alias,
                                                          const std::string& kubernetes_version);

// Per zone, the subnet with the most available addresses (ties: the lower id), in zone order.
std::vector<Subnet> SubnetPerZone(std::vector<Subnet> subnets);

// An image the class may launch, with what it serves.
struct ResolvedImage {
  std::string id;
  std::string name;
  std::string architecture;  // "x86_64" | "arm64"
  std::string variant;       // for aliases; "" otherwise
  std::string creation_date;
  bool deprecated = false;
};

// kubernetes.io/arch for EC2's spelling of an image's architecture ("x86_64" -> "amd64");
// "" for one Kubernetes does not know.
std::string KubernetesArchOf(const std::string& ec2_architecture);

// Per (architecture, variant) the newest image; deprecated images only when no other image has
// that architecture and variant. Sorted newest first.
std::vector<ResolvedImage> NewestImages(std::vector<ResolvedImage> images);

// What an image can run, as Karpenter's AMI requirements say: its kubernetes.io/arch, and for
// an alias's variants, standard: no GPU and no accelerator; nvidia: a GPU
// (karpenter.k8s.aws/instance-gpu-count exists); neuron: an accelerator.
scheduling::Requirements ImageRequirements(const ResolvedImage& image);

// The image an instance type launches with: the first of `images` (newest first, as
// NewestImages sorts them) whose requirements the type meets; null when none does (a GPU type
// of a class whose alias has no nvidia image).
const ResolvedImage* ImageForType(const std::vector<ResolvedImage>& images, const cloud::InstanceType& type);

}  // namespace nodesmith::aws
