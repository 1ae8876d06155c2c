#include "controllers/feature_gates.h"

#include <sstream>

namespace nodesmith::controllers {

core::Result<FeatureGates> ParseFeatureGates(const std::string& text) {
  static const char* const kKnown[] = {"SpotToSpotConsolidation", "NodeRepair", "ReservedCapacity",
                                       "NodeOverlay", "StaticCapacity", "CapacityBuffer"};
  FeatureGates gates;
  std::stringstream in(text);
  std::string item;
  while (std::getline(in, item, ',')) {
    if (item.empty()) continue;
    auto eq = item.find('=');
    std::string name = item.substr(0, eq);
    std::string value = eq == std::string::npos ? "" : item.substr(eq + 1);
    bool known = false;
    for (const char* k : kKnown) known = known || name == k;
    if (!known) return core::Status::Invalid("--feature-gates: unknown feature gate " + name);
    if (value != "true" && value != "false") {
      return core::Status::Invalid("--feature-gates: " + name + " must be true or false");
    }
    if (name == "SpotToSpotConsolidation") gates.spot_to_spot_consolidation = value == "true";
    if (name == "NodeRepair") gates.node_repair = value == "true";
  }
  return gates;
}

}  // namespace nodesmith::controllers
