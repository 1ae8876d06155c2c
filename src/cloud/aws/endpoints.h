// Endpoints: where a request to an AWS service goes and which region and name sign it.
//
// Resolution follows the SDKs: AWS_ENDPOINT_URL_<SERVICE> (EC2, SQS, SSM, IAM, STS, EKS,
// PRICING), then AWS_ENDPOINT_URL, then the partition's default. The partition comes from the
// region: cn-* is aws-cn (amazonaws.com.cn), us-gov-* is aws-us-gov, anything else aws. IAM is
// global per partition and signs in its home region; the Pricing API answers only in
// us-east-1, ap-south-1 (for ap-* regions), eu-central-1 (eu-*) and cn-northwest-1 (cn-*).
// An overridden endpoint keeps the region it would have signed with.
#pragma once

#include <functional>
#include <optional>
#include <string>

namespace nodesmith::aws {

struct Endpoint {
  std::string url;             // scheme://host[:port], no trailing slash
  std::string signing_region;  // the region in the SigV4 scope
  std::string signing_name;    // the service in the SigV4 scope: ec2, sqs, ssm, iam, sts, eks, pricing
  bool overridden = false;     // from AWS_ENDPOINT_URL*
};

// "aws", "aws-cn" or "aws-us-gov".
std::string PartitionOf(const std::string& region);
// The DNS suffix of the region's partition: amazonaws.com or amazonaws.com.cn.
std::string DnsSuffixOf(const std::string& region);
// The region the Pricing API is called in for instances in `region`.
std::string PricingRegionFor(const std::string& region);

// `service` is the signing name (ec2, sqs, ssm, iam, sts, eks, pricing). `getenv` reads the
// environment (the process's in production).
Endpoint ResolveEndpoint(const std::string& service, const std::string& region,
                         const std::function<std::optional<std::string>(const std::string&)>& getenv);

}  // namespace nodesmith::aws
