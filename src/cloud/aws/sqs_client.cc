#include "cloud/aws/sqs_client.h"

namespace nodesmith::aws {

core::Result<std::string> SqsClient::GetQueueUrl(const std::string& name) {
  auto answer = json_->Call("GetQueueUrl", {{"QueueName", name}});
  if (!answer.ok()) return answer.status();
  if (!answer->contains("QueueUrl") || !(*answer)["QueueUrl"].is_string())
    return core::Status::Internal("sqs GetQueueUrl " + name + ": the answer has no QueueUrl");
  return (*answer)["QueueUrl"].get<std::string>();
}

core::Result<std::vector<SqsMessage>> SqsClient::ReceiveMessages(const std::string& queue_url,
                                                                 const ReceiveOptions& options) {
  auto answer = json_->Call("ReceiveMessage", {{"QueueUrl", queue_url},
                                               {"MaxNumberOfMessages", options.max_messages},
                                               {"WaitTimeSeconds", options.wait_seconds},
                                               {"VisibilityTimeout", options.visibility_timeout_seconds}});
  if (!answer.ok()) return answer.status();
  std::vector<SqsMessage> out;
  if (answer->contains("Messages") && (*answer)["Messages"].is_array()) {
    for (const nlohmann::json& m : (*answer)["Messages"]) {
      out.push_back({m.value("MessageId", ""), m.value("ReceiptHandle", ""), m.value("Body", "")});
    }
  }
  return out;
}

core::Status SqsClient::DeleteMessage(const std::string& queue_url, const std::string& receipt_handle) {
  auto answer = json_->Call("DeleteMessage", {{"QueueUrl", queue_url}, {"ReceiptHandle", receipt_handle}});
  return answer.ok() ? core::Status::Ok() : answer.status();
}

core::Status SqsClient::SendMessage(const std::string& queue_url, const std::string& body) {
  auto answer = json_->Call("SendMessage", {{"QueueUrl", queue_url}, {"MessageBody", body}});
  return answer.ok() ? core::Status::Ok() : answer.status();
}

}  // namespace nodesmith::aws
