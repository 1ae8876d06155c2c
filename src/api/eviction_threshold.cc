#include "api/eviction_threshold.h"

#include <cstdlib>

namespace nodesmith::api {

core::Result<EvictionThreshold> ParseEvictionThreshold(const std::string& text) {
  EvictionThreshold out;
  if (!text.empty() && text.back() == '%') {
    const std::string number = text.substr(0, text.size() - 1);
    char* end = nullptr;
    const double p = std::strtod(number.c_str(), &end);
    // strtod also reads "inf", "nan" and hex; none is a percentage.
    const bool plain = number.find_first_not_of("0123456789.") == std::string::npos;
    if (number.empty() || !plain || end != number.c_str() + number.size() || p < 0 || p > 100) {
      return core::Status::Invalid("\"" + text + "\" is not a percentage between 0% and 100%");
    }
    out.percent = p;
    return out;
  }
  core::Result<Quantity> q = Quantity::Parse(text);
  if (!q.ok()) return q.status();
  if (q->Sign() < 0) return core::Status::Invalid("quantity \"" + text + "\" must not be negative");
  out.quantity = *q;
  return out;
}

}  // namespace nodesmith::api
