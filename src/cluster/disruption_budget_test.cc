#include "cluster/disruption_budget.h"

#include <gmock/gmock.h>
#include <gtest/gtest.h>

#include <string>
#include <vector>

#include "cluster/memory_cluster.h"

namespace nodesmith::cluster {
namespace {

using std::chrono::seconds;

constexpr core::Time kStart{1'700'000'000'000'000'000};
const char kViolation[] = "Cannot evict pod as it would violate the pod's disruption budget.";

api::IntOrString Int(int v) { return api::IntOrString{.is_string = false, .int_value = v}; }
api::IntOrString Str(std::string s) {
  return api::IntOrString{.is_string = true, .str_value = std::move(s)};
}

api::LabelSelector AppSelector(const std::string& app) {
  api::LabelSelector s;
  s.match_labels["app"] = app;
  return s;
}

class EvictionTest : public ::testing::Test {
 protected:
  // A running pod labelled app=<app>, Ready unless told otherwise, owned by `owner_kind/owner`.
  void AddPod(const std::string& name, const std::string& app, bool ready = true,
              const std::string& owner_kind = "", const std::string& owner = "") {
    api::Pod pod;
    pod.metadata.name = name;
    pod.metadata.namespace_ = "default";
    pod.metadata.labels["app"] = app;
    if (!owner_kind.empty()) {
      pod.metadata.owner_references.push_back(api::OwnerReference{
          .api_version = "apps/v1", .kind = owner_kind, .name = owner, .controller = true});
    }
    pod.status.phase = "Running";
    pod.status.conditions.push_back(
        api::Condition{.type = "Ready", .status = ready ? "True" : "False"});
    ASSERT_TRUE(cluster_.Create(pod).ok());
  }
  void AddPdb(const std::string& name, api::PodDisruptionBudget pdb) {
    pdb.metadata.name = name;
    pdb.metadata.namespace_ = "default";
    ASSERT_TRUE(cluster_.Create(pdb).ok());
  }
  void AddWorkload(const std::string& kind, const std::string& name, int replicas,
                   const std::string& owner_kind = "", const std::string& owner = "") {
    api::ReplicatedWorkload w;
    w.kind = kind;
    w.metadata.name = name;
    w.replicas = replicas;
    if (!owner_kind.empty()) {
      w.metadata.owner_references.push_back(api::OwnerReference{
          .api_version = "apps/v1", .kind = owner_kind, .name = owner, .controller = true});
    }
    ASSERT_TRUE(cluster_.Create(w).ok());
  }
  api::PodDisruptionBudget Pdb(const std::string& name) {
    return *cluster_.Get<api::PodDisruptionBudget>("default", name);
  }
  bool Exists(const std::string& pod) { return cluster_.Get<api::Pod>("default", pod).ok(); }

