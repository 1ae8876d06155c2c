// The typed EC2 and IAM answers other than DescribeInstanceTypes (which ec2_xml covers), on
// arbitrary text: every call of Ec2Client and IamClient that decodes an answer (subnets, security
// groups, images, instances, zones, offerings, spot prices, launch templates, CreateFleet,
// TerminateInstances, instance profiles) made through the real QueryClient and ServiceClient
// (signing included) to an endpoint that answers each request 200 with the input. The endpoint
// chooses every byte; a paged call sees the same page again, so its NextToken or Marker repeats
// and paging must stop. Each call must end in a value or a clean error; spot prices are finite
// and not negative.
#include <cmath>
#include <cstddef>
#include <cstdint>
#include <memory>
#include <string>

#include "cloud/aws/credentials.h"
#include "cloud/aws/ec2_client.h"
#include "cloud/aws/http_client.h"
#include "cloud/aws/iam_client.h"
#include "cloud/aws/query_protocol.h"
#include "cloud/aws/retry_strategy.h"
#include "cloud/aws/service_client.h"
#include "core/clock.h"
#include "fuzz_check.h"

namespace {

namespace aws = nodesmith::aws;
using nodesmith::fuzz::Fail;

// Answers every request with the current input.
class InputEndpoint : public aws::HttpClient {
 public:
  nodesmith::core::Result<aws::HttpResponse> Send(const aws::HttpRequest&) override {
    return aws::HttpResponse{200, {{"x-amzn-requestid", "8f0e2b7c-1d2e-4c3b-9a8f-000000000000"}}, body};
  }
  std::string body;
};

// The clients, built once: only the endpoint's answer changes between inputs.
struct Clients {
  Clients()
      : clock(nodesmith::core::Time::FromUnixSeconds(1764600000)),
        credentials(aws::StaticCredentials({"AKIDEXAMPLE", "secret", "", std::nullopt, "fuzz"})),
        retry(aws::RetryOptions{}, [] { return 0.5; }),
        ec2_service(Options("https://ec2.us-east-1.amazonaws.com", "us-east-1", "ec2")),
        iam_service(Options("https://iam.amazonaws.com", "us-east-1", "iam")),
        ec2_query(&ec2_service, aws::Ec2Client::kApiVersion),
        iam_query(&iam_service, aws::IamClient::kApiVersion),
        ec2(&ec2_query),
        iam(&iam_query) {}

  aws::ServiceClient::Options Options(const char* url, const char* region, const char* service) {
    aws::ServiceClient::Options o;
    o.endpoint = {url, region, service, false};
    o.http = &endpoint;
    o.credentials = credentials.get();
    o.clock = &clock;
    o.retry = &retry;
    o.sleep = [](nodesmith::core::Duration) {};
    return o;
  }

  InputEndpoint endpoint;
  nodesmith::core::FakeClock clock;
  std::unique_ptr<aws::CredentialsProvider> credentials;
  aws::RetryStrategy retry;
  aws::ServiceClient ec2_service;
  aws::ServiceClient iam_service;
  aws::QueryClient ec2_query;
  aws::QueryClient iam_query;
  aws::Ec2Client ec2;
  aws::IamClient iam;
};

}  // namespace

extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size) {
  static Clients* clients = new Clients();
  clients->endpoint.body.assign(reinterpret_cast<const char*>(data), size);
  aws::Ec2Client& ec2 = clients->ec2;
  const std::vector<aws::Ec2Filter> filters = {{"tag:karpenter.sh/discovery", {"demo"}}};
  (void)ec2.DescribeSubnets(filters);
  (void)ec2.DescribeSecurityGroups(filters, {"sg-0123456789abcdef0"});
  (void)ec2.DescribeImages(filters, {}, {"amazon"});
  (void)ec2.DescribeAvailabilityZones();
  (void)ec2.DescribeInstanceTypeOfferings();
  if (auto prices = ec2.DescribeSpotPriceHistory({"m5.large"}, "2025-12-01T14:40:00Z"); prices.ok()) {
    for (const aws::SpotPrice& p : *prices) {
      if (!std::isfinite(p.price) || p.price < 0) Fail("a spot price that is not a finite number >= 0", p.instance_type);
    }
  }
  (void)ec2.DescribeInstances(filters, {"i-0123456789abcdef0"});
  (void)ec2.TerminateInstances({"i-0123456789abcdef0"});
  aws::LaunchTemplateData template_data;
  template_data.image_id = "ami-0123456789abcdef0";
  template_data.block_devices.push_back({"/dev/xvda", 20, "gp3", true, true, std::nullopt, std::nullopt, "", ""});
  (void)ec2.CreateLaunchTemplate("karpenter.k8s.aws/123", template_data, {{"karpenter.sh/nodepool", "default"}});
  (void)ec2.DescribeLaunchTemplates(filters);
  aws::CreateFleetRequest fleet;
  fleet.capacity_type = "spot";
  fleet.configs.push_back({"karpenter.k8s.aws/123", {{"m5.large", "subnet-1", "us-east-1a", "", 1.0}}});
  if (auto launched = ec2.CreateFleet(fleet); launched.ok()) {
    for (const aws::FleetInstance& i : launched->instances) (void)i.instance_id.size();
  }
  (void)ec2.DryRunCreateFleet(fleet);
  (void)ec2.DryRunRunInstances({"karpenter.k8s.aws/123", "m5.large", "subnet-1", {}});
  aws::IamClient& iam = clients->iam;
  (void)iam.GetInstanceProfile("demo_1234567890");
  (void)iam.CreateInstanceProfile("demo_1234567890", "/karpenter/", {{"karpenter.sh/managed-by", "demo"}});
  (void)iam.ListInstanceProfiles("/karpenter/");
  (void)iam.ListInstanceProfiles("");
  return 0;
}
