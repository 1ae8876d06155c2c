#include "cloud/aws/eks_client.h"

#include "cloud/aws/json_protocol.h"
#include "cloud/aws/sigv4.h"

namespace nodesmith::aws {

AwsError DecodeRestJsonError(const HttpResponse& response) {
  AwsError e = DecodeJsonError(response);
  // "ResourceNotFoundException:http://internal.amazon.com/coral/..." wins over the body's code.
  auto header = response.headers.find("x-amzn-errortype");
  if (header != response.headers.end()) {
    std::string code = header->second.substr(0, header->second.find(':'));
    if (!code.empty()) e.code = code;
  }
  return e;
}

core::Result<nlohmann::json> EksClient::Call(const std::string& operation, const std::string& method,
                                             const std::string& path) {
  ServiceRequest request;
  request.operation = operation;
  request.method = method;
  request.path = path;
  request.headers.emplace_back("Accept", "application/json");
  auto answer = service_->Send(request, DecodeRestJsonError);
  if (!answer.ok()) return answer.status();
  nlohmann::json out = nlohmann::json::parse(answer->body, nullptr, /*allow_exceptions=*/false);
  if (!out.is_object()) return core::Status::Internal("eks " + operation + ": the answer is not a JSON object");
  return out;
}

core::Result<EksCluster> EksClient::DescribeCluster(const std::string& name) {
  auto answer = Call("DescribeCluster", "GET", "/clusters/" + UriEncode(name, /*encode_slash=*/true));
  if (!answer.ok()) return answer.status();
  const nlohmann::json& c = (*answer)["cluster"];
  if (!c.is_object()) return core::Status::Internal("eks DescribeCluster " + name + ": the answer has no cluster");
  auto text = [](const nlohmann::json& o, const char* key) {
    return o.is_object() && o.contains(key) && o[key].is_string() ? o[key].get<std::string>() : std::string();
  };
  EksCluster out;
  out.name = text(c, "name");
  out.endpoint = text(c, "endpoint");
  out.version = text(c, "version");
  out.status = text(c, "status");
  if (c.contains("certificateAuthority")) out.ca_data = text(c["certificateAuthority"], "data");
  if (c.contains("kubernetesNetworkConfig")) {
    out.service_ipv4_cidr = text(c["kubernetesNetworkConfig"], "serviceIpv4Cidr");
    out.service_ipv6_cidr = text(c["kubernetesNetworkConfig"], "serviceIpv6Cidr");
  }
  return out;
}

}  // namespace nodesmith::aws
