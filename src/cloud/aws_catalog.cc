#include "cloud/aws_catalog.h"

#include <cmath>

#include "cloud/aws_instance_data.h"
#include "cloud/ec2_instance_type.h"

namespace nodesmith::cloud {
namespace {

struct RegionFactor {
  std::string_view region;
  double factor;
};

// us-east-1 = 1. us-east-2 and us-west-2 list the same prices for these families. The rest are
// estimates: published m5.large on-demand Linux price in the region / us-east-1's $0.096.
constexpr RegionFactor kRegionFactors[] = {
    {"ap-northeast-1", 1.2917}, {"ap-northeast-2", 1.2292}, {"ap-south-1", 1.0521},
    {"ap-southeast-1", 1.25},   {"ap-southeast-2", 1.25},   {"ca-central-1", 1.1146},
    {"eu-central-1", 1.1979},   {"eu-north-1", 1.0625},     {"eu-west-1", 1.1146},
    {"eu-west-2", 1.1563},      {"eu-west-3", 1.1667},      {"sa-east-1", 1.5938},
    {"us-east-1", 1.0},         {"us-east-2", 1.0},         {"us-west-1", 1.1667},
    {"us-west-2", 1.0},
};

struct FamilyDiscount {
  std::string_view family;
  double discount;
};

// Typical spot savings by family (an estimate, see aws_catalog.h): older generations have more
// spare capacity and deeper discounts; the newest GPU generations the shallowest.
constexpr FamilyDiscount kSpotDiscounts[] = {
    {"c5", 0.62},   {"c5a", 0.62},  {"c5n", 0.60}, {"c6a", 0.58}, {"c6g", 0.58},  {"c6gn", 0.58},
    {"c6i", 0.58},  {"c7a", 0.52},  {"c7g", 0.52}, {"c7i", 0.52}, {"g4dn", 0.65}, {"g5", 0.60},
    {"g6", 0.55},   {"inf2", 0.65}, {"m5", 0.62},  {"m5a", 0.62}, {"m6a", 0.58},  {"m6g", 0.58},
    {"m6i", 0.58},  {"m7a", 0.52},  {"m7g", 0.52}, {"m7i", 0.52}, {"p3", 0.70},   {"p4d", 0.60},
    {"p5", 0.50},   {"r5", 0.62},   {"r5a", 0.62}, {"r6a", 0.58}, {"r6g", 0.58},  {"r6i", 0.58},
    {"r7a", 0.52},  {"r7g", 0.52},  {"r7i", 0.52}, {"t3", 0.65},  {"t3a", 0.65},  {"t4g", 0.65},
    {"trn1", 0.60},
};
constexpr double kDefaultSpotDiscount = 0.60;

// Prices are kept to a millionth of a dollar so estimates print cleanly.
double RoundPrice(double usd) { return std::round(usd * 1e6) / 1e6; }

}  // namespace

std::optional<double> AwsRegionPriceMultiplier(std::string_view region) {
  for (const auto& r : kRegionFactors) {
    if (r.region == region) return r.factor;
  }
  return std::nullopt;
}

std::vector<std::string> AwsRegions() {
  std::vector<std::string> out;
  for (const auto& r : kRegionFactors) out.emplace_back(r.region);
  return out;
}

double AwsSpotDiscount(std::string_view family) {
  for (const auto& f : kSpotDiscounts) {
    if (f.family == family) return f.discount;
  }
  return kDefaultSpotDiscount;
}

std::vector<std::string> AwsZones(std::string_view region) {
  std::string r(region);
  return {r + "a", r + "b", r + "c"};
}

core::Result<InstanceTypes> AwsInstanceTypes(const AwsCatalogOptions& options) {
  const std::optional<double> factor = AwsRegionPriceMultiplier(options.region);
  if (!factor) {
    std::string known;
    for (const auto& r : AwsRegions()) known += (known.empty() ? "" : ", ") + r;
    return core::Status::Invalid("region \"" + options.region +
                                 "\" is not in the aws catalog (known: " + known + ")");
  }
  const std::vector<std::string> zones = AwsZones(options.region);
  InstanceTypes out;
  out.reserve(AwsInstanceSpecs().size());
  for (const Ec2InstanceSpec& spec : AwsInstanceSpecs()) {
    const double on_demand = RoundPrice(spec.on_demand_price * *factor);
    double spot = RoundPrice(on_demand * (1 - AwsSpotDiscount(spec.family())));
    if (auto it = options.spot_prices.find(std::string(spec.name));
        it != options.spot_prices.end()) {
      spot = it->second;
    }
    std::vector<Offering> offerings;
    for (const std::string& zone : zones) {
      offerings.push_back(Offering{zone, kCapacityTypeSpot, spot, true, {}});
      offerings.push_back(Offering{zone, kCapacityTypeOnDemand, on_demand, true, {}});
    }
    auto it = NewEc2InstanceType(spec, options.region, options.node_settings, std::move(offerings));
    if (!it.ok()) return it.status();
    out.push_back(std::move(*it));
  }
  SortByName(out);
  return out;
}

}  // namespace nodesmith::cloud
