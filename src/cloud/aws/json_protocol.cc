#include "cloud/aws/json_protocol.h"

namespace nodesmith::aws {
namespace {

// The string member `key` of `object`, "" when it is absent or not a string. json::value() would
// throw type_error for a member of another type, and the endpoint chooses what it sends.
std::string StringMember(const nlohmann::json& object, const char* key) {
  auto it = object.find(key);
  return it != object.end() && it->is_string() ? it->get<std::string>() : "";
}

}  // namespace

AwsError DecodeJsonError(const HttpResponse& response) {
  AwsError e;
  auto it = response.headers.find("x-amzn-requestid");
  if (it != response.headers.end()) e.request_id = it->second;
  nlohmann::json body = nlohmann::json::parse(response.body, nullptr, /*allow_exceptions=*/false);
  if (!body.is_object()) {
    e.message = response.body.substr(0, 200);
    return e;
  }
  std::string type = StringMember(body, "__type");
  if (type.empty()) type = StringMember(body, "code");
  size_t hash = type.rfind('#');
  e.code = hash == std::string::npos ? type : type.substr(hash + 1);
  e.message = StringMember(body, "message");
  if (e.message.empty()) e.message = StringMember(body, "Message");
  // SQS in JSON mode names its query-era code in a header.
  auto query_error = response.headers.find("x-amzn-query-error");
  if (query_error != response.headers.end()) {
    std::string q = query_error->second.substr(0, query_error->second.find(';'));
    if (!q.empty()) e.code = q;
  }
  return e;
}

JsonClient::JsonClient(ServiceClient* service, std::string target_prefix, std::string version)
    : service_(service),
      target_prefix_(std::move(target_prefix)),
      content_type_("application/x-amz-json-" + version) {}

core::Result<nlohmann::json> JsonClient::Call(const std::string& operation,
                                              const nlohmann::json& input) {
  ServiceRequest request;
  request.operation = operation;
  request.headers.emplace_back("Content-Type", content_type_);
  request.headers.emplace_back("X-Amz-Target", target_prefix_ + "." + operation);
  request.body = input.is_null() ? std::string("{}") : input.dump();
  auto answer = service_->Send(request, DecodeJsonError);
  if (!answer.ok()) return answer.status();
  if (answer->body.empty()) return nlohmann::json::object();
  nlohmann::json out = nlohmann::json::parse(answer->body, nullptr, false);
  if (out.is_discarded())
    return core::Status::Internal(service_->endpoint().signing_name + " " + operation +
                                  ": the answer is not JSON");
  return out;
}

}  // namespace nodesmith::aws
