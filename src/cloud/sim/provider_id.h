// Provider ids of simulated EC2 instances: "aws:///<zone>/i-<17 hex digits>", the form the
// AWS cloud provider writes into Node.spec.providerID and NodeClaim.status.providerID.
//
// InstanceIdGenerator derives ids from a seed and a counter, so the same seed gives the same
// sequence of ids in every run, and distinct counters never collide under one seed.
#pragma once

#include <cstdint>
#include <string>
#include <string_view>

#include "core/status.h"

namespace nodesmith::cloud::sim {

// "aws:///us-west-2a/i-0123456789abcdef0".
std::string FormatProviderId(std::string_view zone, std::string_view instance_id);

struct ParsedProviderId {
  std::string zone;
  std::string instance_id;
};
// The zone and instance id of an "aws:///<zone>/<instance-id>" provider id; InvalidArgument
// for anything else.
core::Result<ParsedProviderId> ParseProviderId(std::string_view provider_id);

class InstanceIdGenerator {
 public:
  explicit InstanceIdGenerator(uint64_t seed) : seed_(seed) {}

  // The next id: "i-" and 17 lowercase hex digits. Like EC2's long ids, the first digit is 0.
  std::string Next();
  // How many ids Next has returned.
  uint64_t count() const { return counter_; }

 private:
  uint64_t seed_;
  uint64_t counter_ = 0;
};

}  // namespace nodesmith::cloud::sim
