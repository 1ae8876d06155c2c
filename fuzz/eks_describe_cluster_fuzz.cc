// What EKS answers to DescribeCluster, on arbitrary bytes: the first line is taken as the
// x-amzn-ErrorType header and the rest as the body. The body, read as an error answer
// (DecodeRestJsonError, for any non-2xx status) and as a success (DecodeDescribeClusterAnswer),
// must end in a value or a clean error; a header naming a code before its ':' wins over the body.
// A decoded cluster written back as an answer must decode to the same cluster.
#include <cstddef>
#include <cstdint>
#include <string>
#include <string_view>

#include <nlohmann/json.hpp>

#include "cloud/aws/eks_client.h"
#include "fuzz_check.h"

namespace {

using nodesmith::fuzz::Fail;

bool operator==(const nodesmith::aws::EksCluster& a, const nodesmith::aws::EksCluster& b) {
  return a.name == b.name && a.endpoint == b.endpoint && a.ca_data == b.ca_data && a.version == b.version &&
         a.service_ipv4_cidr == b.service_ipv4_cidr && a.service_ipv6_cidr == b.service_ipv6_cidr &&
         a.status == b.status;
}

// The answer EKS would give for `c` (only the members nodesmith reads).
std::string AnswerOf(const nodesmith::aws::EksCluster& c) {
  nlohmann::json cluster = {{"name", c.name},
                            {"endpoint", c.endpoint},
                            {"version", c.version},
                            {"status", c.status},
                            {"certificateAuthority", {{"data", c.ca_data}}},
                            {"kubernetesNetworkConfig",
                             {{"serviceIpv4Cidr", c.service_ipv4_cidr}, {"serviceIpv6Cidr", c.service_ipv6_cidr}}}};
  return nlohmann::json{{"cluster", cluster}}.dump();
}

}  // namespace

extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size) {
  const std::string_view input(reinterpret_cast<const char*>(data), size);
  const size_t newline = input.find('\n');
  const std::string header(newline == std::string_view::npos ? std::string_view() : input.substr(0, newline));
  const std::string_view body = newline == std::string_view::npos ? input : input.substr(newline + 1);

  nodesmith::aws::HttpResponse response;
  response.status = 404;
  response.body = std::string(body);
  if (!header.empty()) response.headers["x-amzn-errortype"] = header;
  const nodesmith::aws::AwsError error = nodesmith::aws::DecodeRestJsonError(response);
  const std::string named = header.substr(0, header.find(':'));
  if (!named.empty() && error.code != named) Fail("the header's error code does not win", header + " -> " + error.code);
  (void)error.ToStatus();

  auto cluster = nodesmith::aws::DecodeDescribeClusterAnswer("fuzz", body);
  if (!cluster.ok()) return 0;
  const std::string written = AnswerOf(*cluster);
  auto again = nodesmith::aws::DecodeDescribeClusterAnswer("fuzz", written);
  if (!again.ok()) Fail("a written answer does not decode", written + ": " + again.status().message());
  if (!(*again == *cluster)) Fail("a written answer decodes to another cluster", written);
  return 0;
}
