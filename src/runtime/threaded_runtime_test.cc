#include "runtime/threaded_runtime.h"

#include <gmock/gmock.h>
#include <gtest/gtest.h>

#include <atomic>
#include <chrono>
#include <functional>
#include <map>
#include <future>
#include <mutex>
#include <string>
#include <thread>
#include <vector>

#include "cluster/memory_cluster.h"
#include "core/system_clock.h"

namespace nodesmith::runtime {
namespace {

using std::chrono::milliseconds;

// A controller whose reconciles are recorded (on the runtime thread) with the time it was
// given; what it returns is up to the test.
class ProbeController : public Controller {
 public:
  ProbeController(std::string name, bool singleton, const core::Clock& clock)
      : name_(std::move(name)), singleton_(singleton), clock_(clock) {}
  std::string Name() const override { return name_; }
  std::vector<cluster::Kind> Watches() const override { return {cluster::Kind::kNode}; }
  bool Singleton() const override { return singleton_; }
  core::Result<ReconcileResult> Reconcile(const Request& request) override {
    {
      std::lock_guard<std::mutex> lock(mu_);
      calls_.push_back({clock_.Now(), request.name});
    }
    if (on_reconcile) return on_reconcile(request);
    return ReconcileResult::Done();
  }
  std::vector<std::pair<core::Time, std::string>> calls() const {
    std::lock_guard<std::mutex> lock(mu_);
    return calls_;
  }
  // Waits (real time) until at least `n` reconciles happened.
  bool WaitFor(size_t n, milliseconds timeout = milliseconds(10000)) const {
    const auto deadline = std::chrono::steady_clock::now() + timeout;
    while (std::chrono::steady_clock::now() < deadline) {
      if (calls().size() >= n) return true;
      std::this_thread::sleep_for(milliseconds(2));
    }
    return false;
  }

  std::function<core::Result<ReconcileResult>(const Request&)> on_reconcile;

