// Provisioner as a specification: batching windows on the clock, the NodeClaims it creates,
// nominations, no duplicates for pods already planned, and unschedulable pods.
#include "controllers/provisioning/provisioner.h"

#include <gmock/gmock.h>
#include <gtest/gtest.h>

#include "controllers/testing/fixtures.h"

namespace nodesmith::controllers {
namespace {

using std::chrono::milliseconds;
using std::chrono::seconds;
using ::testing::Contains;
using ::testing::ElementsAre;
using ::testing::HasSubstr;
using ::testing::SizeIs;
using testing::PendingPod;
using testing::Pool;
using testing::World;

class ProvisionerTest : public ::testing::Test {
 protected:
  ProvisionerTest() { world_.MustCreate(Pool()); }

  core::Result<runtime::ReconcileResult> Reconcile() { return provisioner_.Reconcile({}); }
  std::vector<api::NodeClaim> Claims() { return world_.cluster.List<api::NodeClaim>(); }

  World world_;
  Provisioner provisioner_{world_.clock, world_.cluster, world_.cloud, world_.recorder};
};

TEST_F(ProvisionerTest, NothingPendingMeansNothingToDo) {
  auto r = Reconcile();
  ASSERT_TRUE(r.ok());
  EXPECT_FALSE(r->requeue_after.has_value());
  EXPECT_EQ(provisioner_.solves(), 0);
}

// The provisioner looks on every pod, node and NodeClaim event; it reads the pods bound to no
// node from the store's index (ClusterApi::ForEachPodOn("")), never every pod of the cluster.
TEST_F(ProvisionerTest, AnEventReadsOnlyThePodsBoundToNoNode) {
  testing::WalkCountingCluster counting(world_.cluster);
  Provisioner provisioner(world_.clock, counting, world_.cloud, world_.recorder);
  world_.MustCreate(PendingPod("a"));
  auto r = provisioner.Reconcile({});
  ASSERT_TRUE(r.ok());
  ASSERT_TRUE(r->requeue_after.has_value()) << "the pending pod opened a batch";
  EXPECT_EQ(counting.walks[cluster::Kind::kPod], 0);
}

TEST_F(ProvisionerTest, PendingPodsOpenABatchThatClosesWhenIdleForOneSecond) {
  world_.MustCreate(PendingPod("a"));
  auto r = Reconcile();
  ASSERT_TRUE(r.ok());
  ASSERT_TRUE(r->requeue_after.has_value());
  EXPECT_EQ(*r->requeue_after, seconds(1));
  EXPECT_TRUE(Claims().empty());

  world_.clock.Step(milliseconds(500));
  world_.MustCreate(PendingPod("b"));
  r = Reconcile();
  ASSERT_TRUE(r.ok());
  EXPECT_EQ(*r->requeue_after, seconds(1)) << "a new pod restarts the idle window";

  world_.clock.Step(milliseconds(999));
  r = Reconcile();
  ASSERT_TRUE(r.ok());
  EXPECT_EQ(*r->requeue_after, milliseconds(1));
  EXPECT_TRUE(Claims().empty());

  world_.clock.Step(milliseconds(1));
  ASSERT_TRUE(Reconcile().ok());
  EXPECT_EQ(provisioner_.solves(), 1);
  EXPECT_FALSE(Claims().empty()) << "the batch was provisioned";
}

// In a real cluster the runtime's thread may be busy (another controller's API write) when a
// pod's change comes in; the reconcile that follows is told when the change was observed, and
// the batch's idle window counts from then, not from the late reconcile.
TEST_F(ProvisionerTest, TheIdleWindowCountsFromWhenThePodsChangeWasObserved) {
  const core::Time observed = world_.clock.Now();
  world_.MustCreate(PendingPod("a"));
  world_.clock.Step(milliseconds(40));
  runtime::Request late;
  late.changed_at[cluster::Kind::kPod] = observed;
  late.changed_at[cluster::Kind::kNodeClaim] = observed + milliseconds(30);  // not an arrival
  auto r = provisioner_.Reconcile(late);
  ASSERT_TRUE(r.ok());
  ASSERT_TRUE(r->requeue_after.has_value());
  EXPECT_EQ(*r->requeue_after, milliseconds(960));

  // A second pod observed 20 ms before its reconcile extends the window from its own arrival.
  world_.clock.Step(milliseconds(500));
  world_.MustCreate(PendingPod("b"));
  late.changed_at[cluster::Kind::kPod] = world_.clock.Now();
  world_.clock.Step(milliseconds(20));
  r = provisioner_.Reconcile(late);
  ASSERT_TRUE(r.ok());
  EXPECT_EQ(*r->requeue_after, milliseconds(980));

  world_.clock.Step(milliseconds(980));
  ASSERT_TRUE(Reconcile().ok());
  EXPECT_EQ(provisioner_.solves(), 1) << "closed 1 s after b was observed";
}

TEST_F(ProvisionerTest, ABatchClosesAfterTenSecondsWhilePodsKeepArriving) {
  int created = 0;
  for (int i = 0; i < 40 && Claims().empty(); ++i) {
    world_.MustCreate(PendingPod("p" + std::to_string(created++), "100m"));
    ASSERT_TRUE(Reconcile().ok());
    if (!Claims().empty()) break;
    world_.clock.Step(milliseconds(500));
  }
  ASSERT_FALSE(Claims().empty());
  EXPECT_EQ(provisioner_.solves(), 1);
  EXPECT_EQ(world_.clock.Now() - testing::kStart, seconds(10));
  EXPECT_EQ(created, 21);  // pods at 0, 0.5, ..., 10 s
}

TEST_F(ProvisionerTest, CreatesANodeClaimFromThePoolTemplateAndTheSolversPlan) {
  api::NodePool pool = world_.MustGet<api::NodePool>("", "default");
  pool.template_.labels = {{"team", "web"}};
  pool.template_.spec.taints = {{"dedicated", "web", "NoSchedule"}};
  pool.template_.spec.startup_taints = {{"cni", "", "NoSchedule"}};
  pool.template_.spec.termination_grace_period = seconds(300);
  ASSERT_TRUE(world_.cluster.Update(pool).ok());
  for (const char* name : {"a", "b", "c"}) {
    api::Pod p = PendingPod(name, "2");  // too big for the small type: all on one large
    p.spec.tolerations = {{"dedicated", "Equal", "web", "NoSchedule", std::nullopt}};
    world_.MustCreate(p);
  }
  ASSERT_TRUE(Reconcile().ok());
  world_.clock.Step(seconds(1));
  ASSERT_TRUE(Reconcile().ok());

  auto claims = Claims();
  ASSERT_THAT(claims, SizeIs(1));
  const api::NodeClaim& c = claims[0];
  EXPECT_THAT(c.metadata.name, HasSubstr("default-"));
  EXPECT_EQ(c.metadata.labels.at(scheduling::kLabelNodePool), "default");
  EXPECT_EQ(c.metadata.labels.at("team"), "web");
  EXPECT_THAT(c.metadata.finalizers, ElementsAre(kTerminationFinalizer));
  EXPECT_EQ(c.metadata.annotations.at(kNodePoolHashAnnotation), NodePoolHash(pool));
  EXPECT_THAT(c.spec.taints, ElementsAre(api::Taint{"dedicated", "web", "NoSchedule"}));
  EXPECT_THAT(c.spec.startup_taints, ElementsAre(api::Taint{"cni", "", "NoSchedule"}));
  EXPECT_EQ(c.spec.node_class_ref.name, "default");
  EXPECT_EQ(c.spec.termination_grace_period, seconds(300));
  EXPECT_EQ(c.spec.resource_requests.Get("cpu"), api::Quantity::MustParse("6"));
  const api::NodeSelectorRequirement* types = nullptr;
  for (const auto& r : c.spec.requirements) {
    if (r.key == scheduling::kLabelInstanceTypeStable) types = &r;
  }
  ASSERT_NE(types, nullptr);
  EXPECT_EQ(types->op, "In");
  EXPECT_THAT(types->values, ElementsAre("large")) << "2 cpu does not fit the small type";

  EXPECT_THAT(world_.Messages(), Contains("Found 3 provisionable pods"));
  EXPECT_THAT(world_.Messages(),
              Contains("Computed packing for 3 pod(s) with instance type option(s) [large]"));
  EXPECT_THAT(world_.Messages(), Contains("Created nodeclaim " + c.metadata.name));
  auto created = world_.recorder.OfType("NodeClaimCreated");
  ASSERT_THAT(created, SizeIs(1));
  EXPECT_EQ(World::Field(created[0], "nodeClaim"), c.metadata.name);
  EXPECT_EQ(World::Field(created[0], "nodePool"), "default");
  EXPECT_EQ(World::Field(created[0], "instanceTypes"), "1");
  EXPECT_EQ(World::Field(created[0], "pods"), "default/a,default/b,default/c");
  EXPECT_THAT(world_.recorder.OfType("PodNominated"), SizeIs(3));
}

// Provisions one pending pod after its batch window; the NodePool of the one NodeClaim made.
std::string PoolOfTheNodeClaimFor(World& world, Provisioner& provisioner) {
  world.MustCreate(PendingPod("web", "1"));
  EXPECT_TRUE(provisioner.Reconcile({}).ok());
  world.clock.Step(seconds(1));
  EXPECT_TRUE(provisioner.Reconcile({}).ok());
  auto claims = world.cluster.List<api::NodeClaim>();
  EXPECT_THAT(claims, SizeIs(1));
  return claims.empty() ? "" : claims[0].metadata.labels.at(scheduling::kLabelNodePool);
}

TEST_F(ProvisionerTest, NodePoolsOfEqualWeightAreTriedByNameDescending) {
  // Karpenter's OrderByWeight: highest weight first, ties by name, "z" before "a".
  world_.MustCreate(Pool("apples"));
  world_.MustCreate(Pool("zucchini"));
  EXPECT_EQ(PoolOfTheNodeClaimFor(world_, provisioner_), "zucchini");
}

TEST_F(ProvisionerTest, PodsAlreadyPlannedOnAnInFlightNodeClaimAreNotProvisionedTwice) {
  world_.MustCreate(PendingPod("a"));
  ASSERT_TRUE(Reconcile().ok());
  world_.clock.Step(seconds(1));
  ASSERT_TRUE(Reconcile().ok());
  ASSERT_THAT(Claims(), SizeIs(1));

  // Time passes, the claim's own creation and unrelated changes re-trigger the controller.
  for (int i = 0; i < 5; ++i) {
    world_.clock.Step(seconds(5));
    ASSERT_TRUE(Reconcile().ok());
  }
  EXPECT_THAT(Claims(), SizeIs(1));

  // Even a forced re-plan (a NodePool change) puts the pod back on the in-flight claim.
  api::NodePool pool = world_.MustGet<api::NodePool>("", "default");
  pool.template_.labels["touched"] = "yes";
  ASSERT_TRUE(world_.cluster.Update(pool).ok());
  ASSERT_TRUE(Reconcile().ok());
  world_.clock.Step(seconds(1));
  ASSERT_TRUE(Reconcile().ok());
  EXPECT_EQ(provisioner_.solves(), 2);
  EXPECT_THAT(Claims(), SizeIs(1));
  EXPECT_THAT(world_.recorder.OfType("PodNominated"), SizeIs(1)) << "nominated once per target";
}

TEST_F(ProvisionerTest, PodsOfADeletedNodeClaimAreProvisionedAgain) {
  world_.MustCreate(PendingPod("a"));
  ASSERT_TRUE(Reconcile().ok());
  world_.clock.Step(seconds(1));
  ASSERT_TRUE(Reconcile().ok());
  auto first = Claims();
  ASSERT_THAT(first, SizeIs(1));

  // The launch failed: the claim goes (finalizer removed as the terminator would).
  ASSERT_TRUE(world_.cluster.Delete<api::NodeClaim>("", first[0].metadata.name).ok());
  api::NodeClaim deleting = world_.MustGet<api::NodeClaim>("", first[0].metadata.name);
  deleting.metadata.finalizers.clear();
  ASSERT_TRUE(world_.cluster.Update(deleting).ok());

  ASSERT_TRUE(Reconcile().ok());
  world_.clock.Step(seconds(1));
  ASSERT_TRUE(Reconcile().ok());
  auto second = Claims();
  ASSERT_THAT(second, SizeIs(1));
  EXPECT_NE(second[0].metadata.name, first[0].metadata.name);
}

TEST_F(ProvisionerTest, PodsThatFitAnExistingNodeAreLeftToTheScheduler) {
  api::Node n;
  n.metadata.name = "existing";
  n.metadata.labels = {{scheduling::kLabelArchStable, "amd64"}, {scheduling::kLabelOSStable, "linux"}};
  n.status.allocatable = {{"cpu", api::Quantity::MustParse("4")},
                          {"memory", api::Quantity::MustParse("8Gi")},
                          {"pods", api::Quantity::MustParse("110")}};
  n.status.conditions = {{"Ready", "True", "", "", testing::kStart}};
  world_.MustCreate(n);
  // Managed and not yet initialized: its not-ready taint is expected to go (a node nobody
  // manages keeps every taint).
  api::NodeClaim claim;
  claim.metadata.name = "default-new";
  claim.metadata.labels[scheduling::kLabelNodePool] = "default";
  claim.status.node_name = "ip-new";
  world_.MustCreate(claim);
  world_.MustCreate(PendingPod("a"));
  ASSERT_TRUE(Reconcile().ok());
  world_.clock.Step(seconds(1));
  ASSERT_TRUE(Reconcile().ok());
  EXPECT_THAT(Claims(), SizeIs(1)) << "no NodeClaim beside the one already there";
  EXPECT_TRUE(world_.recorder.OfType("PodNominated").empty());
  EXPECT_EQ(world_.MustGet<api::Pod>("default", "a").spec.node_name, "");
}

TEST_F(ProvisionerTest, AnUnschedulablePodIsReportedOncePerReasonAndRetried) {
  world_.MustCreate(PendingPod("huge", "64"));
  ASSERT_TRUE(Reconcile().ok());
  world_.clock.Step(seconds(1));
  auto r = Reconcile();
  ASSERT_TRUE(r.ok());
  EXPECT_TRUE(Claims().empty());
  auto warnings = world_.recorder.OfType("PodUnschedulable");
  ASSERT_THAT(warnings, SizeIs(1));
  EXPECT_EQ(warnings[0].level, runtime::LogLevel::kWarn);
  EXPECT_EQ(World::Field(warnings[0], "pod"), "default/huge");
  EXPECT_THAT(warnings[0].message, HasSubstr("Could not schedule pod default/huge: "));
  ASSERT_TRUE(r->requeue_after.has_value()) << "retried later, when capacity may exist";

  world_.clock.Step(*r->requeue_after);
  ASSERT_TRUE(Reconcile().ok());
  world_.clock.Step(seconds(1));
  ASSERT_TRUE(Reconcile().ok());
  EXPECT_EQ(provisioner_.solves(), 2);
  EXPECT_THAT(world_.recorder.OfType("PodUnschedulable"), SizeIs(1));
}

TEST_F(ProvisionerTest, RoundsReportHowManyPodsTheSimulationCouldPlaceNowhere) {
  // Karpenter's karpenter_scheduler_unschedulable_pods_count: the pods a round could not place,
  // recorded when that number changes; pods a new node takes do not count.
  auto reported = [&] {
    std::vector<std::string> out;
    for (const auto& e : world_.recorder.events()) {
      const std::string n = World::Field(e, kUnschedulablePodsField);
      if (!n.empty()) out.push_back(n);
    }
    return out;
  };
  world_.MustCreate(PendingPod("huge", "64"));
  world_.MustCreate(PendingPod("small"));
  ASSERT_TRUE(Reconcile().ok());
  world_.clock.Step(seconds(1));
  auto r = Reconcile();
  ASSERT_TRUE(r.ok());
  EXPECT_THAT(Claims(), SizeIs(1)) << "small gets a node";
  EXPECT_THAT(reported(), ElementsAre("1"));

  world_.clock.Step(*r->requeue_after);
  ASSERT_TRUE(Reconcile().ok());
  world_.clock.Step(seconds(1));
  ASSERT_TRUE(Reconcile().ok());
  EXPECT_THAT(reported(), ElementsAre("1")) << "unchanged: not recorded again";

  ASSERT_TRUE(world_.cluster.Delete<api::Pod>("default", "huge").ok());
  ASSERT_TRUE(world_.cluster.Delete<api::Pod>("default", "small").ok());
  world_.clock.Step(seconds(10));
  ASSERT_TRUE(Reconcile().ok());
  world_.clock.Step(seconds(1));
  ASSERT_TRUE(Reconcile().ok());
  EXPECT_THAT(reported(), ElementsAre("1", "0")) << "nothing pending: none unschedulable";
}

TEST_F(ProvisionerTest, NominationsArePublishedWhilePodsWaitAndDroppedOnceBound) {
  auto nominations = std::make_shared<Nominations>();
  ProvisionerOptions options;
  options.nominations = nominations;
  Provisioner provisioner(world_.clock, world_.cluster, world_.cloud, world_.recorder, options);
  world_.MustCreate(PendingPod("a"));
  ASSERT_TRUE(provisioner.Reconcile({}).ok());
  world_.clock.Step(seconds(1));
  ASSERT_TRUE(provisioner.Reconcile({}).ok());
  auto claims = Claims();
  ASSERT_THAT(claims, SizeIs(1));
  EXPECT_TRUE(nominations->IsNominated(claims[0].metadata.name));

  api::Node n;
  n.metadata.name = "ip-1";
  world_.MustCreate(n);
  ASSERT_TRUE(world_.cluster.Bind("default", "a", "ip-1").ok());
  ASSERT_TRUE(provisioner.Reconcile({}).ok());
  EXPECT_EQ(nominations->size(), 0u);
}

TEST_F(ProvisionerTest, PodsPlacedOnANodeThatIsNotReadyYetAreNominatedToIt) {
  api::Node n;
  n.metadata.name = "ip-new";
  n.metadata.labels = {{scheduling::kLabelArchStable, "amd64"}, {scheduling::kLabelOSStable, "linux"}};
  n.spec.taints = {{scheduling::kTaintNodeNotReady, "", "NoSchedule"}};
  n.status.allocatable = {{"cpu", api::Quantity::MustParse("4")},
                          {"memory", api::Quantity::MustParse("8Gi")},
                          {"pods", api::Quantity::MustParse("110")}};
  world_.MustCreate(n);
  // Managed and not yet initialized: its not-ready taint is expected to go (a node nobody
  // manages keeps every taint).
  api::NodeClaim claim;
  claim.metadata.name = "default-new";
  claim.metadata.labels[scheduling::kLabelNodePool] = "default";
  claim.status.node_name = "ip-new";
  world_.MustCreate(claim);
  world_.MustCreate(PendingPod("a"));
  ASSERT_TRUE(Reconcile().ok());
  world_.clock.Step(seconds(1));
  ASSERT_TRUE(Reconcile().ok());
  EXPECT_THAT(Claims(), SizeIs(1)) << "no NodeClaim beside the one already there";
  auto nominated = world_.recorder.OfType("PodNominated");
  ASSERT_THAT(nominated, SizeIs(1));
  EXPECT_EQ(nominated[0].message, "Nominated pod default/a to node ip-new");
  EXPECT_EQ(World::Field(nominated[0], "node"), "ip-new");
}

TEST_F(ProvisionerTest, APodStillPendingOnceItsNodeIsUpIsPlannedAgain) {
  world_.MustCreate(PendingPod("a"));
  ASSERT_TRUE(Reconcile().ok());
  world_.clock.Step(seconds(1));
  ASSERT_TRUE(Reconcile().ok());
  ASSERT_THAT(Claims(), SizeIs(1));
  const std::string first = Claims()[0].metadata.name;

  // The node comes up, but a DaemonSet pod took most of its room before the pod could bind.
  api::NodeClaim claim = Claims()[0];
  claim.status.node_name = "ip-1";
  claim.status.provider_id = "aws:///zone-a/i-1";
  claim.status.conditions = {{kConditionLaunched, "True", "", "", world_.clock.Now()},
                             {kConditionRegistered, "True", "", "", world_.clock.Now()},
                             {kConditionInitialized, "True", "", "", world_.clock.Now()}};
  ASSERT_TRUE(world_.cluster.Update(claim).ok());
  api::Node n;
  n.metadata.name = "ip-1";
  n.metadata.labels = claim.metadata.labels;
  n.spec.provider_id = claim.status.provider_id;
  n.status.allocatable = {{"cpu", api::Quantity::MustParse("1900m")},
                          {"memory", api::Quantity::MustParse("16Gi")},
                          {"pods", api::Quantity::MustParse("110")}};
  n.status.conditions = {{"Ready", "True", "", "", world_.clock.Now()}};
  world_.MustCreate(n);
  api::Pod agent = PendingPod("agent", "1500m");
  agent.metadata.owner_references = {{"apps/v1", "DaemonSet", "agent", "u", true}};
  world_.MustCreate(agent);
  ASSERT_TRUE(world_.cluster.Bind("default", "agent", "ip-1").ok());

  auto r = Reconcile();
  ASSERT_TRUE(r.ok());
  ASSERT_TRUE(r->requeue_after.has_value());
  EXPECT_EQ(*r->requeue_after, seconds(10));
  world_.clock.Step(seconds(10));
  ASSERT_TRUE(Reconcile().ok());
  world_.clock.Step(seconds(1));
  ASSERT_TRUE(Reconcile().ok());
  auto claims = Claims();
  ASSERT_THAT(claims, SizeIs(2));
  EXPECT_THAT(world_.recorder.OfType("PodNominated").back().message,
              ::testing::Not(HasSubstr(first)));
}

// The node a pod was planned onto is up, but other pods took its room first (kube-scheduler
// places pods as it sees fit): the scheduler tries the pod there, fails and says so in its
// PodScheduled condition. nodesmith plans the pod again within a batch, not after the retry.
class ProvisionerNodeUpTest : public ProvisionerTest {
 protected:
  // Plans `a` onto a new NodeClaim, then brings its node up with all but 400m taken.
  void PlanAndFillItsNode() {
    world_.MustCreate(PendingPod("a"));
    ASSERT_TRUE(Reconcile().ok());
    world_.clock.Step(seconds(1));
    ASSERT_TRUE(Reconcile().ok());
    ASSERT_THAT(Claims(), SizeIs(1));
    first_ = Claims()[0].metadata.name;
    claim_ = Claims()[0];
    claim_.status.node_name = "ip-1";
    claim_.status.provider_id = "aws:///zone-a/i-1";
    claim_.status.conditions = {{kConditionLaunched, "True", "", "", world_.clock.Now()},
                                {kConditionRegistered, "True", "", "", world_.clock.Now()}};
    ASSERT_TRUE(world_.cluster.Update(claim_).ok());
    api::Node n;
    n.metadata.name = "ip-1";
    n.metadata.labels = claim_.metadata.labels;
    n.spec.provider_id = claim_.status.provider_id;
    n.status.allocatable = {{"cpu", api::Quantity::MustParse("1900m")},
                            {"memory", api::Quantity::MustParse("16Gi")},
                            {"pods", api::Quantity::MustParse("110")}};
    n.status.conditions = {{"Ready", "True", "", "", world_.clock.Now()}};
    world_.MustCreate(n);
    world_.MustCreate(PendingPod("other", "1500m"));
    ASSERT_TRUE(world_.cluster.Bind("default", "other", "ip-1").ok());
  }
  void Initialize() {
    claim_ = *world_.cluster.Get<api::NodeClaim>("", first_);
    claim_.status.conditions.push_back({kConditionInitialized, "True", "", "", world_.clock.Now()});
    ASSERT_TRUE(world_.cluster.Update(claim_).ok());
  }
  void SchedulerTurnsAwayA(const std::string& message) {
    auto pod = world_.cluster.Get<api::Pod>("default", "a");
    ASSERT_TRUE(pod.ok());
    pod->status.conditions = {{"PodScheduled", "False", "Unschedulable", message, world_.clock.Now()}};
    ASSERT_TRUE(world_.cluster.Update(*pod).ok());
  }

