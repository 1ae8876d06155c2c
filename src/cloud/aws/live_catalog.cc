#include "cloud/aws/live_catalog.h"

#include <utility>

#include "cloud/aws/instance_type_decoder.h"
#include "cloud/aws/pricing.h"
#include "scheduling/well_known_labels.h"

namespace nodesmith::aws {
namespace {

// A warning is one line: an error from a proxy or a stand-in endpoint may carry a whole HTML page.
std::string OneLine(const std::string& message) {
  const size_t end = message.find('\n');
  return end == std::string::npos ? message : message.substr(0, end) + " ...";
}

}  // namespace

core::Result<cloud::Catalog> LoadLiveCatalog(AwsSession& session, const core::Clock& clock,
                                             const LiveCatalogOptions& options,
                                             std::vector<std::string>* warnings) {
  Ec2Client& ec2 = session.ec2();
  auto pages = ec2.DescribeInstanceTypesPages(InstanceTypeFilters());
  if (!pages.ok()) return pages.status().WithPrefix("describing instance types");
  auto offerings = ec2.DescribeInstanceTypeOfferings();
  if (!offerings.ok()) return offerings.status().WithPrefix("describing instance type offerings");

  PriceBook prices;
  if (options.isolated_vpc) {
    warnings->push_back("isolated VPC: on-demand prices from the built-in table");
  } else if (auto on_demand = FetchOnDemandPrices(session.pricing(), session.region()); on_demand.ok()) {
    prices = std::move(*on_demand);
  } else {
    warnings->push_back("on-demand prices from the built-in table: " + OneLine(on_demand.status().message()));
  }
  if (auto spot = FetchSpotPrices(ec2, {}, clock.Now()); spot.ok()) {
    prices.Merge(*spot);
  } else {
    warnings->push_back("no spot prices, spot offerings priced as on-demand: " + OneLine(spot.status().message()));
  }

  auto types = LiveInstanceTypes(*pages, *offerings, prices, session.region(), options.node_settings);
  if (!types.ok()) return types.status();
  return cloud::Catalog{kLiveCatalogName, session.region(), std::move(*types), scheduling::WellKnownLabels()};
}

}  // namespace nodesmith::aws