 private:
  std::string name_;
  bool singleton_;
  const core::Clock& clock_;
  mutable std::mutex mu_;
  std::vector<std::pair<core::Time, std::string>> calls_;
};

api::Node NodeNamed(const std::string& name) {
  api::Node node;
  node.metadata.name = name;
  return node;
}

class ThreadedRuntimeTest : public ::testing::Test {
 protected:
  core::SystemClock wall_;
  cluster::MemoryCluster cluster_{wall_};
};

TEST_F(ThreadedRuntimeTest, ASingletonRunsOnceAtStartAndTheClockIsTheWallClock) {
  ThreadedRuntime runtime(cluster_, {});
  ProbeController probe("probe", /*singleton=*/true, runtime.clock());
  runtime.controllers().Register(probe);
  const core::Time before = core::SystemNow();
  runtime.Start();
  ASSERT_TRUE(probe.WaitFor(1));
  const core::Time after = core::SystemNow();
  runtime.Stop();
  ASSERT_EQ(probe.calls().size(), 1u);
  EXPECT_GE(probe.calls()[0].first, before);
  EXPECT_LE(probe.calls()[0].first, after);
}

TEST_F(ThreadedRuntimeTest, RequeueAfterWaitsThatLongOnTheWallClock) {
  ThreadedRuntime runtime(cluster_, {});
  ProbeController probe("probe", true, runtime.clock());
  std::atomic<int> n{0};
  probe.on_reconcile = [&](const Request&) -> core::Result<ReconcileResult> {
    if (n++ == 0) return ReconcileResult::RequeueAfter(milliseconds(150));
    return ReconcileResult::Done();
  };
  runtime.controllers().Register(probe);
  runtime.Start();
  ASSERT_TRUE(probe.WaitFor(2));
  runtime.Stop();
  const auto calls = probe.calls();
  EXPECT_GE(calls[1].first - calls[0].first, milliseconds(150));
  EXPECT_EQ(calls.size(), 2u);
}

TEST_F(ThreadedRuntimeTest, ChangesMadeOnTheRuntimeThreadTriggerReconciles) {
  ThreadedRuntime runtime(cluster_, {});
  ProbeController probe("probe", /*singleton=*/false, runtime.clock());
  runtime.controllers().Register(probe);
  runtime.Start();
  ASSERT_TRUE(runtime.RunSync([&] { ASSERT_TRUE(cluster_.Create(NodeNamed("n1")).ok()); }));
  ASSERT_TRUE(probe.WaitFor(1));
  runtime.Stop();
  EXPECT_EQ(probe.calls()[0].second, "n1");
}

TEST_F(ThreadedRuntimeTest, ThePumpAnnouncesChangesQueuedByOtherThreads) {
  // Stands in for the informers: another thread queues a change and wakes the runtime; the pump,
  // on the runtime thread, applies it to the cluster, whose watch enqueues the reconcile.
  std::mutex mu;
  std::vector<std::string> queued;
  ThreadedRuntimeOptions options;
  options.max_sleep = std::chrono::seconds(30);  // only Wake() can get the pump called soon
  options.pump = [&]() -> size_t {
    std::vector<std::string> names;
    {
      std::lock_guard<std::mutex> lock(mu);
      names.swap(queued);
    }
    for (const auto& name : names) EXPECT_TRUE(cluster_.Create(NodeNamed(name)).ok());
    return names.size();
  };
  ThreadedRuntime runtime(cluster_, options);
  ProbeController probe("probe", false, runtime.clock());
  runtime.controllers().Register(probe);
  runtime.Start();
  std::this_thread::sleep_for(milliseconds(50));  // the runtime is asleep now
  {
    std::lock_guard<std::mutex> lock(mu);
    queued.push_back("from-informer");
  }
  runtime.Wake();
  ASSERT_TRUE(probe.WaitFor(1, milliseconds(5000)));
  runtime.Stop();
  EXPECT_EQ(probe.calls()[0].second, "from-informer");
}

TEST_F(ThreadedRuntimeTest, StopLetsTheReconcileInFlightFinishAndStartsNoOther) {
  ThreadedRuntime runtime(cluster_, {});
  ProbeController probe("probe", true, runtime.clock());
  std::promise<void> entered;
  std::promise<void> release;
  std::shared_future<void> released = release.get_future().share();
  std::atomic<bool> finished{false};
  probe.on_reconcile = [&](const Request&) -> core::Result<ReconcileResult> {
    entered.set_value();
    released.wait();
    finished = true;
    return ReconcileResult::RequeueAfter(milliseconds(1));  // would run again at once
  };
  runtime.controllers().Register(probe);
  runtime.Start();
  entered.get_future().wait();
  std::thread stopper([&] { runtime.Stop(); });
  std::this_thread::sleep_for(milliseconds(50));
  EXPECT_FALSE(finished.load());  // Stop() waits for the reconcile in flight
  release.set_value();
  stopper.join();
  EXPECT_TRUE(finished.load());
  EXPECT_FALSE(runtime.running());
  EXPECT_EQ(probe.calls().size(), 1u);
  EXPECT_FALSE(runtime.RunSync([] {}));  // a stopped runtime runs nothing
}

TEST_F(ThreadedRuntimeTest, ErrorsAreRetriedWithBackoffAndObserved) {
  ThreadedRuntime runtime(cluster_, {});
  ProbeController probe("probe", true, runtime.clock());
  std::atomic<int> n{0};
  probe.on_reconcile = [&](const Request&) -> core::Result<ReconcileResult> {
    if (n++ < 2) return core::Status::Unavailable("not yet");
    return ReconcileResult::Done();
  };
  std::mutex mu;
  std::vector<std::string> outcomes;
  runtime.controllers().SetObservers(nullptr, [&](const std::string& c, const char* result) {
    std::lock_guard<std::mutex> lock(mu);
    outcomes.push_back(c + ":" + result);
  });
  runtime.controllers().Register(probe);
  runtime.Start();
  ASSERT_TRUE(probe.WaitFor(3));
  runtime.Stop();
  std::lock_guard<std::mutex> lock(mu);
  EXPECT_THAT(outcomes, ::testing::ElementsAre("probe:error", "probe:error", "probe:success"));
}

TEST_F(ThreadedRuntimeTest, ASlowControllerLetsTheOthersReadyWorkRunBeforeItsNextTurn) {
  // The wall clock is the test's: each reconcile of "slow" (a consolidation pass) takes 4 s of
  // it and asks to come back at once; "fast" (NodeClaim lifecycle) has five requests ready and
  // takes no time. Fast's five go between slow's first and second passes, not one per pass.
  std::atomic<int64_t> wall{1'700'000'000'000'000'000};
  ThreadedRuntimeOptions options;
  options.now = [&] { return core::Time{wall.load()}; };
  options.max_sleep = milliseconds(5);
  for (const char* name : {"n1", "n2", "n3", "n4", "n5"}) {
    ASSERT_TRUE(cluster_.Create(NodeNamed(name)).ok());
  }
  ThreadedRuntime runtime(cluster_, options);
  std::mutex mu;
  std::vector<std::string> order;
  auto record = [&](const std::string& what) {
    std::lock_guard<std::mutex> lock(mu);
    order.push_back(what);
  };
  ProbeController slow("slow", /*singleton=*/true, runtime.clock());
  int passes = 0;
  slow.on_reconcile = [&](const Request&) -> core::Result<ReconcileResult> {
    record("slow");
    wall += std::chrono::nanoseconds(std::chrono::seconds(4)).count();
    if (++passes < 3) return ReconcileResult::RequeueAfter(std::chrono::nanoseconds(1));
    return ReconcileResult::Done();
  };
  ProbeController fast("fast", /*singleton=*/false, runtime.clock());
  fast.on_reconcile = [&](const Request& r) -> core::Result<ReconcileResult> {
    record(r.name);
    return ReconcileResult::Done();
  };
  runtime.controllers().Register(slow);
  runtime.controllers().Register(fast);
  runtime.Start();
  ASSERT_TRUE(slow.WaitFor(3));
  ASSERT_TRUE(fast.WaitFor(5));
  runtime.Stop();
  std::lock_guard<std::mutex> lock(mu);
  EXPECT_THAT(order, ::testing::ElementsAre("slow", "n1", "n2", "n3", "n4", "n5", "slow", "slow"));
}

TEST_F(ThreadedRuntimeTest, ControllersWithSlowReconcilesShareTheThreadByTime) {
  // "a" takes 3 s a reconcile and "b" 1 s, both always wanting more: b gets about three turns
  // for each of a's, so each has about half of the thread.
  std::atomic<int64_t> wall{1'700'000'000'000'000'000};
  ThreadedRuntimeOptions options;
  options.now = [&] { return core::Time{wall.load()}; };
  options.max_sleep = milliseconds(5);
  ThreadedRuntime runtime(cluster_, options);
  std::mutex mu;
  std::map<std::string, int64_t> busy;  // seconds of the thread each got
  std::atomic<int> total{0};
  auto taking = [&](const std::string& name, int secs) {
    return [&, name, secs](const Request&) -> core::Result<ReconcileResult> {
      {
        std::lock_guard<std::mutex> lock(mu);
        busy[name] += secs;
      }
      wall += std::chrono::nanoseconds(std::chrono::seconds(secs)).count();
      ++total;
      return ReconcileResult::RequeueAfter(std::chrono::nanoseconds(1));
    };
  };
  ProbeController a("a", true, runtime.clock());
  ProbeController b("b", true, runtime.clock());
  a.on_reconcile = taking("a", 3);
  b.on_reconcile = taking("b", 1);
  runtime.controllers().Register(a);
  runtime.controllers().Register(b);
  runtime.Start();
  ASSERT_TRUE(a.WaitFor(10));
  runtime.Stop();
  std::lock_guard<std::mutex> lock(mu);
  const double share = double(busy["a"]) / double(busy["a"] + busy["b"]);
  EXPECT_GT(share, 0.4) << busy["a"] << " s of a, " << busy["b"] << " s of b";
  EXPECT_LT(share, 0.6) << busy["a"] << " s of a, " << busy["b"] << " s of b";
}

}  // namespace
}  // namespace nodesmith::runtime
