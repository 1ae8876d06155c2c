// Clock: the only way controllers learn the time.
//
// A controller holds a Clock& and asks it for Now(); it never reads the system clock. The
// operator wires SystemClock (core/system_clock.h); tests and the simulator wire FakeClock, whose
// time moves only when told to. Implementations must be safe to call from the thread that owns
// the controller; FakeClock is not thread-safe.
#pragma once

#include "core/time.h"

namespace nodesmith::core {

class Clock {
 public:
  virtual ~Clock() = default;
  virtual Time Now() const = 0;
};

// A clock that stands still until Set or Step is called.
class FakeClock : public Clock {
 public:
  explicit FakeClock(Time start) : now_(start) {}
  Time Now() const override { return now_; }
  void Set(Time t) { now_ = t; }
  void Step(Duration d) { now_ = now_ + d; }

 private:
  Time now_;
};

}  // namespace nodesmith::core
