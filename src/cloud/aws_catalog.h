// The built-in `aws` catalog: the EC2 types of aws_instance_data.inc with Karpenter-AWS's capacity,
// overhead and labels, and offerings (spot and on-demand) in zones <region>a, b and c.
//
// Prices. On-demand prices are AWS's us-east-1 Linux list prices (2026-07-20). us-east-2 and
// us-west-2 use the same numbers: AWS prices every family in this table identically in those three
// regions. Other regions apply a per-region multiplier (AwsRegionPriceMultiplier) — an ESTIMATE
// from the ratio of published m5.large on-demand prices to us-east-1, not a quote. Spot prices are
// an ESTIMATE too: on-demand × (1 − AwsSpotDiscount(family)), the typical saving the EC2 Spot
// Instance Advisor shows for the family (AWS advertises "up to 90 %"); the same in every zone and
// deterministic. AwsCatalogOptions::spot_prices overrides it per type.
#pragma once

#include <map>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

#include "cloud/ec2_overhead.h"
#include "cloud/instance_type.h"
#include "core/status.h"

namespace nodesmith::cloud {

inline constexpr const char* kDefaultAwsRegion = "us-west-2";

struct AwsCatalogOptions {
  std::string region = kDefaultAwsRegion;
  Ec2NodeSettings node_settings;              // from the EC2NodeClass, if any
  std::map<std::string, double> spot_prices;  // instance type -> USD/hour, in every zone
};

// Price factor relative to us-east-1; nullopt for a region the catalog does not know.
std::optional<double> AwsRegionPriceMultiplier(std::string_view region);
// The regions AwsRegionPriceMultiplier knows, sorted.
std::vector<std::string> AwsRegions();
// Fraction of the on-demand price saved on spot for `family` ("m5"), in [0, 1).
double AwsSpotDiscount(std::string_view family);
// "<region>a", "<region>b", "<region>c".
std::vector<std::string> AwsZones(std::string_view region);

// Every built-in type, sorted by name. Fails for an unknown region or an unparseable quantity in
// the node settings.
core::Result<InstanceTypes> AwsInstanceTypes(const AwsCatalogOptions& options);

}  // namespace nodesmith::cloud
