// The election's rules on an in-memory Lease with optimistic concurrency, driven round by round
// on a fake monotonic clock (and Run() on real time with short durations).
#include "kube/leader_elector.h"

#include <gmock/gmock.h>
#include <gtest/gtest.h>

#include <netinet/in.h>
#include <sys/socket.h>
#include <unistd.h>

#include <regex>
#include <vector>

namespace nodesmith::kube {
namespace {

using std::chrono::milliseconds;
using std::chrono::seconds;
using SteadyClock = std::chrono::steady_clock;

// One Lease in memory, with resourceVersion preconditions as the API server checks them. Shared
// by the electors of a test; thread-safe.
struct LeaseStore {
  std::mutex mu;
  std::optional<Json> lease;
  int version = 0;
  int gets = 0, creates = 0, updates = 0;
  bool fail = false;                    // every request answers 503
  std::function<void()> before_update;  // runs (unlocked) before an update is checked
  std::function<void()> on_get;         // runs (unlocked) as a read is answered

  core::Result<Json> Get() {
    if (on_get) on_get();
    std::lock_guard<std::mutex> l(mu);
    ++gets;
    if (fail) return core::Status::Unavailable("503");
    if (!lease) return core::Status::NotFound("lease not found");
    return *lease;
  }
  core::Result<Json> Create(const Json& object) {
    std::lock_guard<std::mutex> l(mu);
    ++creates;
    if (fail) return core::Status::Unavailable("503");
    if (lease) return core::Status(core::StatusCode::kAlreadyExists, "already exists");
    lease = object;
    (*lease)["metadata"]["resourceVersion"] = std::to_string(++version);
    return *lease;
  }
  core::Result<Json> Update(const Json& object) {
    if (before_update) before_update();
    std::lock_guard<std::mutex> l(mu);
    ++updates;
    if (fail) return core::Status::Unavailable("503");
    if (!lease) return core::Status::NotFound("lease not found");
    if (object["metadata"].value("resourceVersion", "") !=
        (*lease)["metadata"].value("resourceVersion", ""))
      return core::Status(core::StatusCode::kConflict, "conflict: stale");
    lease = object;
    (*lease)["metadata"]["resourceVersion"] = std::to_string(++version);
    return *lease;
  }
  Json Spec() {
    std::lock_guard<std::mutex> l(mu);
    return lease ? (*lease)["spec"] : Json();
  }
  // Someone else writes the Lease (a new resourceVersion and, here, a new renewTime).
  void Touch(const std::string& holder, const std::string& renew_time) {
    std::lock_guard<std::mutex> l(mu);
    (*lease)["spec"]["holderIdentity"] = holder;
    (*lease)["spec"]["renewTime"] = renew_time;
    (*lease)["metadata"]["resourceVersion"] = std::to_string(++version);
  }
};

class FakeLock : public LeaseLock {
 public:
  explicit FakeLock(LeaseStore& store) : store_(store) {}
  core::Result<Json> Get(const std::string& ns, const std::string& name, Timeout timeout) override {
    EXPECT_EQ(ns, "kube-system");
    EXPECT_EQ(name, "karpenter-leader-election");
    timeouts.push_back(timeout);
    return store_.Get();
  }
  core::Result<Json> Create(const std::string&, const Json& lease, Timeout timeout) override {
    timeouts.push_back(timeout);
    return store_.Create(lease);
  }
  core::Result<Json> Update(const std::string&, const std::string&, const Json& lease,
                            Timeout timeout) override {
    timeouts.push_back(timeout);
    return store_.Update(lease);
  }
  std::vector<Timeout> timeouts;  // what each request was given, in order

