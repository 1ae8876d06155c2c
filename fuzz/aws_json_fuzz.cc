// What an AWS JSON-protocol endpoint (SSM, Pricing, SQS) answers, on arbitrary text: the body read
// as an error envelope (DecodeJsonError, for any non-2xx answer), and as JsonClient::Call reads a
// success, then decoded as a pricing:GetProducts page and as an ssm:GetParameter answer. Each must
// end in a value or a clean error. A decoded page written back as a GetProducts answer, and a
// parameter value as a GetParameter answer, must decode to the same again; prices are finite and
// positive.
#include <charconv>
#include <cmath>
#include <cstddef>
#include <cstdint>
#include <string>
#include <string_view>

#include <nlohmann/json.hpp>

#include "cloud/aws/json_protocol.h"
#include "cloud/aws/pricing.h"
#include "cloud/aws/ssm_client.h"
#include "fuzz_check.h"

namespace {

using nlohmann::json;
using nodesmith::fuzz::Fail;

// The shortest text strtod reads back as exactly `v`.
std::string Shortest(double v) {
  char buf[64];
  auto [end, ec] = std::to_chars(buf, buf + sizeof buf, v);
  if (ec != std::errc()) Fail("price does not print", "");
  return std::string(buf, end);
}

// A GetProducts answer holding one product document per price, as the Pricing API writes them.
json AnswerOf(const nodesmith::aws::GetProductsPage& page, const char* currency) {
  json list = json::array();
  for (const auto& [type, price] : page.prices) {
    json product = {
        {"product", {{"productFamily", "Compute Instance"}, {"attributes", {{"instanceType", type}}}}},
        {"terms",
         {{"OnDemand",
           {{"SKU.JRTCKXETXF",
             {{"priceDimensions",
               {{"SKU.JRTCKXETXF.6YS6EN2CT7",
                 {{"unit", "Hrs"}, {"pricePerUnit", {{currency, Shortest(price)}}}}}}}}}}}}}};
    list.push_back(product.dump());
  }
  json answer = {{"FormatVersion", "aws_v1"}, {"PriceList", list}};
  if (!page.next_token.empty()) answer["NextToken"] = page.next_token;
  return answer;
}

void CheckPricing(const json& answer, const char* currency) {
  auto page = nodesmith::aws::DecodeGetProductsPage(answer, currency);
  if (!page.ok()) return;
  for (const auto& [type, price] : page->prices) {
    if (type.empty()) Fail("a price without an instance type", answer.dump());
    if (!std::isfinite(price) || !(price > 0)) Fail("a price that is not a positive number", type + " " + std::to_string(price));
  }
  const json written = AnswerOf(*page, currency);
  auto again = nodesmith::aws::DecodeGetProductsPage(written, currency);
  if (!again.ok()) Fail("a written page does not decode", written.dump());
  if (again->prices != page->prices || again->next_token != page->next_token) {
    Fail("a written page decodes differently", written.dump());
  }
}

void CheckSsm(const json& answer) {
  const std::string name = "/aws/service/eks/optimized-ami/1.31/amazon-linux-2023/x86_64/standard/recommended/image_id";
  auto value = nodesmith::aws::DecodeGetParameterAnswer(answer, name);
  if (!value.ok()) return;
  const json written = {{"Parameter", {{"Name", name}, {"Type", "String"}, {"Value", *value}, {"Version", 1}}}};
  auto again = nodesmith::aws::DecodeGetParameterAnswer(written, name);
  if (!again.ok() || *again != *value) Fail("a written parameter decodes differently", written.dump());
}

}  // namespace

extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size) {
  const std::string body(reinterpret_cast<const char*>(data), size);
  nodesmith::aws::HttpResponse response{400, {{"x-amzn-requestid", "8f0e2b7c-1d2e-4c3b-9a8f-000000000000"}}, body};
  nodesmith::aws::AwsError error = nodesmith::aws::DecodeJsonError(response);
  (void)error.ToStatus();
  // As JsonClient::Call reads a 200 answer: empty is {}, text that is not JSON is an error.
  json answer = body.empty() ? json::object() : json::parse(body, nullptr, /*allow_exceptions=*/false);
  if (answer.is_discarded()) return 0;
  CheckPricing(answer, "USD");
  CheckPricing(answer, "CNY");
  CheckSsm(answer);
  return 0;
}
