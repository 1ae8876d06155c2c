// Ec2Client's decoding of answers, against a loopback endpoint that answers every call with one
// fixed document (the calls themselves run against moto in ec2_client_moto_test.cc).
#include "cloud/aws/ec2_client.h"

#include <memory>
#include <optional>
#include <string>

#include <gtest/gtest.h>

#include "cloud/aws/credentials.h"
#include "cloud/aws/http_client.h"
#include "cloud/aws/retry_strategy.h"
#include "cloud/aws/service_client.h"
#include "core/clock.h"
#include "loopback_http_server.h"

namespace nodesmith::aws {
namespace {

using nodesmith::testing::LoopbackHttpServer;
using nodesmith::testing::LoopbackRequest;
using nodesmith::testing::LoopbackResponse;

// An Ec2Client whose endpoint answers every request 200 with `body`.
struct AnsweringEc2 {
  explicit AnsweringEc2(std::string body)
      : server([body = std::move(body)](const LoopbackRequest&) { return LoopbackResponse{200, body, {}}; }),
        clock(core::Time::FromUnixSeconds(1764600000)),
        credentials(StaticCredentials({"AKIDEXAMPLE", "secret", "", std::nullopt, "test"})),
        retry(RetryOptions{}, [] { return 0.5; }) {
    ServiceClient::Options o;
    o.endpoint = {server.url(), "us-east-1", "ec2", true};
    o.http = &http;
    o.credentials = credentials.get();
    o.clock = &clock;
    o.retry = &retry;
    o.sleep = [](core::Duration) {};
    service = std::make_unique<ServiceClient>(std::move(o));
    query = std::make_unique<QueryClient>(service.get(), Ec2Client::kApiVersion);
    ec2 = std::make_unique<Ec2Client>(query.get());
  }
  LoopbackHttpServer server;
  core::FakeClock clock;
  std::unique_ptr<CredentialsProvider> credentials;
  RetryStrategy retry;
  CurlHttpClient http;
  std::unique_ptr<ServiceClient> service;
  std::unique_ptr<QueryClient> query;
  std::unique_ptr<Ec2Client> ec2;
};

// strtod reads "1e999" and "inf" as infinity and "nan" as NaN; an infinite quote passed the
// pricing cache's `price > 0` and became the offering's price. What is not a finite price of
// zero or more reads as unreadable (0), which the cache drops.
TEST(Ec2ClientAnswers, SpotPricesThatAreNotFiniteOrNegativeReadAsUnreadable) {
  AnsweringEc2 ec2(
      "<DescribeSpotPriceHistoryResponse><spotPriceHistorySet>"
      "<item><instanceType>m5.large</instanceType><spotPrice>0.036900</spotPrice></item>"
      "<item><instanceType>m5.xlarge</instanceType><spotPrice>1e999</spotPrice></item>"
      "<item><instanceType>m5.2xlarge</instanceType><spotPrice>inf</spotPrice></item>"
      "<item><instanceType>m5.4xlarge</instanceType><spotPrice>nan</spotPrice></item>"
      "<item><instanceType>m5.8xlarge</instanceType><spotPrice>-0.5</spotPrice></item>"
      "<item><instanceType>m5.12xlarge</instanceType><spotPrice>cheap</spotPrice></item>"
      "</spotPriceHistorySet></DescribeSpotPriceHistoryResponse>");
  auto prices = ec2.ec2->DescribeSpotPriceHistory({"m5.large"}, "");
  ASSERT_TRUE(prices.ok()) << prices.status().message();
  ASSERT_EQ(prices->size(), 6u);
  EXPECT_EQ((*prices)[0].price, 0.0369);
  for (size_t i = 1; i < prices->size(); ++i) EXPECT_EQ((*prices)[i].price, 0) << (*prices)[i].instance_type;
}

}  // namespace
}  // namespace nodesmith::aws
