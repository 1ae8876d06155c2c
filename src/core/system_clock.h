// SystemClock: the wall clock, for the operator's wiring and the clients below the controllers'
// seam. Controllers never see it: they get a Clock& (clock.h).
#pragma once

#include <chrono>

#include "core/clock.h"

namespace nodesmith::core {

// The system's real time now.
inline Time SystemNow() {
  return Time{std::chrono::duration_cast<std::chrono::nanoseconds>(
                  std::chrono::system_clock::now().time_since_epoch())
                  .count()};
}

class SystemClock : public Clock {
 public:
  Time Now() const override { return SystemNow(); }
};

}  // namespace nodesmith::core
