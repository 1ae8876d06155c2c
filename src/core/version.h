// The version nodesmith reports: in the user agent, `karpenter_build_info`, and logs.
#pragma once

namespace nodesmith::core {

#ifndef NODESMITH_VERSION
#define NODESMITH_VERSION "0.0.0-dev"
#endif
inline constexpr const char* kVersion = NODESMITH_VERSION;

}  // namespace nodesmith::core
