// The AWS client core without a real service: endpoints, error classes, the retry strategy, and
// the ServiceClient against a loopback server that throttles, fails, skews and pages on cue.
#include "cloud/aws/service_client.h"

#include <gmock/gmock.h>
#include <gtest/gtest.h>

#include <map>

#include "cloud/aws/ec2_client.h"
#include "cloud/aws/json_protocol.h"
#include "cloud/aws/query_protocol.h"
#include "loopback_http_server.h"

namespace nodesmith::aws {
namespace {

using ::testing::HasSubstr;
using nodesmith::testing::LoopbackHttpServer;
using nodesmith::testing::LoopbackRequest;
using nodesmith::testing::LoopbackResponse;

std::function<std::optional<std::string>(const std::string&)> Env(
    std::map<std::string, std::string> vars) {
  return [vars](const std::string& k) -> std::optional<std::string> {
    auto it = vars.find(k);
    if (it == vars.end()) return std::nullopt;
    return it->second;
  };
}

// --- Endpoints ---

TEST(EndpointsTest, RegionalDefaultsFollowThePartition) {
  auto none = Env({});
  EXPECT_EQ(ResolveEndpoint("ec2", "us-west-2", none).url, "https://ec2.us-west-2.amazonaws.com");
  EXPECT_EQ(ResolveEndpoint("ec2", "cn-north-1", none).url, "https://ec2.cn-north-1.amazonaws.com.cn");
  EXPECT_EQ(ResolveEndpoint("sqs", "us-gov-west-1", none).url, "https://sqs.us-gov-west-1.amazonaws.com");
  EXPECT_EQ(PartitionOf("us-gov-east-1"), "aws-us-gov");
  EXPECT_EQ(PartitionOf("cn-northwest-1"), "aws-cn");
  EXPECT_EQ(PartitionOf("eu-west-1"), "aws");
}

TEST(EndpointsTest, IamIsGlobalAndSignsInItsHomeRegion) {
  auto none = Env({});
  Endpoint iam = ResolveEndpoint("iam", "eu-west-1", none);
  EXPECT_EQ(iam.url, "https://iam.amazonaws.com");
  EXPECT_EQ(iam.signing_region, "us-east-1");
  EXPECT_EQ(ResolveEndpoint("iam", "cn-north-1", none).url, "https://iam.cn-north-1.amazonaws.com.cn");
  EXPECT_EQ(ResolveEndpoint("iam", "us-gov-east-1", none).signing_region, "us-gov-west-1");
}

TEST(EndpointsTest, PricingAnswersInThreeRegionsAndChina) {
  auto none = Env({});
  EXPECT_EQ(ResolveEndpoint("pricing", "us-west-2", none).url, "https://api.pricing.us-east-1.amazonaws.com");
  EXPECT_EQ(ResolveEndpoint("pricing", "ap-northeast-1", none).signing_region, "ap-south-1");
  EXPECT_EQ(ResolveEndpoint("pricing", "eu-west-3", none).signing_region, "eu-central-1");
  EXPECT_EQ(ResolveEndpoint("pricing", "cn-north-1", none).url,
            "https://api.pricing.cn-northwest-1.amazonaws.com.cn");
}

TEST(EndpointsTest, ServiceOverrideBeatsTheGlobalOverrideAndKeepsTheSigningRegion) {
  auto env = Env({{"AWS_ENDPOINT_URL", "http://127.0.0.1:5000/"},
                  {"AWS_ENDPOINT_URL_SQS", "http://127.0.0.1:6000"}});
  Endpoint ec2 = ResolveEndpoint("ec2", "us-west-2", env);
  EXPECT_EQ(ec2.url, "http://127.0.0.1:5000");
  EXPECT_TRUE(ec2.overridden);
  EXPECT_EQ(ResolveEndpoint("sqs", "us-west-2", env).url, "http://127.0.0.1:6000");
  EXPECT_EQ(ResolveEndpoint("iam", "us-west-2", env).signing_region, "us-east-1");
}

// --- Errors ---

TEST(AwsErrorTest, TheCodeSurvivesAsAStatusAndClassifiesIt) {
  AwsError e{"ec2", "CreateFleet", "InsufficientInstanceCapacity", "no m5.large in us-west-2a", "req-1", 400};
  core::Status st = e.ToStatus();
  EXPECT_EQ(st.code(), core::StatusCode::kUnavailable);
  EXPECT_EQ(st.message(), "InsufficientInstanceCapacity: no m5.large in us-west-2a (ec2 CreateFleet, request id req-1)");
  EXPECT_EQ(ErrorCodeOf(st), "InsufficientInstanceCapacity");
  EXPECT_EQ(ErrorCodeOf(st.WithPrefix("launch")), "InsufficientInstanceCapacity");  // context kept
  EXPECT_EQ(ErrorCodeOf(AwsError{"ec2", "X", "", "", "", 502}.ToStatus()), "");  // no code: HTTP 502
  EXPECT_EQ(AwsError({"ec2", "X", "InvalidInstanceID.NotFound", "", "", 400}).ToStatus().code(),
            core::StatusCode::kNotFound);
  EXPECT_EQ(AwsError({"ec2", "X", "UnauthorizedOperation", "", "", 403}).ToStatus().code(),
            core::StatusCode::kPermissionDenied);
  EXPECT_EQ(AwsError({"sts", "X", "ExpiredToken", "", "", 400}).ToStatus().code(),
            core::StatusCode::kUnauthenticated);
  EXPECT_EQ(ErrorCodeOf(core::Status::Internal("no shape here")), "");
}

TEST(AwsErrorTest, DecodesBothXmlErrorShapesAndJsonErrors) {
  HttpResponse ec2{400, {}, "<Response><Errors><Error><Code>InvalidParameterValue</Code><Message>bad</Message></Error></Errors><RequestID>r-ec2</RequestID></Response>"};
  AwsError a = DecodeXmlError(ec2);
  EXPECT_EQ(a.code, "InvalidParameterValue");
  EXPECT_EQ(a.message, "bad");
  EXPECT_EQ(a.request_id, "r-ec2");
  HttpResponse query{403, {}, "<ErrorResponse><Error><Type>Sender</Type><Code>AccessDenied</Code><Message>no</Message></Error><RequestId>r-iam</RequestId></ErrorResponse>"};
  AwsError b = DecodeXmlError(query);
  EXPECT_EQ(b.code, "AccessDenied");
  EXPECT_EQ(b.request_id, "r-iam");
  HttpResponse json{400, {{"x-amzn-requestid", "r-ssm"}}, R"({"__type":"com.amazonaws.ssm#ParameterNotFound","message":"gone"})"};
  AwsError c = DecodeJsonError(json);
  EXPECT_EQ(c.code, "ParameterNotFound");
  EXPECT_EQ(c.message, "gone");
  EXPECT_EQ(c.request_id, "r-ssm");
  HttpResponse html{502, {}, "<html>bad gateway"};
  EXPECT_EQ(DecodeXmlError(html).code, "");
}

// json::value() throws type_error when the member is there with another type; DecodeJsonError
// used it for __type, code, message and Message, so such an error answer aborted the caller.
TEST(AwsErrorTest, AJsonErrorWithMistypedFieldsDecodesWithoutThem) {
  HttpResponse code{400, {}, R"({"code": {"__type": "x"}, "message": "m"})"};
  AwsError a = DecodeJsonError(code);
  EXPECT_EQ(a.code, "");
  EXPECT_EQ(a.message, "m");
  HttpResponse type{400, {}, R"({"__type": 5, "code": "ThrottlingException", "message": ["x"], "Message": "slow down"})"};
  AwsError b = DecodeJsonError(type);
  EXPECT_EQ(b.code, "ThrottlingException");
  EXPECT_EQ(b.message, "slow down");
  HttpResponse message{400, {}, R"({"__type": "a#B", "message": null})"};
  EXPECT_EQ(DecodeJsonError(message).code, "B");
  EXPECT_EQ(DecodeJsonError(message).message, "");
}

// --- The retry strategy ---

TEST(RetryStrategyTest, BackoffIsExponentialWithFullJitterAndCapped) {
  RetryOptions o;
  o.max_attempts = 10;
  RetryStrategy half(o, [] { return 0.5; });
  EXPECT_EQ(*half.RetryAfter(1, FailureKind::kThrottling), std::chrono::seconds(1));
  EXPECT_EQ(*half.RetryAfter(2, FailureKind::kTransient), std::chrono::seconds(2));
  EXPECT_EQ(*half.RetryAfter(3, FailureKind::kTransient), std::chrono::seconds(4));
  EXPECT_EQ(*half.RetryAfter(7, FailureKind::kTransient), std::chrono::seconds(20));  // 32 s capped
  RetryStrategy zero(o, [] { return 0.0; });
  EXPECT_EQ(*zero.RetryAfter(1, FailureKind::kTransient), core::Duration(0));
}

TEST(RetryStrategyTest, GivesUpAfterTheLastAttemptAndOnErrorsOfTheCaller) {
  RetryStrategy s(RetryOptions{}, [] { return 0.5; });
  EXPECT_TRUE(s.RetryAfter(1, FailureKind::kTransient));
  EXPECT_TRUE(s.RetryAfter(2, FailureKind::kTransient));
  EXPECT_FALSE(s.RetryAfter(3, FailureKind::kTransient));  // 3 attempts by default
  EXPECT_FALSE(s.RetryAfter(1, FailureKind::kNotRetryable));
}

TEST(RetryStrategyTest, TheQuotaStopsRetriesWhenAnEndpointKeepsFailing) {
  RetryOptions o;
  o.quota = 20;
  RetryStrategy s(o, [] { return 0.0; });
  EXPECT_TRUE(s.RetryAfter(1, FailureKind::kTimeout));    // 10
  EXPECT_TRUE(s.RetryAfter(1, FailureKind::kTransient));  // 5
  EXPECT_TRUE(s.RetryAfter(1, FailureKind::kTransient));  // 5
  EXPECT_EQ(s.quota_left(), 0);
  EXPECT_FALSE(s.RetryAfter(1, FailureKind::kTransient));
  s.OnSuccess(/*retried=*/true, FailureKind::kTransient);  // a retried success gives its cost back
  EXPECT_EQ(s.quota_left(), 5);
  s.OnSuccess(false, FailureKind::kNotRetryable);
  EXPECT_EQ(s.quota_left(), 6);
}

TEST(RetryStrategyTest, MaxAttemptsComesFromTheEnvironment) {
  EXPECT_EQ(RetryOptionsFromEnvironment(Env({{"AWS_MAX_ATTEMPTS", "5"}})).max_attempts, 5);
  EXPECT_EQ(RetryOptionsFromEnvironment(Env({{"AWS_MAX_ATTEMPTS", "x"}})).max_attempts, 3);
}

// --- The query protocol's encoding ---

TEST(QueryParamsTest, FiltersListsAndTagsAreNumberedFromOne) {
  QueryParams p;
  p.AddFilter("tag:karpenter.sh/discovery", {"my cluster"}).AddFilter("state", {"available", "pending"});
  p.AddList("SubnetId", {"subnet-1"});
  p.AddTags("Tag", {{"Name", "a/b"}});
  EXPECT_EQ(p.Encode("DescribeSubnets", "2016-11-15"),
            "Action=DescribeSubnets&Version=2016-11-15"
            "&Filter.1.Name=tag%3Akarpenter.sh%2Fdiscovery&Filter.1.Value.1=my%20cluster"
            "&Filter.2.Name=state&Filter.2.Value.1=available&Filter.2.Value.2=pending"
            "&SubnetId.1=subnet-1&Tag.1.Key=Name&Tag.1.Value=a%2Fb");
}

// --- The ServiceClient against a scripted endpoint ---

// A client for `server` with fixed credentials and a recorded sleeper.
struct Harness {
  explicit Harness(const std::string& url, std::string service = "ec2", double timeout_seconds = 2)
      : clock(core::Time::FromUnixSeconds(1764600000)),
        credentials(StaticCredentials({"AKIDEXAMPLE", "secret", "", std::nullopt, "test"})),
        retry(RetryOptions{}, [] { return 0.5; }) {
    ServiceClient::Options o;
    o.endpoint = {url, "us-west-2", service, true};
    o.http = &http;
    o.credentials = credentials.get();
    o.clock = &clock;
    o.retry = &retry;
    o.sleep = [this](core::Duration d) { sleeps.push_back(d); };
    o.timeout_seconds = timeout_seconds;
    client = std::make_unique<ServiceClient>(std::move(o));
    query = std::make_unique<QueryClient>(client.get(), "2016-11-15");
  }
  core::FakeClock clock;
  CurlHttpClient http;
  std::unique_ptr<CredentialsProvider> credentials;
  RetryStrategy retry;
  std::vector<core::Duration> sleeps;
  std::unique_ptr<ServiceClient> client;
  std::unique_ptr<QueryClient> query;
};

LoopbackResponse Ec2Error(int status, const std::string& code, const std::string& request_id = "r-1") {
  return {status,
          "<Response><Errors><Error><Code>" + code + "</Code><Message>m</Message></Error></Errors><RequestID>" +
              request_id + "</RequestID></Response>",
          {}};
}

const char* kZones =
    "<DescribeAvailabilityZonesResponse><requestId>ok-1</requestId><availabilityZoneInfo><item>"
    "<zoneName>us-west-2a</zoneName><zoneId>usw2-az1</zoneId><zoneState>available</zoneState>"
    "</item></availabilityZoneInfo></DescribeAvailabilityZonesResponse>";

TEST(ServiceClientTest, ThrottlingAnd5xxAreRetriedWithBackoffThenSucceed) {
  int n = 0;
  LoopbackHttpServer server([&](const LoopbackRequest&) -> LoopbackResponse {
    ++n;
    if (n == 1) return Ec2Error(503, "RequestLimitExceeded");
    if (n == 2) return {500, "oops", {}};
    return {200, kZones, {}};
  });
  Harness h(server.url());
  Ec2Client ec2(h.query.get());
  auto zones = ec2.DescribeAvailabilityZones();
  ASSERT_TRUE(zones.ok()) << zones.status().message();
  ASSERT_EQ(zones->size(), 1u);
  EXPECT_EQ((*zones)[0].id, "usw2-az1");
  EXPECT_EQ(server.request_count(), 3u);
  EXPECT_EQ(h.sleeps, (std::vector<core::Duration>{std::chrono::seconds(1), std::chrono::seconds(2)}));
  // Every attempt was signed and carried the query body.
  for (const LoopbackRequest& r : server.requests()) {
    EXPECT_THAT(r.headers.at("authorization"), HasSubstr("AWS4-HMAC-SHA256 Credential=AKIDEXAMPLE/"));
    EXPECT_THAT(r.headers.at("authorization"), HasSubstr("/us-west-2/ec2/aws4_request"));
    EXPECT_EQ(r.body, "Action=DescribeAvailabilityZones&Version=2016-11-15");
  }
}

TEST(ServiceClientTest, AfterTheLastAttemptTheErrorKeepsCodeAndRequestId) {
  LoopbackHttpServer server([&](const LoopbackRequest&) { return Ec2Error(503, "RequestLimitExceeded", "r-last"); });
  Harness h(server.url());
  auto r = Ec2Client(h.query.get()).DescribeAvailabilityZones();
  ASSERT_FALSE(r.ok());
  EXPECT_EQ(r.status().code(), core::StatusCode::kUnavailable);
  EXPECT_EQ(r.status().message(), "RequestLimitExceeded: m (ec2 DescribeAvailabilityZones, request id r-last)");
  EXPECT_EQ(server.request_count(), 3u);
}

TEST(ServiceClientTest, ErrorsOfTheCallerAreNotRetried) {
  LoopbackHttpServer server([&](const LoopbackRequest&) { return Ec2Error(400, "InvalidParameterValue"); });
  Harness h(server.url());
  auto r = Ec2Client(h.query.get()).DescribeAvailabilityZones();
  ASSERT_FALSE(r.ok());
  EXPECT_EQ(ErrorCodeOf(r.status()), "InvalidParameterValue");
  EXPECT_EQ(server.request_count(), 1u);
  EXPECT_TRUE(h.sleeps.empty());
}

TEST(ServiceClientTest, AnUnreachableEndpointIsRetriedAndNamed) {
  int port;
  {
    LoopbackHttpServer gone([](const LoopbackRequest&) { return LoopbackResponse{}; });
    port = gone.port();
  }
  Harness h("http://127.0.0.1:" + std::to_string(port));
  auto r = Ec2Client(h.query.get()).DescribeAvailabilityZones();
  ASSERT_FALSE(r.ok());
  EXPECT_EQ(r.status().code(), core::StatusCode::kUnavailable);
  EXPECT_THAT(r.status().message(), HasSubstr("cannot reach http://127.0.0.1:" + std::to_string(port)));
  EXPECT_THAT(r.status().message(), HasSubstr("ec2 DescribeAvailabilityZones"));
  EXPECT_EQ(h.sleeps.size(), 2u);
}

TEST(ServiceClientTest, AnEndpointThatNeverAnswersIsATimeoutNotAConnectionFailure) {
  // The request may have been carried out: a timeout, retried at the quota's higher cost.
  LoopbackHttpServer silent([](const LoopbackRequest&) { return LoopbackResponse{0, "", {}}; });
  Harness h(silent.url(), "ec2", 1);
  const int quota = h.retry.quota_left();
  auto r = Ec2Client(h.query.get()).DescribeAvailabilityZones();
  ASSERT_FALSE(r.ok());
  EXPECT_EQ(r.status().code(), core::StatusCode::kDeadlineExceeded);
  EXPECT_THAT(r.status().message(), HasSubstr("did not answer within 1 s"));
  EXPECT_THAT(r.status().message(), HasSubstr("ec2 DescribeAvailabilityZones"));
  EXPECT_EQ(h.sleeps.size(), 2u);
  EXPECT_EQ(quota - h.retry.quota_left(), 2 * 10) << "two retries after timeouts, 10 each";
}

TEST(ServiceClientTest, AClockSkewAnswerCorrectsTheSigningTime) {
  LoopbackHttpServer server([&](const LoopbackRequest& r) -> LoopbackResponse {
    // The service's clock is an hour ahead of the client's.
    if (r.headers.at("x-amz-date") != "20251201T153000Z")
      return {400, "<Response><Errors><Error><Code>RequestTimeTooSkewed</Code><Message>skew</Message></Error></Errors><RequestID>r</RequestID></Response>",
              {{"Date", "Mon, 01 Dec 2025 15:30:00 GMT"}}};
    return {200, kZones, {}};
  });
  Harness h(server.url());
  h.clock.Set(core::Time::FromUnixSeconds(1764599400));  // 2025-12-01T14:30:00Z
  auto r = Ec2Client(h.query.get()).DescribeAvailabilityZones();
  ASSERT_TRUE(r.ok()) << r.status().message();
  EXPECT_EQ(server.request_count(), 2u);
  EXPECT_EQ(h.client->clock_skew(), std::chrono::hours(1));
  EXPECT_TRUE(h.sleeps.size() == 1 && h.sleeps[0] == core::Duration(0));
}

TEST(ServiceClientTest, DescribeCallsFollowNextTokenToTheLastPage) {
  LoopbackHttpServer server([&](const LoopbackRequest& r) -> LoopbackResponse {
    bool second = r.body.find("NextToken=page2") != std::string::npos;
    std::string items = second ? "<item><subnetId>subnet-2</subnetId><availabilityZone>us-west-2b</availabilityZone></item>"
                               : "<item><subnetId>subnet-1</subnetId><availabilityZone>us-west-2a</availabilityZone>"
                                 "<availableIpAddressCount>250</availableIpAddressCount>"
                                 "<tagSet><item><key>Name</key><value>private</value></item></tagSet></item>";
    return {200, "<DescribeSubnetsResponse><subnetSet>" + items + "</subnetSet>" +
                     (second ? "" : "<nextToken>page2</nextToken>") + "</DescribeSubnetsResponse>",
            {}};
  });
  Harness h(server.url());
  auto subnets = Ec2Client(h.query.get()).DescribeSubnets({{"tag:Name", {"private"}}});
  ASSERT_TRUE(subnets.ok()) << subnets.status().message();
  ASSERT_EQ(subnets->size(), 2u);
  EXPECT_EQ((*subnets)[0].available_ip_addresses, 250);
  EXPECT_EQ((*subnets)[0].tags, (Tags{{"Name", "private"}}));
  EXPECT_EQ((*subnets)[1].zone, "us-west-2b");
  auto requests = server.requests();
  ASSERT_EQ(requests.size(), 2u);
  EXPECT_THAT(requests[1].body, HasSubstr("Filter.1.Name=tag%3AName&Filter.1.Value.1=private&NextToken=page2"));
}

TEST(ServiceClientTest, JsonCallsNameTheirTargetAndDecodeTheirErrors) {
  LoopbackHttpServer server([&](const LoopbackRequest& r) -> LoopbackResponse {
    if (r.headers.at("x-amz-target") != "AmazonSSM.GetParameter") return {400, "{}", {}};
    return {400, R"({"__type":"ParameterNotFound","message":"no such parameter"})",
            {{"x-amzn-RequestId", "r-json"}}};
  });
  Harness h(server.url(), "ssm");
  JsonClient ssm(h.client.get(), "AmazonSSM", "1.1");
  auto r = ssm.Call("GetParameter", {{"Name", "/aws/service/x"}});
  ASSERT_FALSE(r.ok());
  EXPECT_EQ(r.status().code(), core::StatusCode::kNotFound);
  EXPECT_EQ(r.status().message(), "ParameterNotFound: no such parameter (ssm GetParameter, request id r-json)");
  EXPECT_EQ(server.requests()[0].headers.at("content-type"), "application/x-amz-json-1.1");
  EXPECT_EQ(server.requests()[0].body, R"({"Name":"/aws/service/x"})");
}

}  // namespace
}  // namespace nodesmith::aws
