#include "cloud/aws/pricing.h"

#include <cstdlib>

namespace nodesmith::aws {
namespace {

using nlohmann::json;

// strtod over the whole text; nothing for "" or trailing garbage.
std::optional<double> ParsePrice(const std::string& text) {
  if (text.empty()) return std::nullopt;
  char* end = nullptr;
  const double v = std::strtod(text.c_str(), &end);
  if (end != text.c_str() + text.size()) return std::nullopt;
  return v;
}

const json* Member(const json& object, const char* key) {
  if (!object.is_object()) return nullptr;
  auto it = object.find(key);
  return it == object.end() ? nullptr : &*it;
}

std::string StringMember(const json& object, const char* key) {
  const json* v = Member(object, key);
  return v != nullptr && v->is_string() ? v->get<std::string>() : "";
}

// The instance type and on-demand price of one product document; nothing when it has either
// missing. Several dimensions with a price: the last one read wins, as in Karpenter (whose map
// order is random; EC2 products have one).
std::optional<std::pair<std::string, double>> ProductPrice(const json& product,
                                                           std::string_view currency) {
  const json* p = Member(product, "product");
  const json* attributes = p != nullptr ? Member(*p, "attributes") : nullptr;
  const std::string type = attributes != nullptr ? StringMember(*attributes, "instanceType") : "";
  if (type.empty()) return std::nullopt;
  const json* terms = Member(product, "terms");
  const json* on_demand = terms != nullptr ? Member(*terms, "OnDemand") : nullptr;
  if (on_demand == nullptr || !on_demand->is_object()) return std::nullopt;
  std::optional<double> price;
  for (const json& term : *on_demand) {
    const json* dimensions = Member(term, "priceDimensions");
    if (dimensions == nullptr || !dimensions->is_object()) continue;
    for (const json& dimension : *dimensions) {
      const json* per_unit = Member(dimension, "pricePerUnit");
      if (per_unit == nullptr) continue;
      std::optional<double> v = ParsePrice(StringMember(*per_unit, std::string(currency).c_str()));
      if (v && *v > 0) price = v;
    }
  }
  if (!price) return std::nullopt;
  return std::make_pair(type, *price);
}

// One of Karpenter's two GetProducts queries, every page.
core::Status FetchQuery(JsonClient& pricing, std::string_view region, std::string_view tenancy,
                        std::string_view family, std::string_view currency,
                        std::map<std::string, double>* prices) {
  std::string token;
  do {
    auto answer = pricing.Call("GetProducts", GetProductsRequest(region, tenancy, family, token));
    if (!answer.ok()) return answer.status();
    auto page = DecodeGetProductsPage(*answer, currency);
    if (!page.ok()) return page.status();
    for (auto& [type, price] : page->prices) (*prices)[type] = price;
    if (!page->next_token.empty() && page->next_token == token) {
      return core::Status::Internal("pricing GetProducts answered NextToken \"" + token +
                                    "\" for the page it names");
    }
    token = page->next_token;
  } while (!token.empty());
  return core::Status::Ok();
}

}  // namespace

void PriceBook::SetOnDemandPrice(const std::string& type, double price) { on_demand_[type] = price; }

void PriceBook::AddSpotPrice(const aws::SpotPrice& quote) {
  if (!(quote.price > 0)) return;
  auto time = core::ParseRfc3339(quote.timestamp);
  if (!time.ok()) return;
  auto key = std::make_pair(quote.instance_type, quote.zone);
  auto it = spot_.find(key);
  if (it != spot_.end() && it->second.time > *time) return;
  spot_[std::move(key)] = Quote{quote.price, *time};
}

void PriceBook::Merge(const PriceBook& other) {
  for (const auto& [type, price] : other.on_demand_) on_demand_[type] = price;
  for (const auto& [key, quote] : other.spot_) {
    auto it = spot_.find(key);
    if (it == spot_.end() || it->second.time <= quote.time) spot_[key] = quote;
  }
}

std::optional<double> PriceBook::OnDemandPrice(std::string_view type) const {
  auto it = on_demand_.find(type);
  if (it == on_demand_.end()) return std::nullopt;
  return it->second;
}

std::optional<double> PriceBook::SpotPrice(std::string_view type, std::string_view zone) const {
  if (!has_spot_prices()) return OnDemandPrice(type);
  auto it = spot_.find(std::make_pair(std::string(type), std::string(zone)));
  if (it == spot_.end()) return std::nullopt;
  return it->second.price;
}

core::Result<GetProductsPage> DecodeGetProductsPage(const json& answer, std::string_view currency) {
  const json* list = Member(answer, "PriceList");
  if (list == nullptr || !list->is_array()) {
    return core::Status::Internal("pricing GetProducts answer has no PriceList array");
  }
  GetProductsPage page;
  for (const json& entry : *list) {
    // Each entry is a product document serialised as a string; some tools hand back the object.
    json product;
    if (entry.is_string()) {
      product = json::parse(entry.get<std::string>(), nullptr, /*allow_exceptions=*/false);
    } else {
      product = entry;
    }
    if (auto price = ProductPrice(product, currency)) page.prices[price->first] = price->second;
  }
  page.next_token = StringMember(answer, "NextToken");
  return page;
}

json GetProductsRequest(std::string_view region, std::string_view tenancy,
                        std::string_view product_family, std::string_view next_token) {
  auto term = [](const char* field, std::string_view value) {
    return json{{"Type", "TERM_MATCH"}, {"Field", field}, {"Value", std::string(value)}};
  };
  json request = {
      {"ServiceCode", "AmazonEC2"},
      {"Filters", json::array({term("regionCode", region), term("serviceCode", "AmazonEC2"),
                               term("preInstalledSw", "NA"), term("operatingSystem", "Linux"),
                               term("capacitystatus", "Used"), term("marketoption", "OnDemand"),
                               term("tenancy", tenancy), term("productFamily", product_family)})},
      {"MaxResults", 100},
  };
  if (!next_token.empty()) request["NextToken"] = std::string(next_token);
  return request;
}

core::Result<PriceBook> FetchOnDemandPrices(JsonClient& pricing, std::string_view region) {
  PriceBook book;
  if (region.starts_with("us-gov-")) return book;
  const std::string_view currency = region.starts_with("cn-") ? "CNY" : "USD";
  std::map<std::string, double> shared, metal;
  NS_RETURN_IF_ERROR(FetchQuery(pricing, region, "Shared", "Compute Instance", currency, &shared));
  NS_RETURN_IF_ERROR(
      FetchQuery(pricing, region, "Dedicated", "Compute Instance (bare metal)", currency, &metal));
  if (shared.empty() || metal.empty()) {
    return core::Status::NotFound("no on-demand pricing found for region " + std::string(region) +
                                  " (" + std::to_string(shared.size()) + " shared, " +
                                  std::to_string(metal.size()) + " bare-metal prices)");
  }
  for (const auto& [type, price] : shared) book.SetOnDemandPrice(type, price);
  for (const auto& [type, price] : metal) book.SetOnDemandPrice(type, price);
  return book;
}

core::Result<PriceBook> FetchSpotPrices(Ec2Client& ec2, const std::vector<std::string>& types,
                                        core::Time now) {
  auto quotes = ec2.DescribeSpotPriceHistory(types, core::FormatRfc3339(now));
  if (!quotes.ok()) return quotes.status();
  PriceBook book;
  for (const aws::SpotPrice& q : *quotes) book.AddSpotPrice(q);
  if (!book.has_spot_prices()) return core::Status::NotFound("no spot pricing found");
  return book;
}

}  // namespace nodesmith::aws
