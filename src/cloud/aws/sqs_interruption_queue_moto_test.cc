// The interruption queue against moto's SQS: an EventBridge notice sent to the queue comes out
// of Receive as the message the interruption controller acts on, once, and is deleted.
#include "cloud/aws/sqs_interruption_queue.h"

#include <gtest/gtest.h>

#include <chrono>
#include <fstream>
#include <sstream>
#include <thread>

#include "moto_test_env.h"

namespace nodesmith::aws {
namespace {

using nodesmith::testing::MotoSession;
using nodesmith::testing::ResetMoto;

std::string SharedFile(const std::string& rel) {
  std::ifstream in(std::string(NODESMITH_SHARED_DATA) + "/" + rel);
  EXPECT_TRUE(in) << rel;
  std::stringstream ss;
  ss << in.rdbuf();
  return ss.str();
}

// Receive until something arrives or `seconds` pass (the poller works on its own thread).
std::vector<cloud::InterruptionMessage> ReceiveWithin(SqsInterruptionQueue& q, int seconds) {
  auto deadline = std::chrono::steady_clock::now() + std::chrono::seconds(seconds);
  while (std::chrono::steady_clock::now() < deadline) {
    auto got = q.Receive(10);
    EXPECT_TRUE(got.ok()) << got.status().message();
    if (got.ok() && !got->empty()) return *got;
    std::this_thread::sleep_for(std::chrono::milliseconds(50));
  }
  return {};
}

class SqsInterruptionQueueMotoTest : public ::testing::Test {
 protected:
  void SetUp() override {
    ResetMoto();
    session_ = MotoSession(&clock_);
    ASSERT_NE(session_, nullptr);
    sqs_ = std::make_unique<SqsClient>(&session_->sqs());
  }
  SqsInterruptionQueueOptions Options(const std::string& name) {
    SqsInterruptionQueueOptions o;
    o.queue_name = name;
    o.receive.wait_seconds = 1;  // short polls keep the test quick; Karpenter's is 20 s
    o.retry_after = std::chrono::milliseconds(100);
    return o;
  }
  core::SystemClock clock_;
  std::unique_ptr<AwsSession> session_;
  std::unique_ptr<SqsClient> sqs_;
};

TEST_F(SqsInterruptionQueueMotoTest, ASpotInterruptionNoticeIsReceivedAndDeletedOnce) {
  ASSERT_TRUE(session_->sqs().Call("CreateQueue", {{"QueueName", "demo-interruptions"}}).ok());
  SqsInterruptionQueue queue(sqs_.get(), Options("demo-interruptions"));
  ASSERT_TRUE(queue.Start().ok());
  auto url = sqs_->GetQueueUrl("demo-interruptions");
  ASSERT_TRUE(url.ok());
  ASSERT_TRUE(sqs_->SendMessage(*url, SharedFile("interruption/karpenter_test_format/spot_interruption.json")).ok());
  auto messages = ReceiveWithin(queue, 10);
  ASSERT_EQ(messages.size(), 1u);
  EXPECT_EQ(messages[0].kind, cloud::InterruptionMessageKind::kSpotInterruption);
  EXPECT_EQ(messages[0].instance_id.rfind("i-", 0), 0u);
  EXPECT_TRUE(messages[0].action_time.has_value());
  EXPECT_FALSE(messages[0].id.empty());  // the receipt handle
  ASSERT_TRUE(queue.Delete(messages[0]).ok());
  EXPECT_TRUE(queue.Delete(messages[0]).ok()) << "deleting twice is OK";
  // Deleted: no poll brings it back, even after its visibility timeout would have run out.
  uint64_t polls = queue.polls();
  auto deadline = std::chrono::steady_clock::now() + std::chrono::seconds(10);
  while (queue.polls() < polls + 2 && std::chrono::steady_clock::now() < deadline)
    std::this_thread::sleep_for(std::chrono::milliseconds(50));
  auto after = queue.Receive(10);
  ASSERT_TRUE(after.ok());
  EXPECT_TRUE(after->empty());
}

TEST_F(SqsInterruptionQueueMotoTest, ANoticeThatIsNotAnEventIsAnUnknownMessageToDelete) {
  ASSERT_TRUE(session_->sqs().Call("CreateQueue", {{"QueueName", "demo-interruptions"}}).ok());
  SqsInterruptionQueue queue(sqs_.get(), Options("demo-interruptions"));
  ASSERT_TRUE(queue.Start().ok());
  ASSERT_TRUE(sqs_->SendMessage(*sqs_->GetQueueUrl("demo-interruptions"), "not json").ok());
  auto messages = ReceiveWithin(queue, 10);
  ASSERT_EQ(messages.size(), 1u);
  EXPECT_EQ(messages[0].kind, cloud::InterruptionMessageKind::kUnknown);
  EXPECT_FALSE(messages[0].detail.empty());
  EXPECT_TRUE(queue.Delete(messages[0]).ok());
}

TEST_F(SqsInterruptionQueueMotoTest, AQueueThatDoesNotExistIsNamedAtStart) {
  SqsInterruptionQueue queue(sqs_.get(), Options("no-such-queue"));
  core::Status st = queue.Start();
  ASSERT_FALSE(st.ok());
  EXPECT_EQ(st.code(), core::StatusCode::kNotFound);
  EXPECT_NE(st.message().find("interruption queue no-such-queue"), std::string::npos) << st.message();
}

}  // namespace
}  // namespace nodesmith::aws
