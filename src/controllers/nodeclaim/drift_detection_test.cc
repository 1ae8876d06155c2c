// Drift detection as a specification: each way a NodeClaim drifts sets Drifted with its reason,
// and undoing the change clears it; NodePoolHash covers what Karpenter hashes and nothing else.
#include "controllers/nodeclaim/drift_detection.h"

#include <gmock/gmock.h>
#include <gtest/gtest.h>

#include "controllers/testing/fixtures.h"

namespace nodesmith::controllers {
namespace {

using std::chrono::hours;
using std::chrono::seconds;
using ::testing::ElementsAre;
using testing::World;
namespace s = scheduling;

class DriftDetectionTest : public ::testing::Test {
 protected:
  DriftDetectionTest() { world_.MustCreate(testing::Pool()); }

  // A Launched NodeClaim of the default pool, stamped with the pool's current hash, whose
  // instance (a spot "small") runs in the simulated cloud.
  api::NodeClaim Launch(const std::string& name) {
    api::NodeClaim c;
    c.metadata.name = name;
    c.metadata.labels = {{s::kLabelNodePool, "default"}};
    c.spec.requirements = {{s::kLabelInstanceTypeStable, "In", {"small"}, std::nullopt},
                           {s::kLabelCapacityType, "In", {"spot"}, std::nullopt}};
    auto launched = world_.cloud.Create(c);
    EXPECT_TRUE(launched.ok()) << launched.status().message();
    if (!launched.ok()) return c;
    c = std::move(launched).value();
    c.metadata.annotations[kNodePoolHashAnnotation] = NodePoolHash(Pool());
    c.metadata.annotations[kNodePoolHashVersionAnnotation] = kNodePoolHashVersion;
    SetCondition(c.status.conditions, kConditionLaunched, "True", "Launched", world_.clock.Now());
    return world_.MustCreate(c);
  }
  api::NodePool Pool() { return world_.MustGet<api::NodePool>("", "default"); }
  void UpdatePool(const std::function<void(api::NodePool&)>& fn) {
    api::NodePool p = Pool();
    fn(p);
    ASSERT_TRUE(world_.cluster.Update(p).ok());
  }
  // Runs detection, then: the Drifted reason of the NodeClaim, "" when it has no condition.
  std::string Detect(const std::string& name = "default-a") {
    core::Status st = MarkDrift(world_.clock, world_.cluster, world_.cloud);
    EXPECT_TRUE(st.ok()) << st.message();
    api::NodeClaim c = world_.MustGet<api::NodeClaim>("", name);
    const api::Condition* drifted = c.FindCondition(kConditionDrifted);
    if (drifted == nullptr) return "";
    EXPECT_EQ(drifted->status, "True");
    return drifted->reason;
  }

  // Runs detection and expects the NodeClaim not written: its reason, and version, as they were.
  void ExpectLeftAsItIs(const std::string& reason, const std::string& name = "default-a") {
    const std::string version = world_.MustGet<api::NodeClaim>("", name).metadata.resource_version;
    EXPECT_EQ(Detect(name), reason);
    EXPECT_EQ(world_.MustGet<api::NodeClaim>("", name).metadata.resource_version, version);
  }

