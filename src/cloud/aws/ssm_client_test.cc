// Specification of reading an ssm:GetParameter answer: the parameter's string value, and for any
// other answer an error naming the parameter, never an exception.
#include "cloud/aws/ssm_client.h"

#include <string>
#include <vector>

#include <gmock/gmock.h>
#include <gtest/gtest.h>

namespace nodesmith::aws {
namespace {

using ::testing::HasSubstr;
using nlohmann::json;

TEST(DecodeGetParameterAnswer, TheValueOfTheParameter) {
  auto value = DecodeGetParameterAnswer(
      json::parse(R"({"Parameter": {"Name": "/aws/service/x", "Type": "String",
                                    "Value": "ami-0123456789abcdef0", "Version": 3}})"),
      "/aws/service/x");
  ASSERT_TRUE(value.ok()) << value.status().message();
  EXPECT_EQ(*value, "ami-0123456789abcdef0");
}

// An answer that was not an object (a number, an array, a string) went through operator[], which
// throws type_error on those: an abort of the controller resolving an AMI alias.
TEST(DecodeGetParameterAnswer, AnyOtherAnswerIsAnErrorNotAnAbort) {
  const std::vector<std::string> answers = {
      "5", "[1, 2]", R"("ami-1")", "true", "null", "{}", R"({"Parameter": 7})",
      R"({"Parameter": {"Value": 7}})", R"({"Parameter": {"Name": "/aws/service/x"}})"};
  for (const std::string& text : answers) {
    SCOPED_TRACE(text);
    auto value = DecodeGetParameterAnswer(json::parse(text), "/aws/service/x");
    ASSERT_FALSE(value.ok());
    EXPECT_EQ(value.status().code(), core::StatusCode::kInternal);
    EXPECT_THAT(value.status().message(),
                HasSubstr("ssm GetParameter /aws/service/x: the answer has no Parameter.Value"));
  }
}

}  // namespace
}  // namespace nodesmith::aws
