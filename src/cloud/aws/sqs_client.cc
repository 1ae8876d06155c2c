#include "cloud/aws/sqs_client.h"

namespace nodesmith::aws {

std::vector<SqsMessage> DecodeReceiveMessageAnswer(const nlohmann::json& answer) {
  std::vector<SqsMessage> out;
  if (!answer.is_object()) return out;
  auto messages = answer.find("Messages");
  if (messages == answer.end() || !messages->is_array()) return out;
  // json::value() throws on an entry that is not an object and on a member of another type, and
  // a throw here ends the queue's poller thread: entries that are not objects carry nothing to
  // act on and are skipped, members that are not strings read as absent.
  auto text = [](const nlohmann::json& m, const char* key) {
    auto it = m.find(key);
    return it != m.end() && it->is_string() ? it->get<std::string>() : std::string();
  };
  for (const nlohmann::json& m : *messages) {
    if (!m.is_object()) continue;
    out.push_back({text(m, "MessageId"), text(m, "ReceiptHandle"), text(m, "Body")});
  }
  return out;
}

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
  return DecodeReceiveMessageAnswer(*answer);
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
