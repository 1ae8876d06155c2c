// SimulatedInstance: states as functions of time, skipped states, and EC2-style billing.
#include "cloud/sim/instance.h"

#include <gtest/gtest.h>

namespace nodesmith::cloud::sim {
namespace {

using std::chrono::minutes;
using std::chrono::seconds;

const core::Time kT0 = core::Time::FromUnixSeconds(1735689600);

SimulatedInstance Launched(double price = 0.36) {
  SimulatedInstance inst;
  inst.price_per_hour = price;
  inst.launch_time = kT0;
  inst.running_time = kT0 + seconds(3);
  return inst;
}

TEST(SimulatedInstance, WalksThroughItsStatesInOrder) {
  SimulatedInstance inst = Launched();
  inst.shutting_down_time = kT0 + minutes(10);
  inst.terminated_time = kT0 + minutes(10) + seconds(30);
  EXPECT_EQ(inst.StateAt(kT0), InstanceState::kPending);
  EXPECT_EQ(inst.StateAt(kT0 + seconds(3)), InstanceState::kRunning);
  EXPECT_EQ(inst.StateAt(kT0 + minutes(10)), InstanceState::kShuttingDown);
  EXPECT_EQ(inst.StateAt(kT0 + minutes(11)), InstanceState::kTerminated);
  EXPECT_EQ(inst.TimeOf(InstanceState::kStopped), std::nullopt);
  EXPECT_EQ(InstanceStateName(InstanceState::kShuttingDown), "shutting-down");
}

TEST(SimulatedInstance, AnInstanceEndedWhilePendingNeverRuns) {
  SimulatedInstance inst = Launched();
  inst.shutting_down_time = kT0 + seconds(1);
  inst.terminated_time = kT0 + seconds(1);
  EXPECT_EQ(inst.TimeOf(InstanceState::kRunning), std::nullopt);
  EXPECT_EQ(inst.StateAt(kT0 + seconds(3)), InstanceState::kTerminated);
  EXPECT_DOUBLE_EQ(inst.CostAt(kT0 + minutes(5)), 0);
}

TEST(SimulatedInstance, BillingStopsAtTheEarlierOfStoppedAndShuttingDown) {
  SimulatedInstance inst = Launched();
  inst.stopped_time = kT0 + seconds(3) + minutes(10);
  inst.shutting_down_time = kT0 + minutes(50);
  inst.terminated_time = kT0 + minutes(50);
  EXPECT_EQ(inst.BillingEnd(), inst.stopped_time);
  EXPECT_DOUBLE_EQ(inst.RunningSecondsAt(kT0 + minutes(60)), 600);
  EXPECT_DOUBLE_EQ(inst.CostAt(kT0 + minutes(60)), 0.36 * 600 / 3600);
}

TEST(SimulatedInstance, TheOneMinuteMinimumAppliesOnlyOnceBillingHasEnded) {
  SimulatedInstance inst = Launched(3.6);
  EXPECT_DOUBLE_EQ(inst.CostAt(kT0 + seconds(3 + 20)), 3.6 * 20 / 3600) << "still running";
  inst.shutting_down_time = kT0 + seconds(3 + 20);
  inst.terminated_time = inst.shutting_down_time;
  EXPECT_DOUBLE_EQ(inst.CostAt(kT0 + seconds(3 + 20)), 3.6 * 60 / 3600);
  EXPECT_DOUBLE_EQ(inst.RunningSecondsAt(kT0 + minutes(5)), 20);
}

}  // namespace
}  // namespace nodesmith::cloud::sim
