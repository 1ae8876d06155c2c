#include "cloud/aws/endpoints.h"

#include <algorithm>
#include <cctype>

namespace nodesmith::aws {

namespace {

bool StartsWith(const std::string& s, const char* prefix) { return s.rfind(prefix, 0) == 0; }

std::string TrimSlash(std::string url) {
  while (!url.empty() && url.back() == '/') url.pop_back();
  return url;
}

}  // namespace

std::string PartitionOf(const std::string& region) {
  if (StartsWith(region, "cn-")) return "aws-cn";
  if (StartsWith(region, "us-gov-")) return "aws-us-gov";
  return "aws";
}

std::string DnsSuffixOf(const std::string& region) {
  return PartitionOf(region) == "aws-cn" ? "amazonaws.com.cn" : "amazonaws.com";
}

std::string PricingRegionFor(const std::string& region) {
  if (StartsWith(region, "cn-")) return "cn-northwest-1";
  if (StartsWith(region, "ap-")) return "ap-south-1";
  if (StartsWith(region, "eu-") || StartsWith(region, "me-") || StartsWith(region, "af-"))
    return "eu-central-1";
  return "us-east-1";
}

Endpoint ResolveEndpoint(const std::string& service, const std::string& region,
                         const std::function<std::optional<std::string>(const std::string&)>& getenv) {
  Endpoint e;
  e.signing_name = service;
  e.signing_region = region;
  std::string partition = PartitionOf(region);
  std::string suffix = DnsSuffixOf(region);
  if (service == "iam") {
    if (partition == "aws-cn") {
      e.signing_region = "cn-north-1";
      e.url = "https://iam.cn-north-1.amazonaws.com.cn";
    } else if (partition == "aws-us-gov") {
      e.signing_region = "us-gov-west-1";
      e.url = "https://iam.us-gov.amazonaws.com";
    } else {
      e.signing_region = "us-east-1";
      e.url = "https://iam.amazonaws.com";
    }
  } else if (service == "pricing") {
    e.signing_region = PricingRegionFor(region);
    e.url = "https://api.pricing." + e.signing_region + "." + DnsSuffixOf(e.signing_region);
  } else {
    e.url = "https://" + service + "." + region + "." + suffix;
  }
  std::string upper = service;
  std::transform(upper.begin(), upper.end(), upper.begin(),
                 [](unsigned char c) { return std::toupper(c); });
  if (getenv) {
    if (auto v = getenv("AWS_ENDPOINT_URL_" + upper); v && !v->empty()) {
      e.url = TrimSlash(*v);
      e.overridden = true;
    } else if (auto all = getenv("AWS_ENDPOINT_URL"); all && !all->empty()) {
      e.url = TrimSlash(*all);
      e.overridden = true;
    }
  }
  return e;
}

}  // namespace nodesmith::aws