  std::string first_;
  api::NodeClaim claim_;
};

TEST_F(ProvisionerNodeUpTest, APodTheSchedulerTurnsAwayFromItsNodeIsPlannedAgainInTheNextBatch) {
  PlanAndFillItsNode();
  Initialize();
  ASSERT_TRUE(Reconcile().ok());
  world_.clock.Step(seconds(2));
  SchedulerTurnsAwayA("0/1 nodes are available: 1 Insufficient cpu.");
  auto r = Reconcile();
  ASSERT_TRUE(r.ok());
  ASSERT_TRUE(r->requeue_after.has_value());
  EXPECT_EQ(*r->requeue_after, seconds(1));  // the batch's idle window, not the 10 s retry
  world_.clock.Step(seconds(1));
  ASSERT_TRUE(Reconcile().ok());
  auto claims = Claims();
  ASSERT_THAT(claims, SizeIs(2));
  EXPECT_THAT(world_.recorder.OfType("PodNominated").back().message,
              ::testing::Not(HasSubstr(first_)));
}

TEST_F(ProvisionerNodeUpTest, AVerdictGivenWhileItsNodeIsStillComingUpChangesNothing) {
  PlanAndFillItsNode();  // registered, not initialized: the pod may still land there
  ASSERT_TRUE(Reconcile().ok());
  world_.clock.Step(seconds(2));
  SchedulerTurnsAwayA("0/1 nodes are available: 1 node(s) had untolerated taint.");
  auto r = Reconcile();
  ASSERT_TRUE(r.ok());
  world_.clock.Step(seconds(1));
  ASSERT_TRUE(Reconcile().ok());
  EXPECT_EQ(provisioner_.solves(), 1);
  EXPECT_THAT(Claims(), SizeIs(1));
}

// Karpenter's scheduler logs a round once ("computed new nodeclaim(s) to fit pod(s)" with the
// totals), not once a NodeClaim, and nothing at all of a round that needs no new capacity.
TEST_F(ProvisionerTest, ARoundIsSummedUpInOneLineAndARoundWithoutNewCapacityInNone) {
  auto summaries = [&](const std::string& words) {
    std::vector<runtime::RecordedEvent> out;
    for (const auto& e : world_.recorder.events()) {
      if (e.message.rfind("Computed ", 0) == 0 && e.message.find(words) != std::string::npos) {
        out.push_back(e);
      }
    }
    return out;
  };
  for (const char* name : {"a", "b", "c"}) world_.MustCreate(PendingPod(name, "5"));
  ASSERT_TRUE(Reconcile().ok());
  world_.clock.Step(seconds(1));
  ASSERT_TRUE(Reconcile().ok());
  ASSERT_THAT(Claims(), SizeIs(3)) << "5 cpu each: one large type apiece";
  auto first = summaries(" new nodeclaim(s) to fit ");
  ASSERT_THAT(first, SizeIs(1));
  EXPECT_EQ(first[0].message, "Computed 3 new nodeclaim(s) to fit 3 pod(s)");
  EXPECT_EQ(World::Field(first[0], "nodeclaims"), "3");
  EXPECT_EQ(World::Field(first[0], "pods"), "3");

  world_.MustCreate(PendingPod("d", "1"));  // fits beside one of the three
  world_.clock.Step(seconds(30));
  ASSERT_TRUE(Reconcile().ok());
  world_.clock.Step(seconds(1));
  ASSERT_TRUE(Reconcile().ok());
  ASSERT_THAT(Claims(), SizeIs(3));
  EXPECT_THAT(summaries(" new nodeclaim(s) to fit "), SizeIs(1));
  EXPECT_THAT(summaries(" existing node(s) will fit "), ::testing::IsEmpty());

  world_.MustCreate(PendingPod("e", "1"));
  world_.MustCreate(PendingPod("f", "5"));
  world_.clock.Step(seconds(30));
  ASSERT_TRUE(Reconcile().ok());
  world_.clock.Step(seconds(1));
  ASSERT_TRUE(Reconcile().ok());
  ASSERT_THAT(Claims(), SizeIs(4));
  auto last = summaries(" new nodeclaim(s) to fit ");
  ASSERT_THAT(last, SizeIs(2));
  EXPECT_EQ(last[1].message, "Computed 1 new nodeclaim(s) to fit 1 pod(s)");
  auto existing = summaries(" existing node(s) will fit ");
  ASSERT_THAT(existing, SizeIs(1));
  // e goes beside one of the first three (and d again, if it is still pending there).
  const int pods = std::stoi(World::Field(existing[0], "pods"));
  const int nodes = std::stoi(World::Field(existing[0], "nodes"));
  EXPECT_GE(pods, 1);
  EXPECT_GE(nodes, 1);
  EXPECT_LE(nodes, pods);
  EXPECT_EQ(existing[0].message, "Computed " + std::to_string(nodes) + " existing node(s) will fit " +
                                     std::to_string(pods) + " pod(s)");
}

// Karpenter's "found provisionable pod(s)" names the first five pods; the report carries them.
TEST_F(ProvisionerTest, FoundProvisionablePodsCarriesTheCountAndTheFirstFiveNames) {
  for (int i = 0; i < 7; ++i) world_.MustCreate(PendingPod("p" + std::to_string(i), "100m"));
  ASSERT_TRUE(Reconcile().ok());
  world_.clock.Step(seconds(1));
  ASSERT_TRUE(Reconcile().ok());
  const runtime::RecordedEvent* found = nullptr;
  for (const auto& e : world_.recorder.events()) {
    if (e.message == "Found 7 provisionable pods") found = &e;
  }
  ASSERT_NE(found, nullptr);
  EXPECT_EQ(World::Field(*found, "pods"), "7");
  EXPECT_THAT(runtime::SplitFieldList(World::Field(*found, "firstPods")), SizeIs(5));
}

TEST_F(ProvisionerTest, InstanceTypeOptionsInTheLogAreCutToTwenty) {
  // A catalog of 25 types that all fit: the log names 20 and counts the rest.
  cloud::Catalog catalog;
  catalog.source = "test";
  for (int i = 0; i < 25; ++i) {
    char name[16];
    std::snprintf(name, sizeof(name), "t%02d", i);
    catalog.instance_types.push_back(testing::Type(name, "4", 0.1 + i * 0.01, 1.0));
  }
  world_.cloud.SetCatalog(catalog);
  world_.MustCreate(PendingPod("a"));
  ASSERT_TRUE(Reconcile().ok());
  world_.clock.Step(seconds(1));
  ASSERT_TRUE(Reconcile().ok());
  std::string packing;
  for (const auto& m : world_.Messages()) {
    if (m.rfind("Computed packing", 0) == 0) packing = m;
  }
  EXPECT_THAT(packing, HasSubstr("[t00 t01 t02"));
  EXPECT_THAT(packing, HasSubstr("t19 and 5 other(s)]"));
}

}  // namespace
}  // namespace nodesmith::controllers