  World world_;
};

TEST_F(DriftDetectionTest, ANodeClaimMatchingItsPoolIsNotDrifted) {
  Launch("default-a");
  EXPECT_EQ(Detect(), "");
}

TEST_F(DriftDetectionTest, ChangingAHashedTemplateFieldIsNodePoolDriftAndUndoingItClearsIt) {
  Launch("default-a");
  UpdatePool([](api::NodePool& p) { p.template_.labels["team"] = "web"; });
  EXPECT_EQ(Detect(), kDriftReasonNodePoolDrifted);
  api::NodeClaim c = world_.MustGet<api::NodeClaim>("", "default-a");
  EXPECT_EQ(c.FindCondition(kConditionDrifted)->last_transition_time, world_.clock.Now());

  UpdatePool([](api::NodePool& p) { p.template_.labels.erase("team"); });
  EXPECT_EQ(Detect(), "");
}

TEST_F(DriftDetectionTest, AHashFromAnotherHashVersionIsNotCompared) {
  api::NodeClaim c = Launch("default-a");
  c.metadata.annotations[kNodePoolHashVersionAnnotation] = "v2";
  ASSERT_TRUE(world_.cluster.Update(c).ok());
  UpdatePool([](api::NodePool& p) { p.template_.spec.taints = {{"dedicated", "web", "NoSchedule"}}; });
  EXPECT_EQ(Detect(), "");
}

TEST_F(DriftDetectionTest, LabelsNoLongerSatisfyingTheRequirementsIsRequirementsDrift) {
  Launch("default-a");
  UpdatePool([](api::NodePool& p) {
    p.template_.spec.requirements = {{s::kLabelCapacityType, "In", {"on-demand"}, std::nullopt}};
  });
  EXPECT_EQ(Detect(), kDriftReasonRequirementsDrifted) << "requirements are not in the hash";

  UpdatePool([](api::NodePool& p) {
    p.template_.spec.requirements = {
        {s::kLabelCapacityType, "In", {"on-demand", "spot"}, std::nullopt}};
  });
  EXPECT_EQ(Detect(), "") << "widening the requirements keeps the node";
}

TEST_F(DriftDetectionTest, ARequiredKeyTheNodeClaimHasNoLabelForIsRequirementsDrift) {
  Launch("default-a");
  UpdatePool([](api::NodePool& p) {
    p.template_.spec.requirements.push_back({"example.com/team", "In", {"web"}, std::nullopt});
  });
  EXPECT_EQ(Detect(), kDriftReasonRequirementsDrifted);

  UpdatePool([](api::NodePool& p) {
    p.template_.spec.requirements.back() = {"example.com/team", "DoesNotExist", {}, std::nullopt};
  });
  EXPECT_EQ(Detect(), "") << "a key that must be absent is satisfied by its absence";
}

TEST_F(DriftDetectionTest, AnInstanceTypeLeavingTheCatalogIsTheCloudsDrift) {
  Launch("default-a");
  cloud::Catalog without_small = testing::TestCatalog();
  std::erase_if(without_small.instance_types,
                [](const cloud::InstanceTypePtr& t) { return t->name == "small"; });
  world_.cloud.SetCatalog(without_small);
  EXPECT_EQ(Detect(), cloud::sim::kDriftInstanceTypeNotFound);

  world_.cloud.SetCatalog(testing::TestCatalog());
  EXPECT_EQ(Detect(), "");
}

TEST_F(DriftDetectionTest, TheCloudsOwnReasonIsRecorded) {
  api::NodeClaim c = Launch("default-a");
  ASSERT_TRUE(world_.cloud.SetDrift(c.status.provider_id, "AMIDrift").ok());
  EXPECT_EQ(Detect(), "AMIDrift");
  ASSERT_TRUE(world_.cloud.SetDrift(c.status.provider_id, "").ok());
  EXPECT_EQ(Detect(), "");
}

// `disrupt` reads a snapshot: the cloud behind it cannot re-derive an AMI or subnet drift.
TEST_F(DriftDetectionTest, ASnapshotsViewKeepsDriftItCannotExplain) {
  api::NodeClaim c = Launch("default-a");
  SetCondition(c.status.conditions, kConditionDrifted, "True", "AMIDrift", world_.clock.Now());
  ASSERT_TRUE(world_.cluster.Update(c).ok());
  ASSERT_TRUE(MarkDrift(world_.clock, world_.cluster, world_.cloud, nullptr,
                        UnexplainedDrift::kKeep).ok());
  const api::NodeClaim kept = world_.MustGet<api::NodeClaim>("", "default-a");
  const api::Condition* drifted = kept.FindCondition(kConditionDrifted);  // points into `kept`
  ASSERT_NE(drifted, nullptr);
  EXPECT_EQ(drifted->reason, "AMIDrift");
  EXPECT_EQ(Detect(), "") << "the controller's view asks the cloud, and clears it";
}

TEST_F(DriftDetectionTest, ClusterSideReasonsComeBeforeTheClouds) {
  api::NodeClaim c = Launch("default-a");
  ASSERT_TRUE(world_.cloud.SetDrift(c.status.provider_id, "AMIDrift").ok());
  UpdatePool([](api::NodePool& p) { p.template_.annotations["owner"] = "payments"; });
  EXPECT_EQ(Detect(), kDriftReasonNodePoolDrifted);
}

TEST_F(DriftDetectionTest, OnlyLaunchedNodeClaimsAreJudged) {
  api::NodeClaim c = Launch("default-a");
  UpdatePool([](api::NodePool& p) { p.template_.labels["team"] = "web"; });
  ASSERT_EQ(Detect(), kDriftReasonNodePoolDrifted);

  c = world_.MustGet<api::NodeClaim>("", "default-a");
  SetCondition(c.status.conditions, kConditionLaunched, "False", "LaunchFailed",
               world_.clock.Now());
  ASSERT_TRUE(world_.cluster.Update(c).ok());
  EXPECT_EQ(Detect(), "") << "a stale Drifted condition is removed";
}

// As Karpenter's nodeclaim.disruption: a NodeClaim being deleted is left alone. Its Drifted
// condition says why it is going; clearing it would be a write that tells nobody anything.
TEST_F(DriftDetectionTest, ADeletingNodeClaimKeepsItsDriftedConditionAndIsNotWritten) {
  api::NodeClaim c = Launch("default-a");
  c.metadata.finalizers = {kTerminationFinalizer};
  ASSERT_TRUE(world_.cluster.Update(c).ok());
  UpdatePool([](api::NodePool& p) { p.template_.labels["team"] = "web"; });
  ASSERT_EQ(Detect(), kDriftReasonNodePoolDrifted);
  ASSERT_TRUE(world_.cluster.Delete<api::NodeClaim>("", "default-a").ok());
  ExpectLeftAsItIs(kDriftReasonNodePoolDrifted);
}

// Nor is a NodeClaim whose NodePool is gone (or never named): without the pool there is
// nothing to judge it against, and the condition it has stays as it was.
TEST_F(DriftDetectionTest, ANodeClaimWithoutItsPoolIsLeftAsItIs) {
  Launch("default-a");
  UpdatePool([](api::NodePool& p) { p.template_.labels["team"] = "web"; });
  ASSERT_EQ(Detect(), kDriftReasonNodePoolDrifted);
  ASSERT_TRUE(world_.cluster.Delete<api::NodePool>("", "default").ok());
  ExpectLeftAsItIs(kDriftReasonNodePoolDrifted);
}

TEST_F(DriftDetectionTest, TheControllerRunsMarkDriftAndPollsForCloudSideDrift) {
  api::NodeClaim c = Launch("default-a");
  DriftDetection controller(world_.clock, world_.cluster, world_.cloud, world_.recorder);
  EXPECT_EQ(controller.Name(), "nodeclaim.disruption");
  EXPECT_THAT(controller.Watches(),
              ElementsAre(cluster::Kind::kNodeClaim, cluster::Kind::kNodePool));
  ASSERT_TRUE(world_.cloud.SetDrift(c.status.provider_id, "AMIDrift").ok());
  auto r = controller.Reconcile({});
  ASSERT_TRUE(r.ok()) << r.status().message();
  EXPECT_EQ(r->requeue_after, seconds(30));
  c = world_.MustGet<api::NodeClaim>("", "default-a");
  EXPECT_TRUE(c.IsTrue(kConditionDrifted));
  EXPECT_EQ(c.FindCondition(kConditionDrifted)->reason, "AMIDrift");
  EXPECT_THAT(world_.Messages(), ElementsAre("marking drifted"));

  // Nothing changed: nothing is written or logged again.
  const std::string version = c.metadata.resource_version;
  ASSERT_TRUE(controller.Reconcile({}).ok());
  EXPECT_EQ(world_.MustGet<api::NodeClaim>("", "default-a").metadata.resource_version, version);
  EXPECT_THAT(world_.Messages(), ElementsAre("marking drifted"));
}

// NodePoolHash hashes the template as Karpenter's NodePool.Hash: labels, annotations, taints,
// startup taints, nodeClassRef, expireAfter and terminationGracePeriod; not the requirements,
// and nothing outside the template.
TEST(NodePoolHash, ChangesWithEveryHashedTemplateField) {
  const api::NodePool base = testing::Pool();
  const std::string h = NodePoolHash(base);
  std::vector<std::pair<std::string, std::function<void(api::NodePool&)>>> changes = {
      {"labels", [](api::NodePool& p) { p.template_.labels["a"] = "b"; }},
      {"annotations", [](api::NodePool& p) { p.template_.annotations["a"] = "b"; }},
      {"taints", [](api::NodePool& p) { p.template_.spec.taints = {{"k", "v", "NoSchedule"}}; }},
      {"startupTaints",
       [](api::NodePool& p) { p.template_.spec.startup_taints = {{"k", "v", "NoSchedule"}}; }},
      {"nodeClassRef", [](api::NodePool& p) { p.template_.spec.node_class_ref.name = "other"; }},
      {"expireAfter",
       [](api::NodePool& p) { p.template_.spec.expire_after = core::NillableDuration{}; }},
      {"terminationGracePeriod",
       [](api::NodePool& p) { p.template_.spec.termination_grace_period = hours(1); }},
  };
  for (const auto& [field, change] : changes) {
    api::NodePool p = base;
    change(p);
    EXPECT_NE(NodePoolHash(p), h) << field;
  }
}

TEST(NodePoolHash, IgnoresRequirementsTaintOrderAndWhatIsOutsideTheTemplate) {
  api::NodePool base = testing::Pool();
  base.template_.spec.taints = {{"a", "1", "NoSchedule"}, {"b", "2", "NoExecute"}};
  const std::string h = NodePoolHash(base);

  api::NodePool p = base;
  p.template_.spec.requirements.push_back({s::kLabelArchStable, "In", {"arm64"}, std::nullopt});
  p.template_.spec.taints = {{"b", "2", "NoExecute"}, {"a", "1", "NoSchedule"}};
  p.disruption.budgets = {api::Budget{"0", std::nullopt, std::nullopt, {}}};
  p.disruption.consolidate_after = core::NillableDuration{seconds(5)};
  p.weight = 50;
  EXPECT_EQ(NodePoolHash(p), h);
}

}  // namespace
}  // namespace nodesmith::controllers
