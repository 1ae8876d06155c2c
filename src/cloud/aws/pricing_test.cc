// Prices: GetProducts answers (a real product document from the shared fixtures), the requests
// Karpenter sends, the PriceBook's spot fallback and merge rules, and both fetches against a
// scripted endpoint.
#include "cloud/aws/pricing.h"

#include <gmock/gmock.h>
#include <gtest/gtest.h>

#include <fstream>
#include <functional>
#include <sstream>

#include "cloud/aws/query_protocol.h"
#include "core/clock.h"

namespace nodesmith::aws {
namespace {

using ::testing::HasSubstr;
using nlohmann::json;

// The product document of ec2_api_fixtures/GetProducts/m5_large.json (us-east-1, $0.096/h).
json M5LargeProduct() {
  std::ifstream in(std::string(NODESMITH_SHARED_DATA) + "/aws/ec2_api_fixtures/GetProducts/m5_large.json");
  EXPECT_TRUE(in.good()) << "missing shared fixture under " << NODESMITH_SHARED_DATA;
  std::stringstream text;
  text << in.rdbuf();
  return json::parse(text.str(), nullptr, false);
}

// A product document as the Pricing API serialises it into PriceList.
std::string Product(const std::string& type, const std::string& usd) {
  json p = {{"product", {{"productFamily", "Compute Instance"}, {"attributes", {{"instanceType", type}}}}},
            {"terms",
             {{"OnDemand",
               {{"SKU.TERM",
                 {{"priceDimensions", {{"SKU.TERM.DIM", {{"unit", "Hrs"}, {"pricePerUnit", {{"USD", usd}}}}}}}}}}}}}};
  return p.dump();
}

TEST(GetProductsTest, DecodesTheFixturesProductDocument) {
  json answer = {{"FormatVersion", "aws_v1"}, {"PriceList", json::array({M5LargeProduct().dump()})},
                 {"NextToken", "page-2"}};
  auto page = DecodeGetProductsPage(answer);
  ASSERT_TRUE(page.ok()) << page.status().message();
  ASSERT_EQ(page->prices.size(), 1u);
  // terms.Reserved lists 0.06 and an upfront fee: only the on-demand term counts.
  EXPECT_DOUBLE_EQ(page->prices.at("m5.large"), 0.096);
  EXPECT_EQ(page->next_token, "page-2");
}

TEST(GetProductsTest, SkipsWhatKarpenterSkips) {
  json no_type = json::parse(Product("x", "0.5"));
  no_type["product"]["attributes"].erase("instanceType");
  json answer = {{"PriceList", json::array({Product("m5.xlarge", "0.1920000000"), Product("free.large", "0.0000000000"),
                                            Product("bad.large", "n/a"), no_type.dump(), "{not json",
                                            Product("c5.large", "0.085")})}};
  auto page = DecodeGetProductsPage(answer);
  ASSERT_TRUE(page.ok()) << page.status().message();
  EXPECT_EQ(page->prices, (std::map<std::string, double>{{"c5.large", 0.085}, {"m5.xlarge", 0.192}}));
  EXPECT_EQ(page->next_token, "");
  // China quotes CNY: no USD price to read there.
  EXPECT_TRUE(DecodeGetProductsPage(answer, "CNY")->prices.empty());
}

TEST(GetProductsTest, AnAnswerWithoutAPriceListFails) {
  EXPECT_FALSE(DecodeGetProductsPage(json::object()).ok());
  EXPECT_FALSE(DecodeGetProductsPage(json{{"PriceList", "x"}}).ok());
  EXPECT_FALSE(DecodeGetProductsPage(json::array()).ok());
}

TEST(GetProductsTest, TheRequestIsKarpenters) {
  json r = GetProductsRequest("eu-west-1", "Dedicated", "Compute Instance (bare metal)", "tok");
  json want = json::parse(R"json({
    "ServiceCode": "AmazonEC2",
    "Filters": [
      {"Type": "TERM_MATCH", "Field": "regionCode", "Value": "eu-west-1"},
      {"Type": "TERM_MATCH", "Field": "serviceCode", "Value": "AmazonEC2"},
      {"Type": "TERM_MATCH", "Field": "preInstalledSw", "Value": "NA"},
      {"Type": "TERM_MATCH", "Field": "operatingSystem", "Value": "Linux"},
      {"Type": "TERM_MATCH", "Field": "capacitystatus", "Value": "Used"},
      {"Type": "TERM_MATCH", "Field": "marketoption", "Value": "OnDemand"},
      {"Type": "TERM_MATCH", "Field": "tenancy", "Value": "Dedicated"},
      {"Type": "TERM_MATCH", "Field": "productFamily", "Value": "Compute Instance (bare metal)"}],
    "MaxResults": 100,
    "NextToken": "tok"})json");
  EXPECT_EQ(r, want) << r.dump(2);
  EXPECT_FALSE(GetProductsRequest("eu-west-1", "Shared", "Compute Instance").contains("NextToken"));
}

// --- PriceBook ---

TEST(PriceBookTest, SpotIsTheOnDemandPriceUntilSpotPricesArrive) {
  PriceBook book;
  book.SetOnDemandPrice("m5.large", 0.096);
  EXPECT_FALSE(book.has_spot_prices());
  EXPECT_EQ(book.SpotPrice("m5.large", "us-east-1a"), 0.096);
  EXPECT_EQ(book.SpotPrice("c5.large", "us-east-1a"), std::nullopt);

  book.AddSpotPrice({"m5.large", "us-east-1a", 0.0423, "2021-02-08T23:58:38.000Z"});
  EXPECT_TRUE(book.has_spot_prices());
  EXPECT_EQ(book.SpotPrice("m5.large", "us-east-1a"), 0.0423);
  // Once they have arrived, a zone EC2 did not quote has no spot price.
  EXPECT_EQ(book.SpotPrice("m5.large", "us-east-1b"), std::nullopt);
  EXPECT_EQ(book.OnDemandPrice("m5.large"), 0.096);
}

TEST(PriceBookTest, TheNewestQuoteWinsWhateverTheOrder) {
  PriceBook book;
  book.AddSpotPrice({"m5.large", "us-east-1f", 0.0437, "2021-02-09T01:40:10+00:00"});
  book.AddSpotPrice({"m5.large", "us-east-1f", 0.0435, "2021-02-08T19:30:39+00:00"});
  EXPECT_EQ(book.SpotPrice("m5.large", "us-east-1f"), 0.0437);
  book.AddSpotPrice({"m5.large", "us-east-1f", 0.0440, "2021-02-09T02:00:00.000Z"});
  EXPECT_EQ(book.SpotPrice("m5.large", "us-east-1f"), 0.0440);
  // Unreadable time or no price: ignored.
  book.AddSpotPrice({"m5.large", "us-east-1f", 0.5, "yesterday"});
  book.AddSpotPrice({"m5.large", "us-east-1f", 0, "2030-01-01T00:00:00Z"});
  EXPECT_EQ(book.SpotPrice("m5.large", "us-east-1f"), 0.0440);
  EXPECT_EQ(book.spot_quotes(), 1u);
}

TEST(PriceBookTest, MergeReplacesOnDemandAndKeepsTheNewestSpot) {
  PriceBook old_book, update;
  old_book.SetOnDemandPrice("m5.large", 0.1);
  old_book.SetOnDemandPrice("c5.large", 0.085);
  old_book.AddSpotPrice({"m5.large", "a", 0.04, "2026-01-02T00:00:00Z"});
  update.SetOnDemandPrice("m5.large", 0.096);
  update.AddSpotPrice({"m5.large", "a", 0.03, "2026-01-01T00:00:00Z"});
  update.AddSpotPrice({"m5.large", "b", 0.05, "2026-01-01T00:00:00Z"});
  old_book.Merge(update);
  EXPECT_EQ(old_book.OnDemandPrice("m5.large"), 0.096);
  EXPECT_EQ(old_book.OnDemandPrice("c5.large"), 0.085);
  EXPECT_EQ(old_book.SpotPrice("m5.large", "a"), 0.04);
  EXPECT_EQ(old_book.SpotPrice("m5.large", "b"), 0.05);
}

// --- The fetches against a scripted endpoint ---

class ScriptedHttp : public HttpClient {
 public:
  explicit ScriptedHttp(std::function<HttpResponse(const HttpRequest&)> answer) : answer_(std::move(answer)) {}
  core::Result<HttpResponse> Send(const HttpRequest& request) override {
    requests.push_back(request);
    return answer_(request);
  }
  std::vector<HttpRequest> requests;

