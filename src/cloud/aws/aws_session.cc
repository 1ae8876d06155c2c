#include "cloud/aws/aws_session.h"

#include <random>

namespace nodesmith::aws {

ServiceClient* AwsSession::AddService(const std::string& name) {
  ServiceClient::Options o;
  o.endpoint = ResolveEndpoint(name, region_, options_.environment.getenv);
  o.http = http_.get();
  o.credentials = credentials_.get();
  o.clock = options_.clock;
  o.retry = retry_.get();
  o.sleep = options_.sleep ? options_.sleep : SleepFor;
  o.timeout_seconds = options_.timeout_seconds;
  services_.push_back(std::make_unique<ServiceClient>(std::move(o)));
  return services_.back().get();
}

core::Result<std::unique_ptr<AwsSession>> AwsSession::Create(AwsSessionOptions options) {
  std::unique_ptr<AwsSession> s(new AwsSession());
  s->http_ = options.http ? std::move(options.http) : std::make_unique<CurlHttpClient>();
  s->region_ = options.region.empty() ? ResolveRegion(options.environment, s->http_.get())
                                      : options.region;
  if (s->region_.empty()) {
    return core::Status::Invalid(
        "no AWS region: set AWS_REGION (the Helm chart sets it from settings), a region in the "
        "AWS config file's profile, or run on an instance whose metadata service answers");
  }
  std::function<double()> random01 = options.random01;
  if (!random01) {
    auto engine = std::make_shared<std::mt19937_64>(std::random_device{}());
    auto mu = std::make_shared<std::mutex>();
    random01 = [engine, mu] {
      std::lock_guard<std::mutex> lock(*mu);
      return std::uniform_real_distribution<double>(0, 1)(*engine);
    };
  }
  s->retry_ = std::make_unique<RetryStrategy>(RetryOptionsFromEnvironment(options.environment.getenv),
                                              std::move(random01));
  if (options.credentials) {
    s->credentials_ = std::move(options.credentials);
  } else {
    Endpoint sts = ResolveEndpoint("sts", s->region_, options.environment.getenv);
    s->credentials_ = DefaultCredentialsChain(options.environment, s->http_.get(), options.clock,
                                              sts.url);
  }
  s->options_ = std::move(options);
  s->ec2_query_ = std::make_unique<QueryClient>(s->AddService("ec2"), Ec2Client::kApiVersion);
  s->sts_ = std::make_unique<QueryClient>(s->AddService("sts"), "2011-06-15");
  s->iam_ = std::make_unique<QueryClient>(s->AddService("iam"), "2010-05-08");
  s->sqs_ = std::make_unique<JsonClient>(s->AddService("sqs"), "AmazonSQS", "1.0");
  s->ssm_ = std::make_unique<JsonClient>(s->AddService("ssm"), "AmazonSSM", "1.1");
  s->pricing_ = std::make_unique<JsonClient>(s->AddService("pricing"), "AWSPriceListService", "1.1");
  s->eks_ = s->AddService("eks");
  s->ec2_ = std::make_unique<Ec2Client>(s->ec2_query_.get());
  return s;
}

uint64_t AwsSession::attempts_sent() const {
  uint64_t n = 0;
  for (const auto& s : services_) n += s->attempts_sent();
  return n;
}

}  // namespace nodesmith::aws
