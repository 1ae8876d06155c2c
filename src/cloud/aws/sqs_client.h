// SqsClient: the interruption queue's calls, over SQS's JSON 1.0 protocol. ReceiveMessage long
// polls as Karpenter does (up to 10 messages, 20 s wait, 20 s visibility), so the HTTP timeout
// of the session must exceed 20 s. Thread-safe. REQUIRES: `json` outlives it.
#pragma once

#include <string>
#include <vector>

#include "cloud/aws/json_protocol.h"

namespace nodesmith::aws {

struct SqsMessage {
  std::string id;
  std::string receipt_handle;  // what DeleteMessage needs
  std::string body;            // the EventBridge event, as JSON text
};

struct ReceiveOptions {
  int max_messages = 10;
  int wait_seconds = 20;
  int visibility_timeout_seconds = 20;
};

// The messages of a ReceiveMessage answer ({"Messages": [{"MessageId", "ReceiptHandle", "Body"}]});
// none when it has no "Messages" array. Public so that the parse of what SQS sent can be tested
// (and fuzzed) without a queue.
std::vector<SqsMessage> DecodeReceiveMessageAnswer(const nlohmann::json& answer);

class SqsClient {
 public:
  explicit SqsClient(JsonClient* json) : json_(json) {}
  // The queue's URL from its name (INTERRUPTION_QUEUE); kNotFound when it does not exist.
  core::Result<std::string> GetQueueUrl(const std::string& name);
  core::Result<std::vector<SqsMessage>> ReceiveMessages(const std::string& queue_url,
                                                        const ReceiveOptions& options = {});
  core::Status DeleteMessage(const std::string& queue_url, const std::string& receipt_handle);
  // For tests and tools: puts a message on the queue.
  core::Status SendMessage(const std::string& queue_url, const std::string& body);

 private:
  JsonClient* json_;
};

}  // namespace nodesmith::aws