  core::FakeClock clock_{kStart};
  MemoryCluster cluster_{clock_};
};

TEST_F(EvictionTest, WithoutAPdbThePodIsDeleted) {
  AddPod("web-1", "web");
  ASSERT_TRUE(cluster_.Evict("default", "web-1").ok());
  EXPECT_FALSE(Exists("web-1"));
}

TEST_F(EvictionTest, EvictingAMissingPodIsNotFound) {
  EXPECT_EQ(cluster_.Evict("default", "ghost").code(), core::StatusCode::kNotFound);
}

TEST_F(EvictionTest, MinAvailableTwoOfThreeReadyAllowsOneEvictionThenRefuses) {
  AddPod("web-1", "web");
  AddPod("web-2", "web");
  AddPod("web-3", "web");
  AddPdb("web", {.min_available = Int(2), .selector = AppSelector("web")});

  DisruptionBudgetStatus before = ComputeDisruptionBudgetStatus(cluster_, Pdb("web"));
  EXPECT_EQ(before.expected_pods, 3);
  EXPECT_EQ(before.desired_healthy, 2);
  EXPECT_EQ(before.current_healthy, 3);
  EXPECT_EQ(before.disruptions_allowed, 1);

  ASSERT_TRUE(cluster_.Evict("default", "web-1").ok());
  EXPECT_FALSE(Exists("web-1"));

  core::Status refused = cluster_.Evict("default", "web-2");
  EXPECT_EQ(refused.code(), core::StatusCode::kUnavailable);
  EXPECT_EQ(refused.message(), kViolation);
  EXPECT_TRUE(Exists("web-2"));
}

TEST_F(EvictionTest, MaxUnavailableFiftyPercentOfAFourReplicaDeploymentAllowsTwo) {
  AddWorkload("Deployment", "web", 4);
  AddWorkload("ReplicaSet", "web-abc", 4, "Deployment", "web");
  for (int i = 1; i <= 4; ++i)
    AddPod("web-" + std::to_string(i), "web", true, "ReplicaSet", "web-abc");
  AddPdb("web", {.max_unavailable = Str("50%"), .selector = AppSelector("web")});

  DisruptionBudgetStatus status = ComputeDisruptionBudgetStatus(cluster_, Pdb("web"));
  EXPECT_EQ(status.expected_pods, 4);
  EXPECT_EQ(status.desired_healthy, 2);
  EXPECT_EQ(status.disruptions_allowed, 2);

  EXPECT_TRUE(cluster_.Evict("default", "web-1").ok());
  EXPECT_TRUE(cluster_.Evict("default", "web-2").ok());
  EXPECT_EQ(cluster_.Evict("default", "web-3").code(), core::StatusCode::kUnavailable);
}

TEST_F(EvictionTest, SeveralBudgetsWorkedOutTogetherGetEachTheStatusItGetsAlone) {
  AddWorkload("StatefulSet", "db", 3);
  for (int i = 0; i < 3; ++i) AddPod("db-" + std::to_string(i), "db", true, "StatefulSet", "db");
  AddPod("web-1", "web");
  AddPod("web-2", "web", /*ready=*/false);
  AddPdb("db", {.max_unavailable = Str("50%"), .selector = AppSelector("db")});
  AddPdb("web", {.min_available = Int(1), .selector = AppSelector("web")});
  api::PodDisruptionBudget broken{.min_available = Int(1)};
  broken.selector = api::LabelSelector{{}, {{"app", "Bogus", {}}}};
  AddPdb("broken", broken);

  const api::PodDisruptionBudget db = Pdb("db"), web = Pdb("web"), bad = Pdb("broken");
  auto together = ComputeDisruptionBudgetStatuses(cluster_, {&web, &bad, &db});
  ASSERT_EQ(together.size(), 3u);
  int i = 0;
  for (const api::PodDisruptionBudget* pdb : {&web, &bad, &db}) {
    DisruptionBudgetStatus alone = ComputeDisruptionBudgetStatus(cluster_, *pdb);
    EXPECT_EQ(together[i].expected_pods, alone.expected_pods) << pdb->metadata.name;
    EXPECT_EQ(together[i].desired_healthy, alone.desired_healthy) << pdb->metadata.name;
    EXPECT_EQ(together[i].current_healthy, alone.current_healthy) << pdb->metadata.name;
    EXPECT_EQ(together[i].disruptions_allowed, alone.disruptions_allowed) << pdb->metadata.name;
    EXPECT_EQ(together[i].error, alone.error) << pdb->metadata.name;
    ++i;
  }
  EXPECT_EQ(together[0].current_healthy, 1);
  EXPECT_EQ(together[0].disruptions_allowed, 0);
  EXPECT_FALSE(together[1].error.empty());
  EXPECT_EQ(together[2].disruptions_allowed, 2);
}

TEST_F(EvictionTest, MaxUnavailablePercentRoundsUpAgainstTheControllersScale) {
  // 50% of 3 rounds up to 2 unavailable; desired healthy 1.
  AddWorkload("StatefulSet", "db", 3);
  for (int i = 0; i < 3; ++i) AddPod("db-" + std::to_string(i), "db", true, "StatefulSet", "db");
  AddPdb("db", {.max_unavailable = Str("50%"), .selector = AppSelector("db")});
  DisruptionBudgetStatus status = ComputeDisruptionBudgetStatus(cluster_, Pdb("db"));
  EXPECT_EQ(status.expected_pods, 3);
  EXPECT_EQ(status.desired_healthy, 1);
  EXPECT_EQ(status.disruptions_allowed, 2);
}

TEST_F(EvictionTest, ExpectedCountComesFromTheScaleNotThePodsPresent) {
  // The Deployment wants 4 but only 2 pods exist: 50% max unavailable leaves 2 desired.
  AddWorkload("Deployment", "web", 4);
  AddWorkload("ReplicaSet", "web-abc", 4, "Deployment", "web");
  AddPod("web-1", "web", true, "ReplicaSet", "web-abc");
  AddPod("web-2", "web", true, "ReplicaSet", "web-abc");
  AddPdb("web", {.max_unavailable = Str("50%"), .selector = AppSelector("web")});
  DisruptionBudgetStatus status = ComputeDisruptionBudgetStatus(cluster_, Pdb("web"));
  EXPECT_EQ(status.expected_pods, 4);
  EXPECT_EQ(status.disruptions_allowed, 0);
  EXPECT_EQ(cluster_.Evict("default", "web-1").code(), core::StatusCode::kUnavailable);
}

TEST_F(EvictionTest, MinAvailablePercentRoundsUp) {
  AddWorkload("ReplicaSet", "web-abc", 3);
  for (int i = 1; i <= 3; ++i)
    AddPod("web-" + std::to_string(i), "web", true, "ReplicaSet", "web-abc");
  AddPdb("web", {.min_available = Str("50%"), .selector = AppSelector("web")});
  DisruptionBudgetStatus status = ComputeDisruptionBudgetStatus(cluster_, Pdb("web"));
  EXPECT_EQ(status.desired_healthy, 2);
  EXPECT_EQ(status.disruptions_allowed, 1);
}

TEST_F(EvictionTest, APercentageOverPodsWithoutAKnownControllerAllowsNothing) {
  AddPod("job-1", "batch", true, "Job", "nightly");
  AddPod("job-2", "batch", true, "Job", "nightly");
  AddPdb("batch", {.max_unavailable = Str("50%"), .selector = AppSelector("batch")});
  DisruptionBudgetStatus status = ComputeDisruptionBudgetStatus(cluster_, Pdb("batch"));
  EXPECT_EQ(status.disruptions_allowed, 0);
  EXPECT_THAT(status.error, ::testing::HasSubstr("found no controllers"));
  EXPECT_EQ(cluster_.Evict("default", "job-1").code(), core::StatusCode::kUnavailable);
}

TEST_F(EvictionTest, UnmanagedPodsDoNotCountTowardsAPercentage) {
  AddPod("bare-1", "bare");
  AddPod("bare-2", "bare");
  AddPdb("bare", {.max_unavailable = Int(1), .selector = AppSelector("bare")});
  DisruptionBudgetStatus status = ComputeDisruptionBudgetStatus(cluster_, Pdb("bare"));
  EXPECT_EQ(status.expected_pods, 0);
  EXPECT_EQ(status.disruptions_allowed, 0) << "an expected count of 0 allows nothing";
}

TEST_F(EvictionTest, PendingAndFinishedPodsSkipThePdb) {
  AddPod("web-1", "web");
  AddPdb("web", {.min_available = Str("100%"), .selector = AppSelector("web")});
  api::Pod pending;
  pending.metadata.name = "web-pending";
  pending.metadata.labels["app"] = "web";
  ASSERT_TRUE(cluster_.Create(pending).ok());  // phase defaults to Pending
  api::Pod done = pending;
  done.metadata.name = "web-done";
  done.status.phase = "Succeeded";
  ASSERT_TRUE(cluster_.Create(done).ok());
  EXPECT_TRUE(cluster_.Evict("default", "web-pending").ok());
  EXPECT_TRUE(cluster_.Evict("default", "web-done").ok());
  EXPECT_EQ(cluster_.Evict("default", "web-1").code(), core::StatusCode::kUnavailable);
}

TEST_F(EvictionTest, AnEvictedPodWithAFinalizerStopsCountingAsHealthy) {
  AddPod("web-1", "web");
  AddPod("web-2", "web");
  AddPod("web-3", "web");
  auto pod = cluster_.Get<api::Pod>("default", "web-1");
  pod->metadata.finalizers = {"example.com/hold"};
  ASSERT_TRUE(cluster_.Update(*pod).ok());
  AddPdb("web", {.min_available = Int(2), .selector = AppSelector("web")});

  ASSERT_TRUE(cluster_.Evict("default", "web-1").ok());
  EXPECT_TRUE(cluster_.Get<api::Pod>("default", "web-1")->metadata.deletion_timestamp.has_value());
  EXPECT_EQ(ComputeDisruptionBudgetStatus(cluster_, Pdb("web")).current_healthy, 2);
  EXPECT_EQ(cluster_.Evict("default", "web-2").code(), core::StatusCode::kUnavailable);
  // Evicting the terminating pod again is allowed (and changes nothing).
  EXPECT_TRUE(cluster_.Evict("default", "web-1").ok());
}

TEST_F(EvictionTest, AnUnreadyPodMayGoWhenTheBudgetIsMet) {
  AddPod("web-1", "web");
  AddPod("web-2", "web");
  AddPod("web-3", "web", /*ready=*/false);
  AddPdb("web", {.min_available = Int(2), .selector = AppSelector("web")});
  // currentHealthy 2 >= desiredHealthy 2 though disruptionsAllowed is 0.
  EXPECT_EQ(ComputeDisruptionBudgetStatus(cluster_, Pdb("web")).disruptions_allowed, 0);
  EXPECT_TRUE(cluster_.Evict("default", "web-3").ok());
  EXPECT_EQ(cluster_.Evict("default", "web-2").code(), core::StatusCode::kUnavailable);
}

TEST_F(EvictionTest, AnUnreadyPodStaysWhileTheBudgetIsNotMetUnlessAlwaysAllow) {
  AddPod("web-1", "web");
  AddPod("web-2", "web", /*ready=*/false);
  AddPod("web-3", "web", /*ready=*/false);
  AddPdb("web", {.min_available = Int(2), .selector = AppSelector("web")});
  EXPECT_EQ(cluster_.Evict("default", "web-2").code(), core::StatusCode::kUnavailable);

  ASSERT_TRUE(cluster_.Delete<api::PodDisruptionBudget>("default", "web").ok());
  AddPdb("web", {.min_available = Int(2),
                 .selector = AppSelector("web"),
                 .unhealthy_pod_eviction_policy = "AlwaysAllow"});
  EXPECT_TRUE(cluster_.Evict("default", "web-2").ok());
  EXPECT_EQ(cluster_.Evict("default", "web-1").code(), core::StatusCode::kUnavailable)
      << "a Ready pod still needs budget";
}

TEST_F(EvictionTest, APodGuardedByTwoPdbsCannotBeEvicted) {
  AddPod("web-1", "web");
  AddPdb("a", {.max_unavailable = Int(1), .selector = AppSelector("web")});
  AddPdb("b", {.max_unavailable = Int(1), .selector = AppSelector("web")});
  core::Status st = cluster_.Evict("default", "web-1");
  EXPECT_EQ(st.code(), core::StatusCode::kInternal);
  EXPECT_THAT(st.message(), ::testing::HasSubstr("more than one PodDisruptionBudget"));
}

TEST_F(EvictionTest, PdbsGuardOnlyTheirNamespaceAndAnEmptySelectorGuardsNothing) {
  AddPod("web-1", "web");
  api::PodDisruptionBudget elsewhere{.min_available = Str("100%"), .selector = AppSelector("web")};
  elsewhere.metadata.name = "web";
  elsewhere.metadata.namespace_ = "prod";
  ASSERT_TRUE(cluster_.Create(elsewhere).ok());
  AddPdb("everything", {.min_available = Str("100%"), .selector = api::LabelSelector{}});
  AddPdb("nothing", {.min_available = Str("100%")});
  api::Pod pod = *cluster_.Get<api::Pod>("default", "web-1");
  EXPECT_TRUE(DisruptionBudgetsFor(cluster_, pod).empty());
  EXPECT_TRUE(cluster_.Evict("default", "web-1").ok());
}

struct ScaledCase {
  std::string name;
  api::IntOrString value;
  int total;
  bool round_up;
  int want;  // -1: an error
};

class ScaledValueTest : public ::testing::TestWithParam<ScaledCase> {};

TEST_P(ScaledValueTest, MatchesIntstrGetScaledValueFromIntOrPercent) {
  const ScaledCase& c = GetParam();
  auto got = ScaledValueFromIntOrPercent(c.value, c.total, c.round_up);
  if (c.want < 0) {
    EXPECT_FALSE(got.ok());
  } else {
    ASSERT_TRUE(got.ok()) << got.status().message();
    EXPECT_EQ(*got, c.want);
  }
}

INSTANTIATE_TEST_SUITE_P(Cases, ScaledValueTest,
                         ::testing::Values(ScaledCase{"Int", Int(3), 10, true, 3},
                                           ScaledCase{"HalfOfThreeUp", Str("50%"), 3, true, 2},
                                           ScaledCase{"HalfOfThreeDown", Str("50%"), 3, false, 1},
                                           ScaledCase{"ExactPercent", Str("25%"), 8, true, 2},
                                           ScaledCase{"HundredPercent", Str("100%"), 7, true, 7},
                                           ScaledCase{"ZeroPercent", Str("0%"), 7, true, 0},
                                           ScaledCase{"OfNothing", Str("50%"), 0, true, 0},
                                           ScaledCase{"NotAPercent", Str("5"), 10, true, -1},
                                           ScaledCase{"Garbage", Str("abc%"), 10, true, -1},
                                           ScaledCase{"Empty", Str(""), 10, true, -1}),
                         [](const ::testing::TestParamInfo<ScaledCase>& info) {
                           return info.param.name;
                         });

}  // namespace
}  // namespace nodesmith::cluster
