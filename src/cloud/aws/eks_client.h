// EksClient: the one EKS call nodesmith makes, DescribeCluster, in EKS's REST-JSON protocol
// (GET /clusters/<name>, a JSON answer; errors name their code in the x-amzn-ErrorType header
// or the body's "__type"/"code"). The operator reads the cluster's endpoint, CA and service
// CIDR from it when neither its options nor the API server give them, as Karpenter does.
// Thread-safe. REQUIRES: `service` (the session's eks ServiceClient) outlives it.
#pragma once

#include <string>
#include <string_view>

#include "cloud/aws/service_client.h"

namespace nodesmith::aws {

// What the nodes' bootstrap needs of an EKS cluster.
struct EksCluster {
  std::string name;
  std::string endpoint;           // "https://ABCD.gr7.us-west-2.eks.amazonaws.com"
  std::string ca_data;            // certificateAuthority.data: base64 PEM
  std::string version;            // "1.35"
  std::string service_ipv4_cidr;  // kubernetesNetworkConfig.serviceIpv4Cidr
  std::string service_ipv6_cidr;
  std::string status;             // "ACTIVE"
};

// An error answer of a REST-JSON service.
AwsError DecodeRestJsonError(const HttpResponse& response);

// The cluster in a DescribeCluster answer's body: kInternal naming `name` when the body is not a
// JSON object with a "cluster" object; a member of the wrong type reads as absent. Public for
// the fuzz target.
core::Result<EksCluster> DecodeDescribeClusterAnswer(const std::string& name, std::string_view body);

class EksClient {
 public:
  explicit EksClient(ServiceClient* service) : service_(service) {}

  // kNotFound (ResourceNotFoundException) when the account has no cluster by that name.
  core::Result<EksCluster> DescribeCluster(const std::string& name);

 private:
  // Sends `method` `path` as the operation, and returns the answer's body.
  core::Result<std::string> Call(const std::string& operation, const std::string& method,
                                 const std::string& path);

  ServiceClient* service_;
};

}  // namespace nodesmith::aws
