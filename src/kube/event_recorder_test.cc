// The recorder's correlation (spam filter, aggregation, deduplication), its Event documents, its
// bounded queue and its retries, against a recording sink on a fake clock.
#include "kube/event_recorder.h"

#include <gmock/gmock.h>
#include <gtest/gtest.h>

#include <atomic>
#include <vector>

namespace nodesmith::kube {
namespace {

using ::testing::HasSubstr;

struct Call {
  std::string verb;  // create | patch
  std::string ns;
  std::string name;
  Json body;
};

// Records every write; answers as the API server would (a resourceVersion; a patch merged into
// the stored Event). Thread-safe: the recorder writes from its thread, the test reads.
class FakeSink : public EventSink {
 public:
  core::Result<Json> Create(const std::string& ns, const Json& event) override {
    Wait();
    std::lock_guard<std::mutex> l(mu_);
    std::string name = event["metadata"]["name"];
    calls_.push_back({"create", ns, name, event});
    if (!fail_.empty()) {
      core::Status s = fail_.front();
      fail_.erase(fail_.begin());
      return s;
    }
    Json stored = event;
    stored["metadata"]["resourceVersion"] = std::to_string(++version_);
    stored_[ns + "/" + name] = stored;
    return stored;
  }
  core::Result<Json> Patch(const std::string& ns, const std::string& name,
                           const Json& patch) override {
    Wait();
    std::lock_guard<std::mutex> l(mu_);
    calls_.push_back({"patch", ns, name, patch});
    auto it = stored_.find(ns + "/" + name);
    if (it == stored_.end()) return core::Status::NotFound("events \"" + name + "\" not found");
    it->second.merge_patch(patch);
    it->second["metadata"]["resourceVersion"] = std::to_string(++version_);
    return it->second;
  }

  std::vector<Call> calls() {
    std::lock_guard<std::mutex> l(mu_);
    return calls_;
  }
  void FailNext(core::Status s) {
    std::lock_guard<std::mutex> l(mu_);
    fail_.push_back(std::move(s));
  }
  void Forget(const std::string& ns, const std::string& name) {
    std::lock_guard<std::mutex> l(mu_);
    stored_.erase(ns + "/" + name);
  }
  // Holds every write until Unblock(); entered() says a write is waiting.
  void Block() { blocked_ = true; }
  void Unblock() {
    {
      std::lock_guard<std::mutex> l(block_mu_);
      blocked_ = false;
    }
    block_cv_.notify_all();
  }
  bool entered() const { return entered_.load(); }

 private:
  void Wait() {
    std::unique_lock<std::mutex> l(block_mu_);
    if (blocked_) entered_ = true;
    block_cv_.wait(l, [this] { return !blocked_.load(); });
  }
  std::mutex mu_;
  std::vector<Call> calls_;
  std::vector<core::Status> fail_;
  std::map<std::string, Json> stored_;
  int version_ = 0;
  std::mutex block_mu_;
  std::condition_variable block_cv_;
  std::atomic<bool> blocked_{false};
  std::atomic<bool> entered_{false};
};

struct Fixture {
  FakeSink* sink = nullptr;
  std::atomic<int64_t> now{core::Time::FromUnixSeconds(1796119200).unix_nanos + 123456789};
  std::mutex log_mu;
  std::vector<std::string> logs;

