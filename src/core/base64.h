// Base64 (RFC 4648, with padding): EC2 user data, kubeconfig certificate data, recorded bodies.
#pragma once

#include <optional>
#include <string>
#include <string_view>

namespace nodesmith::core {

std::string Base64Encode(std::string_view data);
// Nothing when `text` is not padded standard base64.
std::optional<std::string> Base64Decode(std::string_view text);

}  // namespace nodesmith::core
