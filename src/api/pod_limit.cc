#include "api/pod_limit.h"

namespace nodesmith::api {

core::Status PodLimit::Add(int64_t count, const std::string& what) {
  // limit_ - total_ is never negative, so the test cannot overflow; counts are replicas (int32),
  // so neither can the sum in the message.
  if (count > limit_ - total_) {
    return core::Status::Invalid(what + ": " + std::to_string(count) + " pods would make " +
                                 std::to_string(total_ + count) + " in all, more than the " +
                                 std::to_string(limit_) + " " + limited_);
  }
  total_ += count;
  return core::Status::Ok();
}

}  // namespace nodesmith::api
