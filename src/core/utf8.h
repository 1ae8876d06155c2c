// UTF-8 validity. Text nodesmith reads may hold any bytes; text it writes as JSON, Prometheus
// exposition or a Kubernetes object must be UTF-8, so input is checked where it comes in.
#pragma once

#include <string_view>

namespace nodesmith::core {

// True when `s` is well-formed UTF-8: no stray continuation bytes, truncated sequences, overlong
// forms, surrogates or code points past U+10FFFF.
bool IsValidUtf8(std::string_view s);

}  // namespace nodesmith::core
