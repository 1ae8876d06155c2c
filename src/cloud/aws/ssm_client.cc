#include "cloud/aws/ssm_client.h"

namespace nodesmith::aws {

core::Result<std::string> SsmClient::GetParameter(const std::string& name) {
  auto answer = json_->Call("GetParameter", {{"Name", name}});
  if (!answer.ok()) return answer.status();
  const nlohmann::json& p = (*answer)["Parameter"];
  if (!p.is_object() || !p.contains("Value") || !p["Value"].is_string())
    return core::Status::Internal("ssm GetParameter " + name + ": the answer has no Parameter.Value");
  return p["Value"].get<std::string>();
}

}  // namespace nodesmith::aws
