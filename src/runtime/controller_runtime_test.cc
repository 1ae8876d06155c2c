#include "runtime/controller_runtime.h"

#include <gmock/gmock.h>
#include <gtest/gtest.h>

#include <functional>
#include <string>
#include <utility>
#include <vector>

#include "cluster/memory_cluster.h"

namespace nodesmith::runtime {
namespace {

using std::chrono::milliseconds;
using std::chrono::seconds;
using ::testing::ElementsAre;

constexpr core::Time kStart{1'700'000'000'000'000'000};

struct Call {
  core::Duration at;  // since kStart
  std::string controller;
  Request request;
  bool operator==(const Call&) const = default;
};

void PrintTo(const Call& c, std::ostream* os) {
  *os << "{" << core::FormatDuration(c.at) << " " << c.controller << " " << c.request.namespace_
      << "/" << c.request.name << "}";
}

// Records every reconcile; what it returns is up to the test.
class RecordingController : public Controller {
 public:
  RecordingController(std::string name, std::vector<cluster::Kind> watches, bool singleton,
                      const core::Clock& clock, std::vector<Call>* calls)
      : name_(std::move(name)),
        watches_(std::move(watches)),
        singleton_(singleton),
        clock_(clock),
        calls_(calls) {}

  std::string Name() const override { return name_; }
  std::vector<cluster::Kind> Watches() const override { return watches_; }
  bool Singleton() const override { return singleton_; }
  core::Result<ReconcileResult> Reconcile(const Request& request) override {
    calls_->push_back(Call{clock_.Now() - kStart, name_, request});
    if (on_reconcile) return on_reconcile(request);
    return ReconcileResult::Done();
  }

  std::function<core::Result<ReconcileResult>(const Request&)> on_reconcile;

 private:
  std::string name_;
  std::vector<cluster::Kind> watches_;
  bool singleton_;
  const core::Clock& clock_;
  std::vector<Call>* calls_;
};

api::Pod MakePod(const std::string& name) {
  api::Pod pod;
  pod.metadata.name = name;
  pod.metadata.namespace_ = "default";
  return pod;
}

api::Node MakeNode(const std::string& name) {
  api::Node node;
  node.metadata.name = name;
  return node;
}

class SimulatedRuntimeTest : public ::testing::Test {
 protected:
  void RunAll() {
    while (loop_.RunNext()) {
    }
  }
  void AddLabel(const std::string& pod_name, const std::string& value) {
    auto pod = cluster_.Get<api::Pod>("default", pod_name);
    ASSERT_TRUE(pod.ok());
    pod->metadata.labels["v"] = value;
    ASSERT_TRUE(cluster_.Update(*pod).ok());
  }