  std::unique_ptr<EventRecorder> Make(EventRecorderOptions o = {}) {
    auto s = std::make_unique<FakeSink>();
    sink = s.get();
    o.now = [this] { return core::Time{now.load()}; };
    o.log = [this](const std::string& m) {
      std::lock_guard<std::mutex> l(log_mu);
      logs.push_back(m);
    };
    o.retry_interval = std::chrono::milliseconds(1);
    return std::make_unique<EventRecorder>(std::move(s), o);
  }
  void Step(std::chrono::nanoseconds d) { now += d.count(); }
};

ObjectReference Pod(const std::string& name = "inflate-1") {
  return {"v1", "Pod", name, "web", "uid-" + name, "", ""};
}
ObjectReference Node(const std::string& name = "ip-10-0-1-5.ec2.internal") {
  return {"v1", "Node", name, "", "uid-" + name, "", ""};
}

TEST(EventRecorderTest, WritesTheEventAsClientGoDoesWithKarpentersSource) {
  Fixture f;
  auto r = f.Make();
  ObjectReference pod = Pod();
  pod.resource_version = "42";
  r->Publish(pod, EventType::kNormal, "Nominated",
             "Pod should schedule on: nodeclaim/default-x2k4q");
  ASSERT_TRUE(r->Flush());
  auto calls = f.sink->calls();
  ASSERT_EQ(calls.size(), 1u);
  EXPECT_EQ(calls[0].verb, "create");
  EXPECT_EQ(calls[0].ns, "web");
  // "<involvedObject.name>.<unix nanos in hex>"
  EXPECT_EQ(calls[0].name, "inflate-1.18ed18e5719e0d15");
  Json expected = Json::parse(R"({
    "apiVersion": "v1", "kind": "Event",
    "metadata": {"name": "inflate-1.18ed18e5719e0d15", "namespace": "web"},
    "involvedObject": {"kind": "Pod", "namespace": "web", "name": "inflate-1", "uid": "uid-inflate-1",
                       "apiVersion": "v1", "resourceVersion": "42"},
    "reason": "Nominated",
    "message": "Pod should schedule on: nodeclaim/default-x2k4q",
    "source": {"component": "karpenter"},
    "firstTimestamp": "2026-12-01T10:00:00Z", "lastTimestamp": "2026-12-01T10:00:00Z",
    "count": 1, "type": "Normal",
    "reportingComponent": "karpenter", "reportingInstance": ""})");
  EXPECT_EQ(calls[0].body, expected) << calls[0].body.dump(2);
  EXPECT_EQ(r->stats().created, 1u);
}

TEST(EventRecorderTest, AnIdenticalEventRaisesTheCountOfTheFirstWithAMergePatch) {
  Fixture f;
  auto r = f.Make();
  for (int i = 0; i < 3; ++i) {
    r->Publish(Pod(), EventType::kWarning, "FailedScheduling", "Failed to schedule pod, no fit");
    f.Step(std::chrono::seconds(30));
  }
  ASSERT_TRUE(r->Flush());
  auto calls = f.sink->calls();
  ASSERT_EQ(calls.size(), 3u);
  EXPECT_EQ(calls[0].verb, "create");
  EXPECT_EQ(calls[1].verb, "patch");
  EXPECT_EQ(calls[2].verb, "patch");
  EXPECT_EQ(calls[1].name, calls[0].name);
  EXPECT_EQ(calls[2].name, calls[0].name);
  EXPECT_EQ(calls[1].body, Json::parse(R"({"count": 2, "lastTimestamp": "2026-12-01T10:00:30Z",
                                           "message": "Failed to schedule pod, no fit"})"));
  EXPECT_EQ(calls[2].body["count"], 3);
  EXPECT_EQ(calls[2].body["lastTimestamp"], "2026-12-01T10:01:00Z");
  EXPECT_EQ(r->stats().created, 1u);
  EXPECT_EQ(r->stats().patched, 2u);
}

TEST(EventRecorderTest, AnotherMessageTypeReasonOrObjectIsAnotherEvent) {
  Fixture f;
  auto r = f.Make();
  r->Publish(Pod(), EventType::kNormal, "Nominated", "a");
  r->Publish(Pod(), EventType::kNormal, "Nominated", "b");
  r->Publish(Pod(), EventType::kWarning, "Nominated", "a");
  r->Publish(Pod(), EventType::kNormal, "Evicted", "a");
  r->Publish(Pod("inflate-2"), EventType::kNormal, "Nominated", "a");
  ASSERT_TRUE(r->Flush());
  auto calls = f.sink->calls();
  ASSERT_EQ(calls.size(), 5u);
  std::set<std::string> names;
  for (const auto& c : calls) {
    EXPECT_EQ(c.verb, "create");
    names.insert(c.name);
  }
  EXPECT_EQ(names.size(), 5u);  // unique even though the clock did not move
}

TEST(EventRecorderTest, EventsForClusterScopedObjectsGoToDefault) {
  Fixture f;
  auto r = f.Make();
  r->Publish(Node(), EventType::kNormal, "DisruptionTerminating", "Disrupting Node: Empty/Delete");
  ASSERT_TRUE(r->Flush());
  auto calls = f.sink->calls();
  ASSERT_EQ(calls.size(), 1u);
  EXPECT_EQ(calls[0].ns, "default");
  EXPECT_EQ(calls[0].body["metadata"]["namespace"], "default");
  EXPECT_FALSE(calls[0].body["involvedObject"].contains("namespace"));
  EXPECT_EQ(calls[0].body["involvedObject"]["kind"], "Node");
}

TEST(EventRecorderTest, APatchOfAnEventTheServerExpiredWritesItAnew) {
  Fixture f;
  auto r = f.Make();
  r->Publish(Pod(), EventType::kNormal, "Nominated", "a");
  ASSERT_TRUE(r->Flush());
  std::string name = f.sink->calls()[0].name;
  f.sink->Forget("web", name);  // the event TTL passed
  f.Step(std::chrono::hours(2));
  r->Publish(Pod(), EventType::kNormal, "Nominated", "a");
  ASSERT_TRUE(r->Flush());
  auto calls = f.sink->calls();
  ASSERT_EQ(calls.size(), 3u);
  EXPECT_EQ(calls[1].verb, "patch");
  EXPECT_EQ(calls[2].verb, "create");
  EXPECT_EQ(calls[2].name, name);
  EXPECT_EQ(calls[2].body["count"], 2);
  EXPECT_EQ(calls[2].body["firstTimestamp"], "2026-12-01T10:00:00Z");
  EXPECT_EQ(calls[2].body["lastTimestamp"], "2026-12-01T12:00:00Z");
  EXPECT_EQ(r->stats().created, 2u);
}

TEST(EventRecorderTest, TheSpamFilterAllowsABurstOf25PerObjectThenOneEveryFiveMinutes) {
  Fixture f;
  auto r = f.Make();
  for (int i = 0; i < 30; ++i)
    r->Publish(Pod(), EventType::kNormal, "Reason" + std::to_string(i), "m");
  r->Publish(Pod("inflate-2"), EventType::kNormal, "Reason", "m");  // another object's budget
  ASSERT_TRUE(r->Flush());
  EXPECT_EQ(f.sink->calls().size(), 26u);
  EXPECT_EQ(r->stats().filtered, 5u);
  f.Step(std::chrono::minutes(5));
  r->Publish(Pod(), EventType::kNormal, "Later", "m");
  r->Publish(Pod(), EventType::kNormal, "Later2", "m");
  ASSERT_TRUE(r->Flush());
  EXPECT_EQ(f.sink->calls().size(), 27u);
  EXPECT_EQ(r->stats().filtered, 6u);
}

TEST(EventRecorderTest, TheSpamFilterCanBeTurnedOff) {
  Fixture f;
  EventRecorderOptions o;
  o.spam_filter = false;
  auto r = f.Make(o);
  for (int i = 0; i < 30; ++i)
    r->Publish(Pod(), EventType::kNormal, "Reason" + std::to_string(i), "m");
  ASSERT_TRUE(r->Flush());
  EXPECT_EQ(f.sink->calls().size(), 30u);
}

TEST(EventRecorderTest, TenDistinctMessagesForOneReasonAreCombined) {
  Fixture f;
  auto r = f.Make();
  for (int i = 1; i <= 12; ++i)
    r->Publish(Node(), EventType::kNormal, "Unconsolidatable", "reason " + std::to_string(i));
  ASSERT_TRUE(r->Flush());
  auto calls = f.sink->calls();
  ASSERT_EQ(calls.size(), 12u);
  for (int i = 0; i < 9; ++i) {
    EXPECT_EQ(calls[i].verb, "create");
    EXPECT_EQ(calls[i].body["message"], "reason " + std::to_string(i + 1));
  }
  EXPECT_EQ(calls[9].verb, "create");
  EXPECT_EQ(calls[9].body["message"], "(combined from similar events): reason 10");
  EXPECT_EQ(calls[10].verb, "patch");
  EXPECT_EQ(calls[10].name, calls[9].name);
  EXPECT_EQ(calls[10].body["message"], "(combined from similar events): reason 11");
  EXPECT_EQ(calls[11].body["count"], 3);
  // Ten minutes of quiet and the group starts over.
  f.Step(std::chrono::minutes(11));
  r->Publish(Node(), EventType::kNormal, "Unconsolidatable", "reason 13");
  ASSERT_TRUE(r->Flush());
  EXPECT_EQ(f.sink->calls().back().body["message"], "reason 13");
}

TEST(EventRecorderTest, AFullQueueDropsTheOldestAndPublishNeverBlocks) {
  Fixture f;
  EventRecorderOptions o;
  o.queue_capacity = 3;
  auto r = f.Make(o);
  f.sink->Block();
  r->Publish(Pod("p0"), EventType::kNormal, "R", "m");
  for (int i = 0; i < 200 && !f.sink->entered(); ++i)
    std::this_thread::sleep_for(std::chrono::milliseconds(5));
  ASSERT_TRUE(f.sink->entered());  // the writer holds p0 in a write that does not return
  for (int i = 1; i <= 5; ++i)
    r->Publish(Pod("p" + std::to_string(i)), EventType::kNormal, "R", "m");
  EXPECT_EQ(r->stats().dropped, 2u);
  EXPECT_FALSE(r->Flush(std::chrono::milliseconds(50)));
  f.sink->Unblock();
  ASSERT_TRUE(r->Flush());
  std::vector<std::string> written;
  for (const auto& c : f.sink->calls()) written.push_back(c.body["involvedObject"]["name"]);
  EXPECT_EQ(written, (std::vector<std::string>{"p0", "p3", "p4", "p5"}));
  EXPECT_EQ(r->stats().published, 6u);
}

TEST(EventRecorderTest, WritesThatDidNotReachTheServerAreRetriedRefusedOnesAreNot) {
  Fixture f;
  auto r = f.Make();
  f.sink->FailNext(core::Status::Unavailable("cannot reach the Kubernetes API server"));
  f.sink->FailNext(core::Status::Unavailable("cannot reach the Kubernetes API server"));
  r->Publish(Pod(), EventType::kNormal, "Nominated", "a");
  ASSERT_TRUE(r->Flush());
  EXPECT_EQ(f.sink->calls().size(), 3u);
  EXPECT_EQ(r->stats().created, 1u);
  f.sink->FailNext(core::Status(core::StatusCode::kPermissionDenied, "RBAC does not allow"));
  r->Publish(Pod(), EventType::kNormal, "Nominated", "b");
  ASSERT_TRUE(r->Flush());
  EXPECT_EQ(f.sink->calls().size(), 4u);
  EXPECT_EQ(r->stats().failed, 1u);
  std::lock_guard<std::mutex> l(f.log_mu);
  ASSERT_EQ(f.logs.size(), 3u);
  EXPECT_THAT(f.logs[0], HasSubstr("may retry"));
  EXPECT_THAT(f.logs[2], HasSubstr("server rejected event web/inflate-1."));
  EXPECT_THAT(f.logs[2], HasSubstr("(Nominated on Pod inflate-1): RBAC does not allow"));
}

TEST(EventRecorderTest, GivesUpAfterMaxTries) {
  Fixture f;
  EventRecorderOptions o;
  o.max_tries = 3;
  auto r = f.Make(o);
  for (int i = 0; i < 5; ++i) f.sink->FailNext(core::Status::Unavailable("down"));
  r->Publish(Pod(), EventType::kNormal, "Nominated", "a");
  ASSERT_TRUE(r->Flush());
  EXPECT_EQ(f.sink->calls().size(), 3u);
  EXPECT_EQ(r->stats().failed, 1u);
}

TEST(EventRecorderTest, StopWritesWhatIsQueuedThenDropsLaterEvents) {
  Fixture f;
  auto r = f.Make();
  for (int i = 0; i < 5; ++i)
    r->Publish(Pod("p" + std::to_string(i)), EventType::kNormal, "R", "m");
  r->Stop();
  EXPECT_EQ(f.sink->calls().size(), 5u);
  r->Publish(Pod(), EventType::kNormal, "R", "m");
  EXPECT_EQ(r->stats().dropped, 1u);
  EXPECT_TRUE(r->Flush(std::chrono::milliseconds(10)));
}

TEST(EventRecorderTest, ReferenceToReadsAnObjectAsTheServerReturnedIt) {
  Json node = Json::parse(R"({"apiVersion":"v1","kind":"Node","metadata":{"name":"n1",
      "uid":"6f1c","resourceVersion":"77"}})");
  ObjectReference ref = ReferenceTo(node);
  EXPECT_EQ(ref.api_version, "v1");
  EXPECT_EQ(ref.kind, "Node");
  EXPECT_EQ(ref.name, "n1");
  EXPECT_EQ(ref.namespace_, "");
  EXPECT_EQ(ref.uid, "6f1c");
  EXPECT_EQ(ref.resource_version, "77");
}

}  // namespace
}  // namespace nodesmith::kube