 private:
  LeaseStore& store_;
};

struct FakeClocks {
  SteadyClock::time_point now{};
  core::Time wall = core::Time::FromUnixSeconds(1796119200);  // 2026-12-01T10:00:00Z
};

std::unique_ptr<LeaderElector> NewElector(LeaseStore& store, FakeClocks& clocks,
                                          const std::string& identity,
                                          std::vector<std::string>* leaders = nullptr) {
  LeaderElectorOptions o;
  o.namespace_ = "kube-system";
  o.identity = identity;
  o.now = [&clocks] { return clocks.now; };
  o.wall_now = [&clocks] { return clocks.wall; };
  if (leaders != nullptr)
    o.on_new_leader = [leaders](const std::string& id) { leaders->push_back(id); };
  auto e = LeaderElector::Create(std::make_unique<FakeLock>(store), o);
  EXPECT_TRUE(e.ok()) << e.status().message();
  return std::move(e).value();
}

TEST(LeaderElectorTest, CreatesTheLeaseWhenThereIsNone) {
  LeaseStore store;
  FakeClocks clocks;
  std::vector<std::string> leaders;
  auto a = NewElector(store, clocks, "node-a_1", &leaders);
  EXPECT_TRUE(a->TryAcquireOrRenew());
  Json spec = store.Spec();
  EXPECT_EQ(spec["holderIdentity"], "node-a_1");
  EXPECT_EQ(spec["leaseDurationSeconds"], 15);
  EXPECT_EQ(spec["acquireTime"], "2026-12-01T10:00:00.000000Z");
  EXPECT_EQ(spec["renewTime"], "2026-12-01T10:00:00.000000Z");
  EXPECT_EQ(spec["leaseTransitions"], 0);
  EXPECT_EQ(a->Leader(), "node-a_1");
  EXPECT_EQ(leaders, std::vector<std::string>{"node-a_1"});
  EXPECT_FALSE(a->IsLeader());  // only Run() leads; a round only holds the Lease
}

TEST(LeaderElectorTest, AValidLeaseIsLeftAloneUntilItExpiresOnTheLocalClock) {
  LeaseStore store;
  FakeClocks clocks;
  auto a = NewElector(store, clocks, "a");
  auto b = NewElector(store, clocks, "b");
  ASSERT_TRUE(a->TryAcquireOrRenew());
  // The holder's renewTime is a day old by b's wall clock: b does not compare clocks; it counts
  // the lease duration from when it first saw this record.
  clocks.wall = clocks.wall + std::chrono::hours(24);
  EXPECT_FALSE(b->TryAcquireOrRenew());
  EXPECT_EQ(b->Leader(), "a");
  clocks.now += seconds(14);
  EXPECT_FALSE(b->TryAcquireOrRenew());
  clocks.now += seconds(1);  // 15 s since b saw it change
  EXPECT_TRUE(b->TryAcquireOrRenew());
  Json spec = store.Spec();
  EXPECT_EQ(spec["holderIdentity"], "b");
  EXPECT_EQ(spec["leaseTransitions"], 1);
  EXPECT_EQ(spec["acquireTime"], "2026-12-02T10:00:00.000000Z");
}

TEST(LeaderElectorTest, EveryChangeOfTheRecordRestartsTheWait) {
  LeaseStore store;
  FakeClocks clocks;
  auto a = NewElector(store, clocks, "a");
  auto b = NewElector(store, clocks, "b");
  ASSERT_TRUE(a->TryAcquireOrRenew());
  EXPECT_FALSE(b->TryAcquireOrRenew());
  for (int i = 0; i < 10; ++i) {  // a renews every 10 s: b never sees 15 s without a change
    clocks.now += seconds(10);
    clocks.wall = clocks.wall + seconds(10);
    ASSERT_TRUE(a->TryAcquireOrRenew());
    EXPECT_FALSE(b->TryAcquireOrRenew());
  }
  EXPECT_EQ(store.Spec()["holderIdentity"], "a");
  EXPECT_EQ(store.Spec()["acquireTime"], "2026-12-01T10:00:00.000000Z");  // kept on renewal
  EXPECT_EQ(store.Spec()["renewTime"], "2026-12-01T10:01:40.000000Z");
  EXPECT_EQ(store.Spec()["leaseTransitions"], 0);
}

TEST(LeaderElectorTest, TheLeaderRenewsWithOneWriteWhenNobodyElseWrote) {
  LeaseStore store;
  FakeClocks clocks;
  auto a = NewElector(store, clocks, "a");
  ASSERT_TRUE(a->TryAcquireOrRenew());
  int gets = store.gets, updates = store.updates;
  clocks.now += seconds(2);
  ASSERT_TRUE(a->TryAcquireOrRenew());
  EXPECT_EQ(store.gets, gets);
  EXPECT_EQ(store.updates, updates + 1);
}

TEST(LeaderElectorTest, AConflictingWriteLosesTheRound) {
  LeaseStore store;
  FakeClocks clocks;
  auto a = NewElector(store, clocks, "a");
  auto b = NewElector(store, clocks, "b");
  ASSERT_TRUE(a->TryAcquireOrRenew());
  EXPECT_FALSE(b->TryAcquireOrRenew());
  clocks.now += seconds(16);
  // Between b's read of the expired Lease and its write, a third candidate takes it.
  store.before_update = [&] {
    store.before_update = nullptr;
    store.Touch("c", "2026-12-01T10:00:16.000000Z");
  };
  EXPECT_FALSE(b->TryAcquireOrRenew());
  EXPECT_EQ(store.Spec()["holderIdentity"], "c");
  EXPECT_FALSE(b->TryAcquireOrRenew());  // and c's record is fresh to b now
  EXPECT_EQ(b->Leader(), "c");
}

TEST(LeaderElectorTest, ALeaderWhoseRecordWasTakenFallsBackToReadingIt) {
  LeaseStore store;
  FakeClocks clocks;
  auto a = NewElector(store, clocks, "a");
  ASSERT_TRUE(a->TryAcquireOrRenew());
  store.Touch("z", "2026-12-01T10:00:01.000000Z");
  clocks.now += seconds(2);
  EXPECT_FALSE(a->TryAcquireOrRenew());
  EXPECT_EQ(a->Leader(), "z");
  EXPECT_EQ(store.Spec()["holderIdentity"], "z");
}

TEST(LeaderElectorTest, ReleaseHandsTheLeaseOverAtOnce) {
  LeaseStore store;
  FakeClocks clocks;
  auto a = NewElector(store, clocks, "a");
  auto b = NewElector(store, clocks, "b");
  ASSERT_TRUE(a->TryAcquireOrRenew());
  EXPECT_FALSE(b->TryAcquireOrRenew());
  clocks.wall = clocks.wall + seconds(3);
  ASSERT_TRUE(a->Release().ok());
  Json spec = store.Spec();
  EXPECT_EQ(spec["holderIdentity"], "");
  EXPECT_EQ(spec["leaseDurationSeconds"], 1);
  EXPECT_EQ(spec["renewTime"], "2026-12-01T10:00:03.000000Z");
  EXPECT_EQ(spec["leaseTransitions"], 0);
  EXPECT_EQ(a->Leader(), "");
  // b's clock has not moved: a released record is free at once.
  EXPECT_TRUE(b->TryAcquireOrRenew());
  EXPECT_EQ(store.Spec()["holderIdentity"], "b");
  EXPECT_EQ(store.Spec()["leaseDurationSeconds"], 15);
  EXPECT_EQ(store.Spec()["leaseTransitions"], 1);
  // A Lease someone else holds is not a's to release.
  ASSERT_TRUE(a->Release().ok());
  EXPECT_EQ(store.Spec()["holderIdentity"], "b");
}

TEST(LeaderElectorTest, KeepsFieldsItDoesNotModel) {
  LeaseStore store;
  FakeClocks clocks;
  auto a = NewElector(store, clocks, "a");
  ASSERT_TRUE(a->TryAcquireOrRenew());
  {
    std::lock_guard<std::mutex> l(store.mu);
    (*store.lease)["metadata"]["labels"] = {{"team", "infra"}};
    (*store.lease)["spec"]["strategy"] = "OldestEmulationVersion";
    (*store.lease)["metadata"]["resourceVersion"] = std::to_string(++store.version);
  }
  clocks.now += seconds(2);
  ASSERT_TRUE(a->TryAcquireOrRenew());  // the optimistic write conflicts; the re-read one wins
  ASSERT_TRUE(a->Release().ok());
  std::lock_guard<std::mutex> l(store.mu);
  EXPECT_EQ((*store.lease)["metadata"]["labels"]["team"], "infra");
  EXPECT_EQ((*store.lease)["spec"]["strategy"], "OldestEmulationVersion");
}

TEST(LeaderElectorTest, InconsistentDurationsAreRefused) {
  LeaseStore store;
  auto make = [&](milliseconds lease, milliseconds renew, milliseconds retry) {
    LeaderElectorOptions o;
    o.lease_duration = lease;
    o.renew_deadline = renew;
    o.retry_period = retry;
    return LeaderElector::Create(std::make_unique<FakeLock>(store), o).status();
  };
  EXPECT_TRUE(make(seconds(15), seconds(10), seconds(2)).ok());
  EXPECT_TRUE(make(seconds(3), seconds(2), milliseconds(500)).ok());
  EXPECT_THAT(make(seconds(10), seconds(10), seconds(2)).message(),
              ::testing::HasSubstr("must be greater than the renew deadline"));
  EXPECT_THAT(make(seconds(15), seconds(2), seconds(2)).message(),
              ::testing::HasSubstr("x the retry period"));
  EXPECT_FALSE(make(milliseconds(500), milliseconds(300), milliseconds(100)).ok());
  EXPECT_FALSE(make(seconds(15), seconds(10), milliseconds(0)).ok());
}

TEST(LeaderElectorTest, DefaultsAreKarpentersLeaseAndAHostnameUuidIdentity) {
  LeaseStore store;
  LeaderElectorOptions o;
  o.namespace_ = "kube-system";
  auto e = LeaderElector::Create(std::make_unique<FakeLock>(store), o);
  ASSERT_TRUE(e.ok());
  EXPECT_EQ((*e)->lease_name(), "karpenter-leader-election");
  EXPECT_TRUE(std::regex_match(
      (*e)->identity(), std::regex(".+_[0-9a-f]{8}-[0-9a-f]{4}-4[0-9a-f]{3}-[89ab][0-9a-f]{3}-"
                                   "[0-9a-f]{12}")))
      << (*e)->identity();
}

TEST(LeaderElectorTest, EachRequestGetsWhatIsLeftOfTheRoundsDeadline) {
  LeaseStore store;
  FakeClocks clocks;
  LeaderElectorOptions o;
  o.namespace_ = "kube-system";
  o.identity = "a";
  o.now = [&clocks] { return clocks.now; };
  auto lock = std::make_unique<FakeLock>(store);
  FakeLock* fake = lock.get();
  auto e = LeaderElector::Create(std::move(lock), o);
  ASSERT_TRUE(e.ok());
  // The read takes 4 s of the 10 s renew deadline; the create that follows gets the other 6 s.
  store.on_get = [&] { clocks.now += seconds(4); };
  ASSERT_TRUE((*e)->TryAcquireOrRenew());
  ASSERT_EQ(fake->timeouts.size(), 2u);  // get (not found), create
  EXPECT_EQ(fake->timeouts[0], seconds(10));
  EXPECT_EQ(fake->timeouts[1], seconds(6));
  // A read that uses up the whole deadline leaves the write a moment only: it fails fast.
  store.on_get = [&] { clocks.now += seconds(12); };
  clocks.now += seconds(20);  // a's own record expired: the optimistic renewal is skipped
  fake->timeouts.clear();
  (*e)->TryAcquireOrRenew();
  ASSERT_EQ(fake->timeouts.size(), 2u);  // get, update
  EXPECT_EQ(fake->timeouts[1], milliseconds(1));
}

TEST(LeaderElectorTest, AHungServerCannotHoldARoundPastTheRenewDeadline) {
  // A socket that completes TCP handshakes (the kernel does) but never answers.
  int fd = socket(AF_INET, SOCK_STREAM, 0);
  ASSERT_GE(fd, 0);
  sockaddr_in addr{};
  addr.sin_family = AF_INET;
  addr.sin_addr.s_addr = htonl(INADDR_LOOPBACK);
  ASSERT_EQ(bind(fd, reinterpret_cast<sockaddr*>(&addr), sizeof addr), 0);
  ASSERT_EQ(listen(fd, 16), 0);
  socklen_t len = sizeof addr;
  ASSERT_EQ(getsockname(fd, reinterpret_cast<sockaddr*>(&addr), &len), 0);
  RestConfig config;
  config.server = "https://127.0.0.1:" + std::to_string(ntohs(addr.sin_port));
  config.insecure_skip_tls_verify = true;
  LeaderElectorOptions o;
  o.namespace_ = "default";
  o.lease_duration = seconds(3);
  o.renew_deadline = seconds(1);
  o.retry_period = milliseconds(500);
  auto e = LeaderElector::Create(config, o);
  ASSERT_TRUE(e.ok()) << e.status().message();
  auto t0 = SteadyClock::now();
  EXPECT_FALSE((*e)->TryAcquireOrRenew());
  auto took = SteadyClock::now() - t0;
  EXPECT_GE(took, milliseconds(900));
  EXPECT_LT(took, milliseconds(1500));  // one try, cut at the deadline: no retries behind it
  close(fd);
}

TEST(LeaderElectorTest, MicroTimeHasSixFractionalDigits) {
  EXPECT_EQ(FormatMicroTime(core::Time::FromUnixSeconds(1796119200)),
            "2026-12-01T10:00:00.000000Z");
  EXPECT_EQ(FormatMicroTime(core::Time{1796119200LL * 1000000000 + 123456789}),
            "2026-12-01T10:00:00.123456Z");
}

// Run() on real time: lease 1 s, renew deadline 0.5 s, retry 0.1 s.
LeaderElectorOptions Fast(const std::string& identity) {
  LeaderElectorOptions o;
  o.namespace_ = "kube-system";
  o.identity = identity;
  o.lease_duration = seconds(1);
  o.renew_deadline = milliseconds(500);
  o.retry_period = milliseconds(100);
  return o;
}

bool WaitUntil(const std::function<bool()>& cond, milliseconds limit) {
  auto end = SteadyClock::now() + limit;
  while (SteadyClock::now() < end) {
    if (cond()) return true;
    std::this_thread::sleep_for(milliseconds(10));
  }
  return cond();
}

TEST(LeaderElectorTest, RunLeadsThenLosesLeadershipWhenRenewalsFailPastTheDeadline) {
  LeaseStore store;
  std::mutex mu;
  std::vector<std::string> calls;
  auto record = [&](std::string s) {
    std::lock_guard<std::mutex> l(mu);
    calls.push_back(std::move(s));
  };
  LeaderElectorOptions o = Fast("a");
  o.on_new_leader = [&](const std::string& id) { record("new:" + id); };
  o.on_started_leading = [&] { record("started"); };
  o.on_stopped_leading = [&] { record("stopped"); };
  auto e = LeaderElector::Create(std::make_unique<FakeLock>(store), o);
  ASSERT_TRUE(e.ok());
  LeaderElector& a = **e;
  a.Start();
  ASSERT_TRUE(WaitUntil([&] { return a.IsLeader(); }, seconds(2)));
  std::this_thread::sleep_for(milliseconds(300));
  EXPECT_TRUE(a.IsLeader());
  auto failed_at = SteadyClock::now();
  {
    std::lock_guard<std::mutex> l(store.mu);
    store.fail = true;
  }
  ASSERT_TRUE(WaitUntil([&] { return !a.IsLeader(); }, seconds(3)));
  auto lost_after = SteadyClock::now() - failed_at;
  EXPECT_GE(lost_after, milliseconds(450));   // the renew deadline, counted from a failed round
  EXPECT_LE(lost_after, milliseconds(1000));  // plus at most one retry period before it started
  a.Stop();
  EXPECT_EQ(a.run_status().code(), core::StatusCode::kUnavailable);
  EXPECT_THAT(a.run_status().message(), ::testing::HasSubstr("failed to renew lease"));
  std::lock_guard<std::mutex> l(mu);
  EXPECT_EQ(calls, (std::vector<std::string>{"new:a", "started", "stopped"}));
}

TEST(LeaderElectorTest, StopWhileLeadingStopsTheWorkThenReleases) {
  LeaseStore store;
  std::string holder_when_stopped = "?";
  LeaderElectorOptions o = Fast("a");
  o.on_stopped_leading = [&] { holder_when_stopped = store.Spec()["holderIdentity"]; };
  auto e = LeaderElector::Create(std::make_unique<FakeLock>(store), o);
  ASSERT_TRUE(e.ok());
  (*e)->Start();
  ASSERT_TRUE(WaitUntil([&] { return (*e)->IsLeader(); }, seconds(2)));
  (*e)->Stop();
  EXPECT_FALSE((*e)->IsLeader());
  EXPECT_TRUE((*e)->run_status().ok());
  EXPECT_EQ(holder_when_stopped, "a");  // still ours while the work stops
  EXPECT_EQ(store.Spec()["holderIdentity"], "");
  EXPECT_EQ(store.Spec()["leaseDurationSeconds"], 1);
}

TEST(LeaderElectorTest, StopWhileWaitingToAcquireReturnsAtOnce) {
  LeaseStore store;
  FakeClocks clocks;
  auto holder = NewElector(store, clocks, "other");
  ASSERT_TRUE(holder->TryAcquireOrRenew());
  bool started = false, stopped = false;
  LeaderElectorOptions o = Fast("a");
  o.retry_period = milliseconds(300);  // a long wait to be woken from
  o.on_started_leading = [&] { started = true; };
  o.on_stopped_leading = [&] { stopped = true; };
  auto e = LeaderElector::Create(std::make_unique<FakeLock>(store), o);
  ASSERT_TRUE(e.ok());
  (*e)->Start();
  ASSERT_TRUE(WaitUntil([&] { return (*e)->Leader() == "other"; }, seconds(2)));
  auto t0 = SteadyClock::now();
  (*e)->Stop();
  EXPECT_LT(SteadyClock::now() - t0, milliseconds(200));
  EXPECT_FALSE(started);
  EXPECT_FALSE(stopped);
  EXPECT_EQ(store.Spec()["holderIdentity"], "other");
}

}  // namespace
}  // namespace nodesmith::kube
