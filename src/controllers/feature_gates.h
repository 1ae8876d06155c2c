// FeatureGates: Karpenter's FEATURE_GATES setting ("SpotToSpotConsolidation=true,NodeRepair=false"),
// shared by every command that runs the controllers (plan, disrupt, simulate, controller).
#pragma once

#include <string>

#include "core/status.h"

namespace nodesmith::controllers {

// Karpenter's defaults. Only the gates that change what nodesmith does are kept; the others are
// accepted and ignored.
struct FeatureGates {
  bool spot_to_spot_consolidation = false;  // SpotToSpotConsolidation
  bool node_repair = false;                 // NodeRepair
};

// The default value of FEATURE_GATES, as Karpenter's operator options write it.
inline constexpr const char* kDefaultFeatureGates =
    "NodeRepair=false,ReservedCapacity=true,SpotToSpotConsolidation=false,NodeOverlay=false,"
    "StaticCapacity=false,CapacityBuffer=false";

// Parses the gates. InvalidArgument, naming the flag, for a gate Karpenter does not know or a
// value other than true/false.
core::Result<FeatureGates> ParseFeatureGates(const std::string& text);

}  // namespace nodesmith::controllers
