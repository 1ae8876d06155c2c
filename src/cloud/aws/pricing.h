// Prices from the live APIs, as Karpenter-AWS's pricing provider keeps them (pkg/providers/
// pricing/pricing.go): on-demand per instance type from pricing:GetProducts, spot per instance
// type and zone from ec2:DescribeSpotPriceHistory.
//
// Until spot prices have arrived, the spot price of a type in any zone is its on-demand price
// (Karpenter's zonal defaultPrice); once they have, only the zones EC2 quoted have one. Prices are
// USD per hour (CNY in the China regions, as the Pricing API quotes them there).
//
// PriceBook is a value: not thread-safe, copy it to share a snapshot.
#pragma once

#include <map>
#include <optional>
#include <string>
#include <string_view>
#include <utility>
#include <vector>

#include <nlohmann/json.hpp>

#include "cloud/aws/ec2_client.h"
#include "cloud/aws/json_protocol.h"
#include "core/status.h"
#include "core/time.h"

namespace nodesmith::aws {

class PriceBook {
 public:
  void SetOnDemandPrice(const std::string& type, double price);
  // Records `price` unless the book holds a newer quote for its type and zone (ties: this one).
  // Quotes without a positive price or a readable RFC 3339 timestamp are ignored.
  void AddSpotPrice(const SpotPrice& price);
  // On-demand prices of `other` replace these; spot quotes are merged, the newest winning.
  void Merge(const PriceBook& other);

  std::optional<double> OnDemandPrice(std::string_view type) const;
  // The zone's spot quote once spot prices have arrived, the on-demand price before.
  std::optional<double> SpotPrice(std::string_view type, std::string_view zone) const;
  bool has_spot_prices() const { return !spot_.empty(); }

  const std::map<std::string, double, std::less<>>& on_demand() const { return on_demand_; }
  size_t spot_quotes() const { return spot_.size(); }

 private:
  struct Quote {
    double price = 0;
    core::Time time;
  };
  std::map<std::string, double, std::less<>> on_demand_;
  std::map<std::pair<std::string, std::string>, Quote, std::less<>> spot_;  // (type, zone)
};

// One pricing:GetProducts answer: on-demand price per instance type, and the NextToken ("" on the
// last page).
struct GetProductsPage {
  std::map<std::string, double> prices;
  std::string next_token;
};

// Decodes a GetProducts answer. Its PriceList holds JSON strings, each one product document; the
// price is terms.OnDemand.*.priceDimensions.*.pricePerUnit.<currency> and the type
// product.attributes.instanceType. As Karpenter does, products without an instance type, without
// a readable non-zero price, or that do not parse are skipped. Fails only when the answer is not an
// object with a PriceList array.
core::Result<GetProductsPage> DecodeGetProductsPage(const nlohmann::json& answer,
                                                    std::string_view currency = "USD");

// The GetProducts request Karpenter sends for `region`: ServiceCode AmazonEC2, TERM_MATCH filters
// regionCode, serviceCode, preInstalledSw=NA, operatingSystem=Linux, capacitystatus=Used,
// marketoption=OnDemand, tenancy and productFamily, MaxResults 100; NextToken when not empty.
// Karpenter asks twice: tenancy "Shared" with "Compute Instance", and "Dedicated" with
// "Compute Instance (bare metal)", where the metal types are listed.
nlohmann::json GetProductsRequest(std::string_view region, std::string_view tenancy,
                                  std::string_view product_family, std::string_view next_token = "");

// The region's on-demand prices, both queries, every page. Fails on an API error or when either
// query finds no price (Karpenter's "no on-demand pricing found"). The GovCloud regions have no
// Pricing API: an empty book, and no call. REQUIRES: `pricing` speaks to the Pricing service.
core::Result<PriceBook> FetchOnDemandPrices(JsonClient& pricing, std::string_view region);

// The current spot quotes (DescribeSpotPriceHistory for Linux/UNIX from `now`, as Karpenter asks)
// of `types`, every type when empty; per type and zone the newest quote wins. Fails on an API
// error or when EC2 quotes nothing (Karpenter's "no spot pricing found").
core::Result<PriceBook> FetchSpotPrices(Ec2Client& ec2, const std::vector<std::string>& types,
                                        core::Time now);

}  // namespace nodesmith::aws
