// SSM and SQS against moto: the AMI alias lookup and the interruption queue's round trip.
#include <gmock/gmock.h>
#include <gtest/gtest.h>

#include <fstream>
#include <sstream>

#include "cloud/aws/sqs_client.h"
#include "cloud/aws/ssm_client.h"
#include "moto_test_env.h"

namespace nodesmith::aws {
namespace {

using nodesmith::testing::MotoSession;
using nodesmith::testing::ResetMoto;

class SsmSqsMotoTest : public ::testing::Test {
 protected:
  void SetUp() override {
    ResetMoto();
    session_ = MotoSession(&clock_);
    ASSERT_NE(session_, nullptr);
  }
  core::SystemClock clock_;
  std::unique_ptr<AwsSession> session_;
};

TEST_F(SsmSqsMotoTest, AParameterIsReadBackAndAMissingOneIsNotFound) {
  // moto reserves /aws/service/ for the parameters it ships (it has no EKS ones), so a custom
  // ssmParameter term's shape is what a put can show.
  const std::string name = "/nodesmith/test/golden-ami/x86_64";
  auto put = session_->ssm().Call("PutParameter", {{"Name", name}, {"Value", "ami-0123456789abcdef0"}, {"Type", "String"}});
  ASSERT_TRUE(put.ok()) << put.status().message();
  SsmClient ssm(&session_->ssm());
  auto value = ssm.GetParameter(name);
  ASSERT_TRUE(value.ok()) << value.status().message();
  EXPECT_EQ(*value, "ami-0123456789abcdef0");
  auto shipped = ssm.GetParameter("/aws/service/ami-amazon-linux-latest/amzn2-ami-hvm-x86_64-gp2");
  ASSERT_TRUE(shipped.ok()) << shipped.status().message();
  EXPECT_EQ(shipped->rfind("ami-", 0), 0u);
  auto missing = ssm.GetParameter("/aws/service/bottlerocket/aws-k8s-1.34/x86_64/latest/image_id");
  ASSERT_FALSE(missing.ok());
  EXPECT_EQ(missing.status().code(), core::StatusCode::kNotFound);
  EXPECT_EQ(ErrorCodeOf(missing.status()), "ParameterNotFound");
}

TEST_F(SsmSqsMotoTest, AReservedNameIsRefusedWithTheServicesWords) {
  auto put = session_->ssm().Call("PutParameter", {{"Name", "/aws/service/x"}, {"Value", "v"}, {"Type", "String"}});
  ASSERT_FALSE(put.ok());
  EXPECT_EQ(put.status().code(), core::StatusCode::kPermissionDenied);
  EXPECT_EQ(ErrorCodeOf(put.status()), "AccessDeniedException");
  EXPECT_NE(put.status().message().find("reserved parameter name"), std::string::npos) << put.status().message();
}

TEST_F(SsmSqsMotoTest, AnInterruptionMessageIsReceivedOnceAndDeleted) {
  auto created = session_->sqs().Call("CreateQueue", {{"QueueName", "nodesmith-interruptions"}});
  ASSERT_TRUE(created.ok()) << created.status().message();
  SqsClient sqs(&session_->sqs());
  auto url = sqs.GetQueueUrl("nodesmith-interruptions");
  ASSERT_TRUE(url.ok()) << url.status().message();
  const std::string path = std::string(NODESMITH_SHARED_DATA) + "/interruption/karpenter_test_format/spot_interruption.json";
  std::ifstream in(path);
  ASSERT_TRUE(in) << path;
  std::stringstream body;
  body << in.rdbuf();
  const std::string event = body.str();
  ASSERT_TRUE(sqs.SendMessage(*url, event).ok());
  ReceiveOptions quick;
  quick.wait_seconds = 1;
  auto messages = sqs.ReceiveMessages(*url, quick);
  ASSERT_TRUE(messages.ok()) << messages.status().message();
  ASSERT_EQ(messages->size(), 1u);
  EXPECT_EQ((*messages)[0].body, event);
  ASSERT_TRUE(sqs.DeleteMessage(*url, (*messages)[0].receipt_handle).ok());
  quick.visibility_timeout_seconds = 0;
  auto after = sqs.ReceiveMessages(*url, quick);
  ASSERT_TRUE(after.ok());
  EXPECT_TRUE(after->empty());
  auto missing = sqs.GetQueueUrl("no-such-queue");
  ASSERT_FALSE(missing.ok());
  EXPECT_EQ(missing.status().code(), core::StatusCode::kNotFound);
}

}  // namespace
}  // namespace nodesmith::aws