  core::FakeClock clock_{kStart};
  EventLoop loop_{clock_};
  cluster::MemoryCluster cluster_{clock_};
  SimulatedRuntime runtime_{loop_, cluster_};
  std::vector<Call> calls_;
};

TEST_F(SimulatedRuntimeTest, ASingletonRunsOnceAtStartWithTheEmptyRequest) {
  RecordingController provisioner("provisioner", {cluster::Kind::kPod}, true, clock_, &calls_);
  runtime_.Register(provisioner);
  RunAll();
  EXPECT_THAT(calls_, ElementsAre(Call{seconds(0), "provisioner", Request{}}));
}

TEST_F(SimulatedRuntimeTest, ChangesAtOneInstantCollapseIntoOneSingletonReconcile) {
  RecordingController provisioner("provisioner", {cluster::Kind::kPod}, true, clock_, &calls_);
  runtime_.Register(provisioner);
  RunAll();
  calls_.clear();
  loop_.After(seconds(5), [&] {
    ASSERT_TRUE(cluster_.Create(MakePod("a")).ok());
    ASSERT_TRUE(cluster_.Create(MakePod("b")).ok());
    ASSERT_TRUE(cluster_.Create(MakePod("c")).ok());
  });
  RunAll();
  EXPECT_THAT(calls_, ElementsAre(Call{seconds(5), "provisioner", Request{}}));
  EXPECT_EQ(runtime_.ReconcileCount("provisioner"), 2);
}

TEST_F(SimulatedRuntimeTest, ObjectsPresentAtRegistrationAreReconciledByKey) {
  ASSERT_TRUE(cluster_.Create(MakeNode("n2")).ok());
  ASSERT_TRUE(cluster_.Create(MakeNode("n1")).ok());
  RecordingController nodes("node", {cluster::Kind::kNode}, false, clock_, &calls_);
  runtime_.Register(nodes);
  RunAll();
  EXPECT_THAT(calls_, ElementsAre(Call{seconds(0), "node", Request{"", "n1"}},
                                  Call{seconds(0), "node", Request{"", "n2"}}));
}

TEST_F(SimulatedRuntimeTest, AChangeEnqueuesTheChangedObjectsKeyOnceUntilItRuns) {
  RecordingController pods("pod", {cluster::Kind::kPod}, false, clock_, &calls_);
  runtime_.Register(pods);
  loop_.After(seconds(1), [&] {
    ASSERT_TRUE(cluster_.Create(MakePod("web")).ok());
    AddLabel("web", "1");
    AddLabel("web", "2");
    ASSERT_TRUE(cluster_.Create(MakePod("db")).ok());
  });
  RunAll();
  EXPECT_THAT(calls_, ElementsAre(Call{seconds(1), "pod", Request{"default", "web"}},
                                  Call{seconds(1), "pod", Request{"default", "db"}}));
}

TEST_F(SimulatedRuntimeTest, ChangesOfUnwatchedKindsDoNotTrigger) {
  RecordingController pods("pod", {cluster::Kind::kPod}, false, clock_, &calls_);
  runtime_.Register(pods);
  ASSERT_TRUE(cluster_.Create(MakeNode("n1")).ok());
  RunAll();
  EXPECT_TRUE(calls_.empty());
  EXPECT_EQ(runtime_.ReconcileCount("pod"), 0);
}

TEST_F(SimulatedRuntimeTest, DeletionsAreReconciledToo) {
  ASSERT_TRUE(cluster_.Create(MakePod("web")).ok());
  RecordingController pods("pod", {cluster::Kind::kPod}, false, clock_, &calls_);
  runtime_.Register(pods);
  RunAll();
  calls_.clear();
  loop_.After(seconds(2), [&] { ASSERT_TRUE(cluster_.Delete<api::Pod>("default", "web").ok()); });
  RunAll();
  EXPECT_THAT(calls_, ElementsAre(Call{seconds(2), "pod", Request{"default", "web"}}));
}

TEST_F(SimulatedRuntimeTest, RequeueAfterCallsAgainWhenTheTimeComes) {
  RecordingController batcher("batcher", {}, true, clock_, &calls_);
  int n = 0;
  batcher.on_reconcile = [&](const Request&) -> core::Result<ReconcileResult> {
    if (++n < 3) return ReconcileResult::RequeueAfter(seconds(30));
    return ReconcileResult::Done();
  };
  runtime_.Register(batcher);
  RunAll();
  EXPECT_THAT(calls_, ElementsAre(Call{seconds(0), "batcher", Request{}},
                                  Call{seconds(30), "batcher", Request{}},
                                  Call{seconds(60), "batcher", Request{}}));
}

TEST_F(SimulatedRuntimeTest, AChangeBeforeTheRequeueTimeRunsNowAndTheRequeueStillFires) {
  RecordingController pods("pod", {cluster::Kind::kPod}, false, clock_, &calls_);
  bool first = true;
  pods.on_reconcile = [&](const Request&) -> core::Result<ReconcileResult> {
    if (first) {
      first = false;
      return ReconcileResult::RequeueAfter(seconds(30));
    }
    return ReconcileResult::Done();
  };
  ASSERT_TRUE(cluster_.Create(MakePod("web")).ok());
  runtime_.Register(pods);
  loop_.After(seconds(10), [&] { AddLabel("web", "x"); });
  RunAll();
  EXPECT_THAT(calls_, ElementsAre(Call{seconds(0), "pod", Request{"default", "web"}},
                                  Call{seconds(10), "pod", Request{"default", "web"}},
                                  Call{seconds(30), "pod", Request{"default", "web"}}));
}

// In a real cluster a change can wait behind other reconciles on the runtime's one thread; the
// reconcile it asks for is told, per kind, when the latest such change was observed, and a
// timer's reconcile is told of none.
TEST_F(SimulatedRuntimeTest, AReconcileIsToldWhenTheLatestChangeOfEachKindWasObserved) {
  RecordingController provisioner("provisioner", {cluster::Kind::kPod, cluster::Kind::kNode}, true,
                                   clock_, &calls_);
  RecordingController pods("pod", {cluster::Kind::kPod}, false, clock_, &calls_);
  using Stamps = std::map<cluster::Kind, core::Duration>;
  std::vector<std::pair<std::string, Stamps>> told;
  auto record = [&](const std::string& who) {
    return [&, who](const Request& r) -> core::Result<ReconcileResult> {
      Stamps since_start;
      for (const auto& [kind, at] : r.changed_at) since_start[kind] = at - kStart;
      told.emplace_back(who + " " + r.name, since_start);
      if (who == "provisioner" && !r.changed_at.empty()) {
        return ReconcileResult::RequeueAfter(seconds(1));
      }
      return ReconcileResult::Done();
    };
  };
  provisioner.on_reconcile = record("provisioner");
  pods.on_reconcile = record("pod");
  runtime_.Register(provisioner);
  runtime_.Register(pods);
  RunAll();
  told.clear();

  ASSERT_TRUE(cluster_.Create(MakePod("a")).ok());
  clock_.Step(milliseconds(10));
  ASSERT_TRUE(cluster_.Create(MakeNode("n")).ok());
  clock_.Step(milliseconds(20));
  ASSERT_TRUE(cluster_.Create(MakePod("b")).ok());
  clock_.Step(milliseconds(40));  // the thread was busy: nothing ran for 70 ms
  RunAll();
  using Told = std::pair<std::string, Stamps>;
  const Stamps both{{cluster::Kind::kPod, milliseconds(30)}, {cluster::Kind::kNode, milliseconds(10)}};
  EXPECT_THAT(told, ElementsAre(Told{"provisioner ", both},
                                Told{"pod a", Stamps{{cluster::Kind::kPod, milliseconds(0)}}},
                                Told{"pod b", Stamps{{cluster::Kind::kPod, milliseconds(30)}}},
                                Told{"provisioner ", Stamps{}}));
}

TEST_F(SimulatedRuntimeTest, ALaterRequeueDoesNotPostponeAnEarlierOne) {
  RecordingController c("c", {}, true, clock_, &calls_);
  int n = 0;
  c.on_reconcile = [&](const Request&) -> core::Result<ReconcileResult> {
    ++n;
    return ReconcileResult::Done();
  };
  runtime_.Register(c);
  RunAll();  // the start-up reconcile
  ASSERT_TRUE(runtime_.EnqueueAfter("c", Request{}, seconds(10)).ok());
  ASSERT_TRUE(runtime_.EnqueueAfter("c", Request{}, seconds(60)).ok());
  RunAll();
  EXPECT_THAT(calls_,
              ElementsAre(Call{seconds(0), "c", Request{}}, Call{seconds(10), "c", Request{}}));
}

TEST_F(SimulatedRuntimeTest, ErrorsRetryWithExponentialBackoffAndReachTheHook) {
  RecordingController c("flaky", {}, true, clock_, &calls_);
  int n = 0;
  c.on_reconcile = [&](const Request&) -> core::Result<ReconcileResult> {
    if (++n <= 4) return core::Status::Unavailable("cloud says no #" + std::to_string(n));
    return ReconcileResult::Done();
  };
  std::vector<std::string> logged;
  runtime_.Register(
      c, [&](const Request&, const core::Status& st) { logged.push_back(st.message()); });
  RunAll();
  EXPECT_THAT(calls_, ElementsAre(Call{milliseconds(0), "flaky", Request{}},
                                  Call{milliseconds(5), "flaky", Request{}},
                                  Call{milliseconds(15), "flaky", Request{}},
                                  Call{milliseconds(35), "flaky", Request{}},
                                  Call{milliseconds(75), "flaky", Request{}}));
  EXPECT_THAT(logged, ElementsAre("cloud says no #1", "cloud says no #2", "cloud says no #3",
                                  "cloud says no #4"));
  EXPECT_EQ(runtime_.ReconcileCount("flaky"), 5);
  EXPECT_EQ(runtime_.ErrorCount("flaky"), 4);
}

TEST_F(SimulatedRuntimeTest, SuccessResetsTheBackoff) {
  RecordingController c("flaky", {}, true, clock_, &calls_);
  int n = 0;
  // fail, fail, succeed, fail: the last failure waits 5 ms again, not 20 ms.
  c.on_reconcile = [&](const Request&) -> core::Result<ReconcileResult> {
    ++n;
    if (n == 3) return ReconcileResult::RequeueAfter(seconds(1));
    if (n <= 4) return core::Status::Internal("boom");
    return ReconcileResult::Done();
  };
  runtime_.Register(c);
  RunAll();
  ASSERT_EQ(calls_.size(), 5u);
  EXPECT_EQ(calls_[1].at, milliseconds(5));
  EXPECT_EQ(calls_[2].at, milliseconds(15));
  EXPECT_EQ(calls_[3].at, milliseconds(1015));
  EXPECT_EQ(calls_[4].at, milliseconds(1020));
}

TEST_F(SimulatedRuntimeTest, AZeroRequeueAfterIsARateLimitedRequeue) {
  RecordingController c("c", {}, true, clock_, &calls_);
  int n = 0;
  c.on_reconcile = [&](const Request&) -> core::Result<ReconcileResult> {
    if (++n < 3) return ReconcileResult::RequeueAfter(seconds(0));
    return ReconcileResult::Done();
  };
  runtime_.Register(c);
  RunAll();
  EXPECT_THAT(calls_, ElementsAre(Call{milliseconds(0), "c", Request{}},
                                  Call{milliseconds(5), "c", Request{}},
                                  Call{milliseconds(15), "c", Request{}}));
}

TEST_F(SimulatedRuntimeTest, AChangeMadeDuringItsOwnReconcileRunsItAgainAfterwards) {
  ASSERT_TRUE(cluster_.Create(MakePod("web")).ok());
  RecordingController pods("pod", {cluster::Kind::kPod}, false, clock_, &calls_);
  int depth = 0;
  int max_depth = 0;
  pods.on_reconcile = [&](const Request& r) -> core::Result<ReconcileResult> {
    ++depth;
    max_depth = std::max(max_depth, depth);
    auto pod = cluster_.Get<api::Pod>(r.namespace_, r.name);
    if (pod.ok() && !pod->metadata.labels.contains("seen")) {
      pod->metadata.labels["seen"] = "true";
      if (!cluster_.Update(*pod).ok()) return core::Status::Internal("update failed");
    }
    --depth;
    return ReconcileResult::Done();
  };
  runtime_.Register(pods);
  RunAll();
  EXPECT_EQ(calls_.size(), 2u) << "once for the create, once for its own label change";
  EXPECT_EQ(max_depth, 1) << "reconciles never nest";
}

TEST_F(SimulatedRuntimeTest, ControllersTakeTurnsOneReconcilePerEvent) {
  RecordingController a("a", {cluster::Kind::kNode}, false, clock_, &calls_);
  RecordingController b("b", {cluster::Kind::kNode}, false, clock_, &calls_);
  runtime_.Register(a);
  runtime_.Register(b);
  loop_.After(seconds(1), [&] {
    ASSERT_TRUE(cluster_.Create(MakeNode("n1")).ok());
    ASSERT_TRUE(cluster_.Create(MakeNode("n2")).ok());
  });
  RunAll();
  EXPECT_THAT(calls_, ElementsAre(Call{seconds(1), "a", Request{"", "n1"}},
                                  Call{seconds(1), "b", Request{"", "n1"}},
                                  Call{seconds(1), "a", Request{"", "n2"}},
                                  Call{seconds(1), "b", Request{"", "n2"}}));
  EXPECT_THAT(runtime_.Controllers(), ElementsAre("a", "b"));
}

TEST_F(SimulatedRuntimeTest, EnqueueReachesOnlyKnownControllers) {
  RecordingController c("c", {cluster::Kind::kNode}, false, clock_, &calls_);
  runtime_.Register(c);
  ASSERT_TRUE(runtime_.Enqueue("c", Request{"", "n9"}).ok());
  EXPECT_EQ(runtime_.QueueLength("c"), 1u);
  EXPECT_EQ(runtime_.Enqueue("nope", Request{}).code(), core::StatusCode::kNotFound);
  RunAll();
  EXPECT_THAT(calls_, ElementsAre(Call{seconds(0), "c", Request{"", "n9"}}));
  EXPECT_EQ(runtime_.ReconcileCount("nope"), 0);
}

TEST(SimulatedRuntimeLifetimeTest, ADestroyedRuntimeIgnoresLaterChangesAndEvents) {
  core::FakeClock clock(kStart);
  EventLoop loop(clock);
  cluster::MemoryCluster cluster(clock);
  std::vector<Call> calls;
  RecordingController c("c", {cluster::Kind::kNode}, true, clock, &calls);
  {
    SimulatedRuntime runtime(loop, cluster);
    runtime.Register(c);
  }
  ASSERT_TRUE(cluster.Create(MakeNode("n1")).ok());
  while (loop.RunNext()) {
  }
  EXPECT_TRUE(calls.empty());
}

}  // namespace
}  // namespace nodesmith::runtime
