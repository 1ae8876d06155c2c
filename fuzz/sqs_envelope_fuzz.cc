// The SQS ReceiveMessage answer around the interruption queue's messages, on arbitrary text: the
// body as JsonClient::Call reads a 200 answer of SQS's JSON 1.0 protocol, decoded into messages
// (DecodeReceiveMessageAnswer), and each message's body into interruption messages as the
// queue's poller does (AwsInterruptionMessagesOrUnknown). SQS, or whatever answers at the queue's
// endpoint, chooses every byte; a throw here would end the poller's thread and the controller.
// Decoding must end in messages (perhaps none); every message gives at least one interruption
// message, each with the SQS message's receipt handle. The messages written back as an answer
// must decode to the same.
#include <cstddef>
#include <cstdint>
#include <string>
#include <vector>

#include <nlohmann/json.hpp>

#include "cloud/aws/sqs_client.h"
#include "cloud/aws_interruption_message.h"
#include "fuzz_check.h"

namespace {

namespace aws = nodesmith::aws;
using nlohmann::json;
using nodesmith::fuzz::Fail;

bool Same(const std::vector<aws::SqsMessage>& a, const std::vector<aws::SqsMessage>& b) {
  if (a.size() != b.size()) return false;
  for (size_t i = 0; i < a.size(); ++i) {
    if (a[i].id != b[i].id || a[i].receipt_handle != b[i].receipt_handle || a[i].body != b[i].body) return false;
  }
  return true;
}

}  // namespace

extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size) {
  const std::string body(reinterpret_cast<const char*>(data), size);
  // As JsonClient::Call reads a 200 answer: empty is {}, text that is not JSON is an error.
  const json answer = body.empty() ? json::object() : json::parse(body, nullptr, /*allow_exceptions=*/false);
  if (answer.is_discarded()) return 0;
  const std::vector<aws::SqsMessage> messages = aws::DecodeReceiveMessageAnswer(answer);
  json written = {{"Messages", json::array()}};
  for (const aws::SqsMessage& m : messages) {
    const auto interruptions = nodesmith::cloud::AwsInterruptionMessagesOrUnknown(m.body, m.receipt_handle);
    if (interruptions.empty()) Fail("an SQS message gives nothing to delete", m.body);
    for (const auto& i : interruptions) {
      if (i.id != m.receipt_handle) Fail("an interruption message lost its receipt handle", i.id);
    }
    written["Messages"].push_back({{"MessageId", m.id}, {"ReceiptHandle", m.receipt_handle}, {"Body", m.body},
                                   {"MD5OfBody", "d41d8cd98f00b204e9800998ecf8427e"}});
  }
  if (!Same(aws::DecodeReceiveMessageAnswer(written), messages)) Fail("written messages decode differently", written.dump());
  return 0;
}
