#include "cloud/aws/eks_client.h"

#include <nlohmann/json.hpp>

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

core::Result<EksCluster> DecodeDescribeClusterAnswer(const std::string& name, std::string_view body) {
  const nlohmann::json answer = nlohmann::json::parse(body, nullptr, /*allow_exceptions=*/false);
  if (!answer.is_object()) return core::Status::Internal("eks DescribeCluster " + name + ": the answer is not a JSON object");
  auto member = [](const nlohmann::json& o, const char* key) -> const nlohmann::json* {
    if (!o.is_object()) return nullptr;
    auto it = o.find(key);
    return it == o.end() ? nullptr : &*it;
  };
  auto text = [&](const nlohmann::json* o, const char* key) {
    const nlohmann::json* v = o ? member(*o, key) : nullptr;
    return v && v->is_string() ? v->get<std::string>() : std::string();
  };
  const nlohmann::json* c = member(answer, "cluster");
  if (!c || !c->is_object()) return core::Status::Internal("eks DescribeCluster " + name + ": the answer has no cluster");
  EksCluster out;
  out.name = text(c, "name");
  out.endpoint = text(c, "endpoint");
  out.version = text(c, "version");
  out.status = text(c, "status");
  out.ca_data = text(member(*c, "certificateAuthority"), "data");
  const nlohmann::json* network = member(*c, "kubernetesNetworkConfig");
  out.service_ipv4_cidr = text(network, "serviceIpv4Cidr");
  out.service_ipv6_cidr = text(network, "serviceIpv6Cidr");
  return out;
}

core::Result<std::string> EksClient::Call(const std::string& operation, const std::string& method,
                                          const std::string& path) {
  ServiceRequest request;
  request.operation = operation;
  request.method = method;
  request.path = path;
  request.headers.emplace_back("Accept", "application/json");
  auto answer = service_->Send(request, DecodeRestJsonError);
  if (!answer.ok()) return answer.status();
  return std::move(answer->body);
}

core::Result<EksCluster> EksClient::DescribeCluster(const std::string& name) {
  auto body = Call("DescribeCluster", "GET", "/clusters/" + UriEncode(name, /*encode_slash=*/true));
  if (!body.ok()) return body.status();
  return DecodeDescribeClusterAnswer(name, *body);
}

}  // namespace nodesmith::aws
