// Leader election against the real kube-apiserver: two candidates on one Lease, hand-over on
// release and on a leader that stops renewing, and the Lease as kubectl shows it. Durations are
// shortened to lease 3 s / renew deadline 2 s / retry 0.5 s.
#include <gmock/gmock.h>
#include <gtest/gtest.h>

#include <regex>

#include "kube/leader_elector.h"
#include "kube_test_env.h"

namespace nodesmith::kube {
namespace {

using namespace nodesmith::testing;
using std::chrono::milliseconds;
using std::chrono::seconds;
using SteadyClock = std::chrono::steady_clock;

const std::regex kMicroTime(R"(\d{4}-\d{2}-\d{2}T\d{2}:\d{2}:\d{2}\.\d{6}Z)");

std::unique_ptr<LeaderElector> Candidate(const std::string& ns, const std::string& lease,
                                         const std::string& identity, bool release = true) {
  LeaderElectorOptions o;
  o.name = lease;
  o.namespace_ = ns;
  o.identity = identity;
  o.lease_duration = seconds(3);
  o.renew_deadline = seconds(2);
  o.retry_period = milliseconds(500);
  o.release_on_cancel = release;
  auto e = LeaderElector::Create(TestenvConfig(), o);
  EXPECT_TRUE(e.ok()) << e.status().message();
  return std::move(e).value();
}

bool WaitUntil(const std::function<bool()>& cond, milliseconds limit) {
  auto end = SteadyClock::now() + limit;
  while (SteadyClock::now() < end) {
    if (cond()) return true;
    std::this_thread::sleep_for(milliseconds(20));
  }
  return cond();
}

// The Lease as `kubectl get lease -o json` prints it.
Json KubectlLease(const std::string& ns, const std::string& name) {
  std::string out = Kubectl("get lease -n " + ns + " " + name + " -o json");
  Json doc = Json::parse(out, nullptr, false);
  EXPECT_FALSE(doc.is_discarded()) << out;
  return doc.is_discarded() ? Json::object() : doc;
}

TEST(LeaderElectorServerTest, ExactlyOneOfTwoCandidatesLeads) {
  TestNamespace ns("le");
  const std::string lease = UniqueName("lease");
  auto a = Candidate(ns.name(), lease, "replica-a");
  auto b = Candidate(ns.name(), lease, "replica-b");
  a->Start();
  b->Start();
  ASSERT_TRUE(WaitUntil([&] { return a->IsLeader() || b->IsLeader(); }, seconds(10)));
  LeaderElector& leader = a->IsLeader() ? *a : *b;
  LeaderElector& standby = a->IsLeader() ? *b : *a;
  // Longer than the lease duration: the standby sees renewals and never takes over.
  auto end = SteadyClock::now() + seconds(4);
  while (SteadyClock::now() < end) {
    ASSERT_NE(a->IsLeader(), b->IsLeader());
    ASSERT_TRUE(leader.IsLeader());
    std::this_thread::sleep_for(milliseconds(50));
  }
  EXPECT_EQ(standby.Leader(), leader.identity());

  Json first = KubectlLease(ns.name(), lease);
  EXPECT_EQ(first["apiVersion"], "coordination.k8s.io/v1");
  const Json& spec = first["spec"];
  EXPECT_EQ(spec["holderIdentity"], leader.identity());
  EXPECT_EQ(spec["leaseDurationSeconds"], 3);
  EXPECT_EQ(spec["leaseTransitions"], 0);
  ASSERT_TRUE(spec["acquireTime"].is_string());
  ASSERT_TRUE(spec["renewTime"].is_string());
  EXPECT_TRUE(std::regex_match(spec["acquireTime"].get<std::string>(), kMicroTime)) << spec;
  EXPECT_TRUE(std::regex_match(spec["renewTime"].get<std::string>(), kMicroTime)) << spec;
  EXPECT_LT(spec["acquireTime"].get<std::string>(), spec["renewTime"].get<std::string>());
  std::this_thread::sleep_for(seconds(1));
  Json second = KubectlLease(ns.name(), lease);
  EXPECT_GT(second["spec"]["renewTime"].get<std::string>(), spec["renewTime"].get<std::string>());
  EXPECT_EQ(second["spec"]["acquireTime"], spec["acquireTime"]);
  a->Stop();
  b->Stop();
}

TEST(LeaderElectorServerTest, ReleasingOnStopHandsOverWithinTwoRetryPeriods) {
  TestNamespace ns("le");
  const std::string lease = UniqueName("lease");
  auto a = Candidate(ns.name(), lease, "replica-a");
  a->Start();
  ASSERT_TRUE(WaitUntil([&] { return a->IsLeader(); }, seconds(10)));
  auto b = Candidate(ns.name(), lease, "replica-b");
  b->Start();
  ASSERT_TRUE(WaitUntil([&] { return b->Leader() == "replica-a"; }, seconds(5)));

  a->Stop();  // returns once the Lease is released
  auto released = SteadyClock::now();
  EXPECT_FALSE(a->IsLeader());
  ASSERT_TRUE(WaitUntil([&] { return b->IsLeader(); }, seconds(5)));
  auto handover = SteadyClock::now() - released;
  // Acquire attempts come every 0.5 s to 1.1 s (jitter 1.2); far below the 3 s lease.
  EXPECT_LT(handover, milliseconds(1500))
      << std::chrono::duration_cast<milliseconds>(handover).count() << " ms";

  Json spec = KubectlLease(ns.name(), lease)["spec"];
  EXPECT_EQ(spec["holderIdentity"], "replica-b");
  EXPECT_EQ(spec["leaseDurationSeconds"], 3);
  EXPECT_EQ(spec["leaseTransitions"], 1);
  b->Stop();
}

TEST(LeaderElectorServerTest, ALeaderThatStopsRenewingIsReplacedAfterTheLeaseDuration) {
  TestNamespace ns("le");
  const std::string lease = UniqueName("lease");
  auto a = Candidate(ns.name(), lease, "replica-a", /*release=*/false);
  a->Start();
  ASSERT_TRUE(WaitUntil([&] { return a->IsLeader(); }, seconds(10)));
  auto b = Candidate(ns.name(), lease, "replica-b");
  b->Start();
  ASSERT_TRUE(WaitUntil([&] { return b->Leader() == "replica-a"; }, seconds(5)));

  a->Stop();  // as if the process died: no release
  auto stopped = SteadyClock::now();
  EXPECT_EQ(KubectlLease(ns.name(), lease)["spec"]["holderIdentity"], "replica-a");
  ASSERT_TRUE(WaitUntil([&] { return b->IsLeader(); }, seconds(10)));
  auto handover = SteadyClock::now() - stopped;
  // a's last renewal was at most one retry period before it stopped; b counts the 3 s lease from
  // when it saw that renewal, then needs one more attempt (0.5 s to 1.1 s apart).
  EXPECT_GE(handover, milliseconds(2400))
      << std::chrono::duration_cast<milliseconds>(handover).count() << " ms";
  EXPECT_LE(handover, milliseconds(6000))
      << std::chrono::duration_cast<milliseconds>(handover).count() << " ms";

  Json spec = KubectlLease(ns.name(), lease)["spec"];
  EXPECT_EQ(spec["holderIdentity"], "replica-b");
  EXPECT_EQ(spec["leaseTransitions"], 1);
  b->Stop();
}

TEST(LeaderElectorServerTest, AReleasedLeaseAsKubectlShowsIt) {
  TestNamespace ns("le");
  const std::string lease = UniqueName("lease");
  auto a = Candidate(ns.name(), lease, "replica-a");
  a->Start();
  ASSERT_TRUE(WaitUntil([&] { return a->IsLeader(); }, seconds(10)));
  Json held = KubectlLease(ns.name(), lease);
  a->Stop();
  EXPECT_TRUE(a->run_status().ok()) << a->run_status().message();

  Json released = KubectlLease(ns.name(), lease);
  const Json& spec = released["spec"];
  EXPECT_EQ(spec.value("holderIdentity", "<absent>"), "");
  EXPECT_EQ(spec["leaseDurationSeconds"], 1);
  EXPECT_EQ(spec["leaseTransitions"], 0);
  EXPECT_TRUE(std::regex_match(spec["renewTime"].get<std::string>(), kMicroTime)) << spec;
  EXPECT_GE(spec["renewTime"].get<std::string>(), held["spec"]["renewTime"].get<std::string>());
  EXPECT_EQ(released["metadata"]["uid"], held["metadata"]["uid"]);  // updated, not recreated
  // kubectl's table prints the (empty) holder.
  std::string table = Kubectl("get lease -n " + ns.name() + " " + lease);
  EXPECT_THAT(table, ::testing::HasSubstr("HOLDER"));
  EXPECT_THAT(table, ::testing::HasSubstr(lease));

  // Acquired again, the transition is counted.
  auto b = Candidate(ns.name(), lease, "replica-b");
  ASSERT_TRUE(b->TryAcquireOrRenew());
  EXPECT_EQ(KubectlLease(ns.name(), lease)["spec"]["leaseTransitions"], 1);
  ASSERT_TRUE(b->Release().ok());
}

TEST(LeaderElectorServerTest, AnUnreachableServerIsNeverLeadership) {
  RestConfig config = TestenvConfig();
  config.server = "https://127.0.0.1:1";  // nothing listens
  LeaderElectorOptions o;
  o.namespace_ = "default";
  o.lease_duration = seconds(3);
  o.renew_deadline = seconds(2);
  o.retry_period = milliseconds(500);
  std::vector<std::string> logs;
  std::mutex mu;
  o.log = [&](const std::string& m) {
    std::lock_guard<std::mutex> l(mu);
    logs.push_back(m);
  };
  auto e = LeaderElector::Create(config, o);
  ASSERT_TRUE(e.ok());
  EXPECT_FALSE((*e)->TryAcquireOrRenew());
  EXPECT_FALSE((*e)->IsLeader());
  std::lock_guard<std::mutex> l(mu);
  ASSERT_FALSE(logs.empty());
  EXPECT_THAT(logs.back(),
              ::testing::HasSubstr("error retrieving lease default/karpenter-leader-election"));
}

}  // namespace
}  // namespace nodesmith::kube
