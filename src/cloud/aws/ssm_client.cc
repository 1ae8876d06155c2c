#include "cloud/aws/ssm_client.h"

namespace nodesmith::aws {

core::Result<std::string> DecodeGetParameterAnswer(const nlohmann::json& answer, const std::string& name) {
  // Looked up with find, never operator[]: on an answer that is not an object (a number, an
  // array) operator[] throws, and the endpoint chooses what it sends.
  const auto missing = [&] {
    return core::Status::Internal("ssm GetParameter " + name + ": the answer has no Parameter.Value");
  };
  if (!answer.is_object()) return missing();
  auto p = answer.find("Parameter");
  if (p == answer.end() || !p->is_object()) return missing();
  auto value = p->find("Value");
  if (value == p->end() || !value->is_string()) return missing();
  return value->get<std::string>();
}

core::Result<std::string> SsmClient::GetParameter(const std::string& name) {
  auto answer = json_->Call("GetParameter", {{"Name", name}});
  if (!answer.ok()) return answer.status();
  return DecodeGetParameterAnswer(*answer, name);
}

}  // namespace nodesmith::aws
