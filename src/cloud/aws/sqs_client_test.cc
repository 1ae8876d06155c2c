// The decoding of SQS's ReceiveMessage answer, without a queue (the calls themselves run against
// moto in sqs_interruption_queue_moto_test.cc and ssm_sqs_moto_test.cc).
#include "cloud/aws/sqs_client.h"

#include <gtest/gtest.h>
#include <nlohmann/json.hpp>

namespace nodesmith::aws {
namespace {

using nlohmann::json;

TEST(DecodeReceiveMessageAnswer, ReadsEveryMessage) {
  auto messages = DecodeReceiveMessageAnswer(json::parse(R"({"Messages": [
      {"MessageId": "m-1", "ReceiptHandle": "rh-1", "MD5OfBody": "x", "Body": "{\"detail\": {}}"},
      {"MessageId": "m-2", "ReceiptHandle": "rh-2", "Body": "b"}]})"));
  ASSERT_EQ(messages.size(), 2u);
  EXPECT_EQ(messages[0].id, "m-1");
  EXPECT_EQ(messages[0].receipt_handle, "rh-1");
  EXPECT_EQ(messages[0].body, "{\"detail\": {}}");
  EXPECT_EQ(messages[1].id, "m-2");
}

TEST(DecodeReceiveMessageAnswer, NoMessagesArrayIsNoMessages) {
  EXPECT_TRUE(DecodeReceiveMessageAnswer(json::object()).empty());
  EXPECT_TRUE(DecodeReceiveMessageAnswer(json::parse(R"({"Messages": {"MessageId": "m"}})")).empty());
  EXPECT_TRUE(DecodeReceiveMessageAnswer(json::parse(R"([{"Messages": []}])")).empty());
}

// json::value() throws type_error on an entry that is not an object or a member of another
// type; thrown in the queue's poller thread, that ended the controller. An entry that is not an
// object carries nothing to act on and is skipped; a member that is not a string reads as absent.
TEST(DecodeReceiveMessageAnswer, MistypedEntriesAndMembersAreSkippedNotThrown) {
  auto messages = DecodeReceiveMessageAnswer(json::parse(R"({"Messages": [
      "rh-6", 7, null, [],
      {"MessageId": 5, "ReceiptHandle": "rh-1", "Body": {"detail": {}}},
      {"MessageId": "m-2", "ReceiptHandle": null, "Body": "b"}]})"));
  ASSERT_EQ(messages.size(), 2u);
  EXPECT_EQ(messages[0].id, "");
  EXPECT_EQ(messages[0].receipt_handle, "rh-1");
  EXPECT_EQ(messages[0].body, "");
  EXPECT_EQ(messages[1].id, "m-2");
  EXPECT_EQ(messages[1].receipt_handle, "");
  EXPECT_EQ(messages[1].body, "b");
}

}  // namespace
}  // namespace nodesmith::aws
