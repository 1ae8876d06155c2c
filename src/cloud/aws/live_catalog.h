// The instance types an AWS account offers in its region, read from the live APIs as Karpenter-AWS
// reads them at start: DescribeInstanceTypes (its filters), DescribeInstanceTypeOfferings,
// pricing:GetProducts for on-demand and DescribeSpotPriceHistory for spot prices; the same
// cloud::Catalog the built-in `aws` catalog gives, so `nodesmith catalog --catalog aws-live`
// and the built-in table can be compared type by type.
//
// Prices fall back as Karpenter's do: without the Pricing API (ISOLATED_VPC, or a failed call)
// on-demand prices come from the built-in table; without spot quotes a type's spot price is its
// on-demand price. Each fallback adds a warning; only the EC2 describe calls are required.
#pragma once

#include <string>
#include <vector>

#include "cloud/aws/aws_session.h"
#include "cloud/catalog.h"
#include "cloud/ec2_overhead.h"
#include "core/clock.h"
#include "core/status.h"

namespace nodesmith::aws {

// The catalog's name where one is chosen (--catalog, CATALOG) and its Catalog::source.
inline constexpr const char* kLiveCatalogName = "aws-live";

struct LiveCatalogOptions {
  cloud::Ec2NodeSettings node_settings;  // from the EC2NodeClass, if any
  bool isolated_vpc = false;             // no Pricing API: the built-in on-demand prices
};

// The region's instance types, source "aws-live". `warnings` receives one line per fallback.
core::Result<cloud::Catalog> LoadLiveCatalog(AwsSession& session, const core::Clock& clock,
                                             const LiveCatalogOptions& options,
                                             std::vector<std::string>* warnings);

}  // namespace nodesmith::aws
