// EventLoop: a discrete-event scheduler over virtual time.
//
// Events are callbacks due at an instant. RunNext moves the FakeClock to the earliest due
// event and runs it; events due at the same instant run in the order they were scheduled, so a
// run is fully determined by its inputs. Callbacks may schedule further events. Owned by the
// simulator; controllers never see it (they see only the Clock).
#pragma once

#include <cstdint>
#include <functional>
#include <queue>
#include <string>
#include <vector>

#include "core/clock.h"

namespace nodesmith::runtime {

class EventLoop {
 public:
  explicit EventLoop(core::FakeClock& clock) : clock_(clock) {}

  // REQUIRES: at >= clock.Now() (earlier instants are run at Now()).
  void At(core::Time at, std::function<void()> fn);
  void After(core::Duration d, std::function<void()> fn) { At(clock_.Now() + d, std::move(fn)); }

  // Runs the earliest event; false when none is left.
  bool RunNext();
  // For a loop that follows the wall clock: when the earliest event is due at or before `now`,
  // sets the clock to `now` (never backwards), runs that event and returns true; false otherwise.
  bool RunNextDue(core::Time now);
  // Runs every event due at or before `end`, then sets the clock to `end`.
  void RunUntil(core::Time end);
  bool empty() const { return queue_.empty(); }
  size_t pending() const { return queue_.size(); }
  core::Time NextEventTime() const;  // REQUIRES: !empty()
  core::Time Now() const { return clock_.Now(); }

 private:
  struct Event {
    core::Time at;
    uint64_t seq;
    std::function<void()> fn;
    bool operator>(const Event& o) const { return at != o.at ? at > o.at : seq > o.seq; }
  };
  core::FakeClock& clock_;
  uint64_t next_seq_ = 0;
  std::priority_queue<Event, std::vector<Event>, std::greater<Event>> queue_;
};

}  // namespace nodesmith::runtime