namespace nodesmith::controllers {
namespace {

// As Karpenter's IsProvisionable: in a cluster, a pod is planned for only once kube-scheduler
// marked it unschedulable; pods it has not tried yet (or that another scheduler owns) wait.
TEST(ProvisionerUnschedulableConditionTest, PodsWaitUntilASchedulerMarksThemUnschedulable) {
  testing::World world;
  world.MustCreate(testing::Pool());
  ProvisionerOptions options;
  options.require_unschedulable_condition = true;
  Provisioner provisioner(world.clock, world.cluster, world.cloud, world.recorder, options);

  world.MustCreate(testing::PendingPod("untried"));
  ASSERT_TRUE(provisioner.Reconcile({}).ok());
  world.clock.Step(std::chrono::seconds(11));
  ASSERT_TRUE(provisioner.Reconcile({}).ok());
  EXPECT_TRUE(world.cluster.List<api::NodeClaim>().empty());
  EXPECT_EQ(provisioner.solves(), 0);

  auto pod = world.cluster.Get<api::Pod>("default", "untried");
  ASSERT_TRUE(pod.ok()) << pod.status().message();
  pod->status.conditions.push_back(api::Condition{"PodScheduled", "False", "Unschedulable",
                                                  "0/1 nodes are available", {}});
  ASSERT_TRUE(world.cluster.Update(*pod).ok());
  ASSERT_TRUE(provisioner.Reconcile({}).ok());
  world.clock.Step(std::chrono::seconds(1));
  ASSERT_TRUE(provisioner.Reconcile({}).ok());
  EXPECT_EQ(world.cluster.List<api::NodeClaim>().size(), 1u);
}

}  // namespace
}  // namespace nodesmith::controllers
