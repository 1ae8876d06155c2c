#include "cloud/sim/provider_id.h"

#include <cstdio>

namespace nodesmith::cloud::sim {

namespace {

constexpr std::string_view kScheme = "aws:///";

// SplitMix64's output function: a bijection on 64-bit values, so distinct inputs (seed plus a
// distinct multiple of an odd constant) give distinct ids.
uint64_t Mix(uint64_t z) {
  z = (z ^ (z >> 30)) * 0xbf58476d1ce4e5b9ULL;
  z = (z ^ (z >> 27)) * 0x94d049bb133111ebULL;
  return z ^ (z >> 31);
}

}  // namespace

std::string FormatProviderId(std::string_view zone, std::string_view instance_id) {
  std::string out(kScheme);
  out += zone;
  out += '/';
  out += instance_id;
  return out;
}

core::Result<ParsedProviderId> ParseProviderId(std::string_view provider_id) {
  auto invalid = [&] {
    return core::Status::Invalid("provider id \"" + std::string(provider_id) +
                                 "\" is not of the form aws:///<zone>/<instance-id>");
  };
  if (provider_id.substr(0, kScheme.size()) != kScheme) return invalid();
  std::string_view rest = provider_id.substr(kScheme.size());
  const size_t slash = rest.find('/');
  if (slash == std::string_view::npos || slash == 0 || slash + 1 == rest.size()) return invalid();
  std::string_view id = rest.substr(slash + 1);
  if (id.find('/') != std::string_view::npos) return invalid();
  return ParsedProviderId{std::string(rest.substr(0, slash)), std::string(id)};
}

std::string InstanceIdGenerator::Next() {
  ++counter_;
  const uint64_t bits = Mix(seed_ + counter_ * 0x9e3779b97f4a7c15ULL);
  char buf[32];
  std::snprintf(buf, sizeof(buf), "i-0%016llx", static_cast<unsigned long long>(bits));
  return buf;
}

}  // namespace nodesmith::cloud::sim