 private:
  std::function<HttpResponse(const HttpRequest&)> answer_;
};

std::string Header(const HttpRequest& r, const std::string& name) {
  for (const auto& [k, v] : r.headers)
    if (k == name) return v;
  return "";
}

// One service endpoint wired to `http` with fixed credentials and no waits.
struct FakeService {
  FakeService(HttpClient* http, const std::string& service)
      : clock(core::Time::FromUnixSeconds(1785600000)),
        credentials(StaticCredentials({"AKIDEXAMPLE", "secret", "", std::nullopt, "test"})),
        retry(RetryOptions{}, [] { return 0.5; }) {
    ServiceClient::Options o;
    o.endpoint = {"https://" + service + ".example", "us-east-1", service, true};
    o.http = http;
    o.credentials = credentials.get();
    o.clock = &clock;
    o.retry = &retry;
    o.sleep = [](core::Duration) {};
    client = std::make_unique<ServiceClient>(std::move(o));
  }
  core::FakeClock clock;
  std::unique_ptr<CredentialsProvider> credentials;
  RetryStrategy retry;
  std::unique_ptr<ServiceClient> client;
};

TEST(FetchOnDemandPricesTest, AsksBothQueriesAndFollowsNextToken) {
  ScriptedHttp http([](const HttpRequest& r) {
    json body = json::parse(r.body);
    const std::string tenancy = body["Filters"][6]["Value"];
    json answer;
    if (tenancy == "Shared" && !body.contains("NextToken")) {
      answer = {{"PriceList", json::array({Product("m5.large", "0.096")})}, {"NextToken", "shared-2"}};
    } else if (tenancy == "Shared") {
      answer = {{"PriceList", json::array({Product("c5.large", "0.085")})}};
    } else {
      answer = {{"PriceList", json::array({Product("m5.metal", "4.608")})}};
    }
    return HttpResponse{200, {}, answer.dump()};
  });
  FakeService e(&http, "pricing");
  JsonClient pricing(e.client.get(), "AWSPriceListService", "1.1");
  auto book = FetchOnDemandPrices(pricing, "us-east-1");
  ASSERT_TRUE(book.ok()) << book.status().message();
  EXPECT_EQ(book->on_demand().size(), 3u);
  EXPECT_EQ(book->OnDemandPrice("m5.large"), 0.096);
  EXPECT_EQ(book->OnDemandPrice("c5.large"), 0.085);
  EXPECT_EQ(book->OnDemandPrice("m5.metal"), 4.608);
  ASSERT_EQ(http.requests.size(), 3u);
  EXPECT_EQ(Header(http.requests[0], "X-Amz-Target"), "AWSPriceListService.GetProducts");
  EXPECT_EQ(json::parse(http.requests[1].body)["NextToken"], "shared-2");
  EXPECT_EQ(json::parse(http.requests[2].body)["Filters"][7]["Value"], "Compute Instance (bare metal)");
  EXPECT_EQ(json::parse(http.requests[0].body)["Filters"][0]["Value"], "us-east-1");
}

TEST(FetchOnDemandPricesTest, AQueryWithoutPricesIsAnError) {
  ScriptedHttp http([](const HttpRequest& r) {
    json body = json::parse(r.body);
    json list = body["Filters"][6]["Value"] == "Shared" ? json::array({Product("m5.large", "0.096")})
                                                        : json::array();
    return HttpResponse{200, {}, json{{"PriceList", list}}.dump()};
  });
  FakeService e(&http, "pricing");
  JsonClient pricing(e.client.get(), "AWSPriceListService", "1.1");
  auto book = FetchOnDemandPrices(pricing, "us-west-2");
  ASSERT_FALSE(book.ok());
  EXPECT_THAT(book.status().message(), HasSubstr("no on-demand pricing found"));
}

TEST(FetchOnDemandPricesTest, ApiErrorsAreReturned) {
  ScriptedHttp http([](const HttpRequest&) {
    return HttpResponse{400, {}, R"({"__type":"AccessDeniedException","message":"no"})"};
  });
  FakeService e(&http, "pricing");
  JsonClient pricing(e.client.get(), "AWSPriceListService", "1.1");
  auto book = FetchOnDemandPrices(pricing, "us-west-2");
  ASSERT_FALSE(book.ok());
  EXPECT_THAT(book.status().message(), HasSubstr("AccessDenied"));
}

TEST(FetchOnDemandPricesTest, GovCloudHasNoPricingApi) {
  ScriptedHttp http([](const HttpRequest&) { return HttpResponse{500, {}, ""}; });
  FakeService e(&http, "pricing");
  JsonClient pricing(e.client.get(), "AWSPriceListService", "1.1");
  auto book = FetchOnDemandPrices(pricing, "us-gov-west-1");
  ASSERT_TRUE(book.ok());
  EXPECT_TRUE(book->on_demand().empty());
  EXPECT_TRUE(http.requests.empty());
}

TEST(FetchSpotPricesTest, TheNewestQuotePerTypeAndZoneWins) {
  ScriptedHttp http([](const HttpRequest&) {
    auto quote = [](const char* type, const char* zone, const char* price, const char* time) {
      return std::string("<item><instanceType>") + type + "</instanceType><productDescription>Linux/UNIX</productDescription>" +
             "<spotPrice>" + price + "</spotPrice><timestamp>" + time + "</timestamp><availabilityZone>" + zone +
             "</availabilityZone></item>";
    };
    return HttpResponse{200, {},
                        "<DescribeSpotPriceHistoryResponse><spotPriceHistorySet>" +
                            quote("m5.large", "us-east-1a", "0.042300", "2021-02-08T23:58:38.000Z") +
                            quote("m5.large", "us-east-1a", "0.041000", "2021-02-09T03:00:00.000Z") +
                            quote("m5.large", "us-east-1b", "0.038900", "2021-02-08T21:46:09.000Z") +
                            "</spotPriceHistorySet><nextToken/></DescribeSpotPriceHistoryResponse>"};
  });
  FakeService e(&http, "ec2");
  QueryClient query(e.client.get(), Ec2Client::kApiVersion);
  Ec2Client ec2(&query);
  auto book = FetchSpotPrices(ec2, {"m5.large"}, core::Time::FromUnixSeconds(1785600000));
  ASSERT_TRUE(book.ok()) << book.status().message();
  EXPECT_EQ(book->SpotPrice("m5.large", "us-east-1a"), 0.041);
  EXPECT_EQ(book->SpotPrice("m5.large", "us-east-1b"), 0.0389);
  ASSERT_EQ(http.requests.size(), 1u);
  EXPECT_THAT(http.requests[0].body, HasSubstr("StartTime=2026-08-01T16%3A00%3A00Z"));
  EXPECT_THAT(http.requests[0].body, HasSubstr("InstanceType.1=m5.large"));
}

TEST(FetchSpotPricesTest, NoQuoteIsAnError) {
  ScriptedHttp http([](const HttpRequest&) {
    return HttpResponse{200, {}, "<DescribeSpotPriceHistoryResponse><spotPriceHistorySet/></DescribeSpotPriceHistoryResponse>"};
  });
  FakeService e(&http, "ec2");
  QueryClient query(e.client.get(), Ec2Client::kApiVersion);
  Ec2Client ec2(&query);
  auto book = FetchSpotPrices(ec2, {}, core::Time::FromUnixSeconds(1785600000));
  ASSERT_FALSE(book.ok());
  EXPECT_THAT(book.status().message(), HasSubstr("no spot pricing found"));
}

}  // namespace
}  // namespace nodesmith::aws
