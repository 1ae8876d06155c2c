// SimulatedCloud as a specification: which offering a launch picks, what insufficient capacity
// does, how instances live and are billed in virtual time, interruptions, failures and drift.
#include "cloud/sim/simulated_cloud.h"

#include <gmock/gmock.h>
#include <gtest/gtest.h>

#include <regex>
#include <set>

#include "cloud/labels.h"
#include "scheduling/well_known_labels.h"

namespace nodesmith::cloud::sim {
namespace {

namespace s = scheduling;
using api::Quantity;
using std::chrono::minutes;
using std::chrono::seconds;
using ::testing::ElementsAre;
using ::testing::HasSubstr;
using ::testing::IsEmpty;

const core::Time kStart = core::Time::FromUnixSeconds(1735689600);  // 2025-01-01T00:00:00Z

Offering Off(std::string zone, std::string capacity_type, double price, bool available = true) {
  return Offering{std::move(zone), std::move(capacity_type), price, available, {}};
}

InstanceTypePtr Type(std::string name, std::string cpu, std::vector<Offering> offerings,
                     api::Labels labels = {{s::kLabelArchStable, "amd64"},
                                           {s::kLabelOSStable, "linux"}}) {
  Overhead overhead;
  overhead.kube_reserved = {{"cpu", Quantity::MustParse("100m")}};
  return NewInstanceType(std::move(name), s::Requirements::FromLabels(labels),
                         {{"cpu", Quantity::MustParse(cpu)},
                          {"memory", Quantity::MustParse("8Gi")},
                          {"pods", Quantity::MustParse("110")}},
                         overhead, std::move(offerings));
}

// small: 2 cpu, spot 0.03 in zone-a, 0.04 in zone-b, on-demand 0.10 in both.
// large: 8 cpu, spot 0.12 / on-demand 0.40 in both zones.
Catalog TestCatalog() {
  Catalog c;
  c.source = "test";
  c.region = "test-region";
  c.instance_types = {
      Type("large", "8",
           {Off("zone-a", kCapacityTypeSpot, 0.12), Off("zone-a", kCapacityTypeOnDemand, 0.40),
            Off("zone-b", kCapacityTypeSpot, 0.12), Off("zone-b", kCapacityTypeOnDemand, 0.40)}),
      Type("small", "2",
           {Off("zone-a", kCapacityTypeSpot, 0.03), Off("zone-a", kCapacityTypeOnDemand, 0.10),
            Off("zone-b", kCapacityTypeSpot, 0.04), Off("zone-b", kCapacityTypeOnDemand, 0.10)}),
  };
  return c;
}

api::NodeClaim Claim(std::vector<api::NodeSelectorRequirement> requirements,
                     api::ResourceList requests = {}) {
  api::NodeClaim claim;
  claim.metadata.name = "default-abcde";
  claim.metadata.labels = {{s::kLabelNodePool, "default"}};
  claim.spec.requirements = std::move(requirements);
  claim.spec.resource_requests = std::move(requests);
  return claim;
}

api::NodeSelectorRequirement In(std::string key, std::vector<std::string> values) {
  return {std::move(key), "In", std::move(values), std::nullopt};
}

api::NodeSelectorRequirement Types(std::vector<std::string> names) {
  return In(s::kLabelInstanceTypeStable, std::move(names));
}

class SimulatedCloudTest : public ::testing::Test {
 protected:
  core::FakeClock clock_{kStart};
  SimulatedCloud cloud_{clock_, TestCatalog(), CloudTimings{}, /*seed=*/42};

  // Launches and returns the provider id. REQUIRES: the launch succeeds.
  std::string Launch(std::vector<api::NodeSelectorRequirement> reqs) {
    auto created = cloud_.Create(Claim(std::move(reqs)));
    EXPECT_TRUE(created.ok()) << created.status().message();
    return created.ok() ? created->status.provider_id : "";
  }
  const SimulatedInstance& Instance(const std::string& provider_id) {
    const SimulatedInstance* inst = cloud_.FindInstance(provider_id);
    EXPECT_NE(inst, nullptr);
    return *inst;
  }
  api::NodeClaim ClaimFor(const std::string& provider_id) {
    api::NodeClaim claim;
    claim.status.provider_id = provider_id;
    return claim;
  }
};

// --- Launch: which offering ---

TEST_F(SimulatedCloudTest, LaunchesTheCheapestAvailableCompatibleOffering) {
  auto created = cloud_.Create(Claim({Types({"large", "small"})}));
  ASSERT_TRUE(created.ok()) << created.status().message();
  const api::Labels& labels = created->metadata.labels;
  EXPECT_EQ(labels.at(s::kLabelInstanceTypeStable), "small");
  EXPECT_EQ(labels.at(s::kLabelTopologyZone), "zone-a");
  EXPECT_EQ(labels.at(s::kLabelCapacityType), "spot");
  EXPECT_EQ(labels.at(s::kLabelTopologyRegion), "test-region");
  EXPECT_EQ(labels.at(s::kLabelArchStable), "amd64");
  EXPECT_EQ(labels.at(s::kLabelOSStable), "linux");
  EXPECT_EQ(labels.at(s::kLabelNodePool), "default") << "the NodeClaim's own labels are kept";
  EXPECT_EQ(created->metadata.name, "default-abcde");
  EXPECT_TRUE(
      std::regex_match(created->status.provider_id, std::regex(R"(aws:///zone-a/i-[0-9a-f]{17})")))
      << created->status.provider_id;
  EXPECT_EQ(created->status.capacity.Get("cpu"), Quantity::MustParse("2"));
  EXPECT_EQ(created->status.allocatable.Get("cpu"), Quantity::MustParse("1900m"));
  EXPECT_DOUBLE_EQ(Instance(created->status.provider_id).price_per_hour, 0.03);
  EXPECT_THAT(cloud_.LastUnavailableOfferings(), IsEmpty());
}

TEST_F(SimulatedCloudTest, LaunchHonoursZoneAndCapacityTypeRequirements) {
  auto created =
      cloud_.Create(Claim({Types({"large", "small"}), In(s::kLabelTopologyZone, {"zone-b"}),
                           In(s::kLabelCapacityType, {"on-demand"})}));
  ASSERT_TRUE(created.ok()) << created.status().message();
  const SimulatedInstance& inst = Instance(created->status.provider_id);
  EXPECT_EQ(inst.instance_type, "small");
  EXPECT_EQ(inst.zone, "zone-b");
  EXPECT_EQ(inst.capacity_type, "on-demand");
  EXPECT_DOUBLE_EQ(inst.price_per_hour, 0.10);
  EXPECT_EQ(created->status.provider_id.rfind("aws:///zone-b/", 0), 0u);
}

TEST_F(SimulatedCloudTest, LaunchOnlyConsidersTypesThatFitTheRequests) {
  auto created =
      cloud_.Create(Claim({Types({"large", "small"})}, {{"cpu", Quantity::MustParse("4")}}));
  ASSERT_TRUE(created.ok()) << created.status().message();
  EXPECT_EQ(Instance(created->status.provider_id).instance_type, "large");
}

TEST_F(SimulatedCloudTest, WithoutAnInstanceTypeRequirementEveryCatalogTypeIsAnOption) {
  auto created = cloud_.Create(Claim({}));
  ASSERT_TRUE(created.ok()) << created.status().message();
  EXPECT_EQ(Instance(created->status.provider_id).instance_type, "small");
}

TEST(SimulatedCloudTies, EqualPricesAreBrokenByTypeNameThenZone) {
  Catalog c;
  c.source = "ties";
  c.instance_types = {
      Type("b-type", "2", {Off("zone-a", kCapacityTypeSpot, 0.05)}),
      Type("a-type", "2",
           {Off("zone-c", kCapacityTypeSpot, 0.05), Off("zone-b", kCapacityTypeSpot, 0.05)})};
  core::FakeClock clock(kStart);
  SimulatedCloud cloud(clock, c);
  auto created = cloud.Create(Claim({Types({"a-type", "b-type"})}));
  ASSERT_TRUE(created.ok()) << created.status().message();
  EXPECT_EQ(created->metadata.labels.at(s::kLabelInstanceTypeStable), "a-type");
  EXPECT_EQ(created->metadata.labels.at(s::kLabelTopologyZone), "zone-b");
  EXPECT_THAT(created->metadata.labels,
              ::testing::Not(::testing::Contains(::testing::Key(s::kLabelTopologyRegion))))
      << "no region label when the catalog names none";
}

TEST(SimulatedCloudLabels, AMultiValuedOsIsResolvedWithinTheNodeClaimsRequirements) {
  Catalog c;
  c.source = "os";
  s::Requirements reqs = s::Requirements::FromLabels({{s::kLabelArchStable, "arm64"}});
  reqs.Add(s::Requirement::In(s::kLabelOSStable, {"linux", "windows"}));
  c.instance_types = {NewInstanceType("multi-os", reqs, {{"cpu", Quantity::MustParse("2")}}, {},
                                      {Off("zone-a", kCapacityTypeOnDemand, 0.1)})};
  core::FakeClock clock(kStart);
  SimulatedCloud cloud(clock, c);
  auto created = cloud.Create(Claim({In(s::kLabelOSStable, {"windows"})}));
  ASSERT_TRUE(created.ok()) << created.status().message();
  EXPECT_EQ(created->metadata.labels.at(s::kLabelOSStable), "windows");
  EXPECT_EQ(created->metadata.labels.at(s::kLabelArchStable), "arm64");
}

// --- Insufficient capacity ---

TEST_F(SimulatedCloudTest, AnInsufficientCapacityWindowSkipsTheCheapestOfferingUntilItExpires) {
  cloud_.MarkUnavailable({"small", "zone-a", "spot"}, kStart + minutes(10));

  auto during = cloud_.Create(Claim({Types({"small"})}));
  ASSERT_TRUE(during.ok()) << during.status().message();
  EXPECT_EQ(during->metadata.labels.at(s::kLabelTopologyZone), "zone-b");
  EXPECT_EQ(during->metadata.labels.at(s::kLabelCapacityType), "spot");
  EXPECT_THAT(cloud_.LastUnavailableOfferings(),
              ElementsAre(OfferingRef{"small", "zone-a", "spot"}));
  EXPECT_EQ(cloud_.NextAvailabilityChange(), kStart + minutes(10));

  auto types = cloud_.GetInstanceTypes(api::NodePool{});
  ASSERT_TRUE(types.ok());
  ASSERT_EQ(types->size(), 2u);
  const InstanceType& small = *(*types)[1];
  ASSERT_EQ(small.name, "small");
  EXPECT_FALSE(small.offerings[0].available) << "zone-a spot";
  EXPECT_TRUE(small.offerings[1].available) << "zone-a on-demand";
  EXPECT_EQ(small.CheapestOffering({})->zone, "zone-b");
  EXPECT_EQ((*types)[0], cloud_.catalog().instance_types[0]) << "unaffected types are shared";

  clock_.Step(minutes(10));
  auto after = cloud_.Create(Claim({Types({"small"})}));
  ASSERT_TRUE(after.ok()) << after.status().message();
  EXPECT_EQ(after->metadata.labels.at(s::kLabelTopologyZone), "zone-a");
  EXPECT_THAT(cloud_.LastUnavailableOfferings(), IsEmpty());
  auto types_after = cloud_.GetInstanceTypes(api::NodePool{});
  EXPECT_TRUE((*types_after)[1]->offerings[0].available);
  EXPECT_EQ(cloud_.NextAvailabilityChange(), std::nullopt);
}

TEST_F(SimulatedCloudTest, AnOfferingWithNoCapacityLeftDropsOutOfTheTypesRequirements) {
  cloud_.MarkUnavailable({"small", "zone-a", "spot"}, kStart + minutes(5));
  cloud_.MarkUnavailable({"small", "zone-a", "on-demand"}, kStart + minutes(5));
  auto types = cloud_.GetInstanceTypes(api::NodePool{});
  ASSERT_TRUE(types.ok());
  const s::Requirement* zones = (*types)[1]->requirements.Find(s::kLabelTopologyZone);
  ASSERT_NE(zones, nullptr);
  EXPECT_THAT(zones->Values(), ElementsAre("zone-b"));
}

TEST_F(SimulatedCloudTest, WhenEveryCompatibleOfferingIsUnavailableCreateFailsNamingThem) {
  cloud_.MarkUnavailable({"small", "zone-a", "spot"}, kStart + minutes(10));
  cloud_.MarkUnavailable({"small", "zone-b", "spot"}, kStart + minutes(10));

  auto created = cloud_.Create(Claim({Types({"small"}), In(s::kLabelCapacityType, {"spot"})}));
  ASSERT_FALSE(created.ok());
  EXPECT_EQ(created.status().code(), core::StatusCode::kUnavailable);
  EXPECT_THAT(created.status().message(), HasSubstr("insufficient capacity"));
  EXPECT_THAT(created.status().message(), HasSubstr("small/zone-a/spot"));
  EXPECT_THAT(created.status().message(), HasSubstr("small/zone-b/spot"));
  EXPECT_THAT(
      cloud_.LastUnavailableOfferings(),
      ElementsAre(OfferingRef{"small", "zone-a", "spot"}, OfferingRef{"small", "zone-b", "spot"}));
  EXPECT_THAT(cloud_.List(), IsEmpty());
}

TEST_F(SimulatedCloudTest, OfferingsTheCatalogMarksUnavailableAreNeverLaunched) {
  Catalog c;
  c.source = "closed";
  c.instance_types = {Type("only", "2",
                           {Off("zone-a", kCapacityTypeSpot, 0.01, /*available=*/false),
                            Off("zone-a", kCapacityTypeOnDemand, 0.2)})};
  SimulatedCloud cloud(clock_, c);
  auto created = cloud.Create(Claim({}));
  ASSERT_TRUE(created.ok()) << created.status().message();
  EXPECT_EQ(created->metadata.labels.at(s::kLabelCapacityType), "on-demand");
}

TEST_F(SimulatedCloudTest, NoCompatibleInstanceTypeIsInsufficientCapacityWithNothingTried) {
  auto created = cloud_.Create(Claim({Types({"small"})}, {{"cpu", Quantity::MustParse("64")}}));
  ASSERT_FALSE(created.ok());
  EXPECT_EQ(created.status().code(), core::StatusCode::kUnavailable);
  EXPECT_THAT(created.status().message(), HasSubstr("no instance type"));
  EXPECT_THAT(cloud_.LastUnavailableOfferings(), IsEmpty());
}

// --- Lifecycle ---

TEST_F(SimulatedCloudTest, AnInstanceIsPendingUntilTheLaunchLatencyThenRunning) {
  const std::string id = Launch({Types({"small"})});
  EXPECT_EQ(Instance(id).StateAt(clock_.Now()), InstanceState::kPending);
  EXPECT_EQ(cloud_.NextTransitionTime(), kStart + seconds(3));
  EXPECT_THAT(cloud_.AdvanceTo(kStart + seconds(2)), IsEmpty());

  clock_.Step(seconds(3));
  EXPECT_EQ(Instance(id).StateAt(clock_.Now()), InstanceState::kRunning);
  EXPECT_THAT(cloud_.AdvanceTo(clock_.Now()),
              ElementsAre(InstanceTransition{kStart + seconds(3), id, InstanceState::kRunning}));
  EXPECT_THAT(cloud_.AdvanceTo(clock_.Now()), IsEmpty()) << "each transition is reported once";
  EXPECT_EQ(cloud_.NextTransitionTime(), std::nullopt);
}

TEST_F(SimulatedCloudTest, DeleteTerminatesAtOnceAndASecondDeleteIsNotFound) {
  const std::string id = Launch({Types({"small"})});
  clock_.Step(minutes(1));
  ASSERT_TRUE(cloud_.Delete(ClaimFor(id)).ok());
  EXPECT_EQ(Instance(id).StateAt(clock_.Now()), InstanceState::kTerminated);

  const core::Status again = cloud_.Delete(ClaimFor(id));
  EXPECT_EQ(again.code(), core::StatusCode::kNotFound);
  EXPECT_EQ(cloud_.Get(id).status().code(), core::StatusCode::kNotFound);
  EXPECT_THAT(cloud_.List(), IsEmpty());
  EXPECT_EQ(cloud_.Delete(ClaimFor("aws:///zone-a/i-0000000000000dead")).code(),
            core::StatusCode::kNotFound);
  EXPECT_THAT(cloud_.AdvanceTo(clock_.Now()),
              ElementsAre(InstanceTransition{kStart + seconds(3), id, InstanceState::kRunning},
                          InstanceTransition{kStart + minutes(1), id, InstanceState::kShuttingDown},
                          InstanceTransition{kStart + minutes(1), id, InstanceState::kTerminated}));
}

TEST_F(SimulatedCloudTest, WithATerminationLatencyAnInstanceShutsDownBeforeItIsGone) {
  CloudTimings timings;
  timings.termination_latency = seconds(30);
  SimulatedCloud cloud(clock_, TestCatalog(), timings);
  auto created = cloud.Create(Claim({}));
  ASSERT_TRUE(created.ok());
  const std::string id = created->status.provider_id;
  clock_.Step(minutes(1));
  ASSERT_TRUE(cloud.Delete(*created).ok());

  auto shutting = cloud.Get(id);
  ASSERT_TRUE(shutting.ok());
  EXPECT_EQ(shutting->metadata.deletion_timestamp, clock_.Now());
  EXPECT_EQ(cloud.List().size(), 1u);
  EXPECT_TRUE(cloud.Delete(*created).ok()) << "deleting a shutting-down instance is not an error";
  EXPECT_EQ(cloud.NextTransitionTime(), kStart + seconds(3)) << "running not yet reported";
  cloud.AdvanceTo(clock_.Now());
  EXPECT_EQ(cloud.NextTransitionTime(), clock_.Now() + seconds(30));

  clock_.Step(seconds(30));
  EXPECT_EQ(cloud.Delete(*created).code(), core::StatusCode::kNotFound);
  EXPECT_THAT(cloud.AdvanceTo(clock_.Now()),
              ElementsAre(InstanceTransition{clock_.Now(), id, InstanceState::kTerminated}));
}

TEST_F(SimulatedCloudTest, ListShowsLiveInstancesSortedByProviderId) {
  std::set<std::string> ids;
  for (int i = 0; i < 5; ++i) ids.insert(Launch({}));
  ASSERT_EQ(ids.size(), 5u);
  ASSERT_TRUE(cloud_.Delete(ClaimFor(*ids.begin())).ok());
  std::vector<std::string> listed;
  for (const auto& claim : cloud_.List()) listed.push_back(claim.status.provider_id);
  EXPECT_EQ(listed, std::vector<std::string>(std::next(ids.begin()), ids.end()));
  EXPECT_EQ(cloud_.Instances().size(), 5u) << "accounting keeps terminated instances";
}

TEST_F(SimulatedCloudTest, GetReturnsTheLaunchedNodeClaim) {
  auto created = cloud_.Create(Claim({Types({"large"})}));
  ASSERT_TRUE(created.ok());
  auto got = cloud_.Get(created->status.provider_id);
  ASSERT_TRUE(got.ok());
  EXPECT_EQ(got->metadata.labels, created->metadata.labels);
  EXPECT_EQ(got->status.capacity, created->status.capacity);
  EXPECT_FALSE(got->metadata.deletion_timestamp.has_value());
}

// --- Billing ---

TEST_F(SimulatedCloudTest, ASpotInstanceRunningNinetySecondsCostsItsPriceTimesNinetyOver3600) {
  const std::string id = Launch({Types({"small"}), In(s::kLabelCapacityType, {"spot"})});
  clock_.Step(cloud_.timings().launch_latency);  // billing starts when the instance runs
  clock_.Step(seconds(90));
  ASSERT_TRUE(cloud_.Delete(ClaimFor(id)).ok());
  EXPECT_DOUBLE_EQ(cloud_.CostSoFar(clock_.Now()), 0.03 * 90 / 3600);
  EXPECT_DOUBLE_EQ(cloud_.NodeHours(clock_.Now()), 90.0 / 3600);

  clock_.Step(minutes(30));
  EXPECT_DOUBLE_EQ(cloud_.CostSoFar(clock_.Now()), 0.03 * 90 / 3600) << "billing stopped at delete";
  const SimulatedInstance& inst = Instance(id);
  EXPECT_EQ(inst.launch_time, kStart);
  EXPECT_EQ(inst.running_time, kStart + seconds(3));
  EXPECT_EQ(inst.BillingEnd(), kStart + seconds(93));
  EXPECT_EQ(inst.instance_type, "small");
  EXPECT_EQ(inst.zone, "zone-a");
  EXPECT_EQ(inst.capacity_type, "spot");
}

TEST_F(SimulatedCloudTest, CostAccruesPerSecondWhileRunning) {
  Launch({Types({"large"}), In(s::kLabelCapacityType, {"on-demand"})});
  EXPECT_DOUBLE_EQ(cloud_.CostSoFar(kStart + seconds(3)), 0) << "pending is free";
  EXPECT_DOUBLE_EQ(cloud_.CostSoFar(kStart + seconds(3) + minutes(30)), 0.40 / 2);
  EXPECT_DOUBLE_EQ(cloud_.NodeHours(kStart + seconds(3) + minutes(90)), 1.5);
}

TEST_F(SimulatedCloudTest, AnInstanceThatRanUnderAMinuteIsBilledForOne) {
  const std::string id = Launch({Types({"small"}), In(s::kLabelCapacityType, {"on-demand"})});
  clock_.Step(seconds(3 + 10));
  ASSERT_TRUE(cloud_.Delete(ClaimFor(id)).ok());
  EXPECT_DOUBLE_EQ(cloud_.CostSoFar(clock_.Now()), 0.10 * 60 / 3600);
  EXPECT_DOUBLE_EQ(cloud_.NodeHours(clock_.Now()), 10.0 / 3600);
}

TEST_F(SimulatedCloudTest, AnInstanceDeletedWhilePendingCostsNothing) {
  const std::string id = Launch({Types({"small"})});
  clock_.Step(seconds(1));
  ASSERT_TRUE(cloud_.Delete(ClaimFor(id)).ok());
  clock_.Step(minutes(5));
  EXPECT_DOUBLE_EQ(cloud_.CostSoFar(clock_.Now()), 0);
  EXPECT_THAT(cloud_.AdvanceTo(clock_.Now()),
              ElementsAre(InstanceTransition{kStart + seconds(1), id, InstanceState::kShuttingDown},
                          InstanceTransition{kStart + seconds(1), id, InstanceState::kTerminated}))
      << "it never ran";
}

// --- Interruptions and failures ---

TEST_F(SimulatedCloudTest, ASpotInterruptionWarnsThenReclaimsTwoMinutesLater) {
  const std::string id = Launch({Types({"small"}), In(s::kLabelCapacityType, {"spot"})});
  clock_.Step(minutes(10));
  const core::Time warned = clock_.Now();
  ASSERT_TRUE(cloud_.Interrupt(id, InterruptionKind::kSpotInterruption).ok());

  EXPECT_THAT(cloud_.DrainInterruptionEvents(),
              ElementsAre(InterruptionEvent{id, InterruptionKind::kSpotInterruption, warned,
                                            warned + minutes(2)}));
  EXPECT_THAT(cloud_.DrainInterruptionEvents(), IsEmpty()) << "draining empties the queue";
  cloud_.AdvanceTo(clock_.Now());
  EXPECT_EQ(cloud_.NextTransitionTime(), warned + minutes(2));

  clock_.Step(minutes(2) - seconds(1));
  EXPECT_TRUE(cloud_.Get(id).ok()) << "still running during the warning";
  clock_.Step(seconds(1));
  EXPECT_EQ(cloud_.Get(id).status().code(), core::StatusCode::kNotFound);
  EXPECT_THAT(cloud_.AdvanceTo(clock_.Now()),
              ElementsAre(InstanceTransition{warned + minutes(2), id, InstanceState::kShuttingDown},
                          InstanceTransition{warned + minutes(2), id, InstanceState::kTerminated}));
  clock_.Step(minutes(5));
  EXPECT_DOUBLE_EQ(cloud_.CostSoFar(clock_.Now()),
                   0.03 * std::chrono::duration<double>(minutes(12) - seconds(3)).count() / 3600);
}

TEST_F(SimulatedCloudTest, DeletingDuringASpotWarningTerminatesAtOnce) {
  const std::string id = Launch({In(s::kLabelCapacityType, {"spot"})});
  clock_.Step(minutes(1));
  ASSERT_TRUE(cloud_.Interrupt(id, InterruptionKind::kSpotInterruption).ok());
  EXPECT_EQ(cloud_.Interrupt(id, InterruptionKind::kSpotInterruption).code(),
            core::StatusCode::kFailedPrecondition);
  clock_.Step(seconds(30));
  ASSERT_TRUE(cloud_.Delete(ClaimFor(id)).ok());
  EXPECT_EQ(Instance(id).terminated_time, clock_.Now());
}

TEST_F(SimulatedCloudTest, OnlySpotInstancesGetSpotInterruptions) {
  const std::string id = Launch({In(s::kLabelCapacityType, {"on-demand"})});
  const core::Status st = cloud_.Interrupt(id, InterruptionKind::kSpotInterruption);
  EXPECT_EQ(st.code(), core::StatusCode::kFailedPrecondition);
  EXPECT_THAT(st.message(), HasSubstr("on-demand"));
  EXPECT_THAT(cloud_.DrainInterruptionEvents(), IsEmpty());
}

TEST_F(SimulatedCloudTest, AScheduledChangeIsOnlyANotice) {
  const std::string id = Launch({});
  clock_.Step(minutes(1));
  ASSERT_TRUE(cloud_.Interrupt(id, InterruptionKind::kScheduledChange).ok());
  EXPECT_THAT(cloud_.DrainInterruptionEvents(),
              ElementsAre(InterruptionEvent{id, InterruptionKind::kScheduledChange, clock_.Now(),
                                            std::nullopt}));
  clock_.Step(minutes(30));
  EXPECT_EQ(Instance(id).StateAt(clock_.Now()), InstanceState::kRunning);
}

TEST_F(SimulatedCloudTest, AStoppedInstanceIsListedButNoLongerBilled) {
  const std::string id = Launch({In(s::kLabelCapacityType, {"on-demand"})});
  clock_.Step(seconds(3) + minutes(6));
  ASSERT_TRUE(cloud_.Interrupt(id, InterruptionKind::kStopping).ok());
  EXPECT_EQ(cloud_.DrainInterruptionEvents().size(), 1u);
  clock_.Step(minutes(30));
  EXPECT_EQ(Instance(id).StateAt(clock_.Now()), InstanceState::kStopped);
  EXPECT_EQ(cloud_.List().size(), 1u);
  EXPECT_DOUBLE_EQ(cloud_.CostSoFar(clock_.Now()), 0.10 * 6 / 60);
  ASSERT_TRUE(cloud_.Delete(ClaimFor(id)).ok());
  EXPECT_DOUBLE_EQ(cloud_.CostSoFar(clock_.Now()), 0.10 * 6 / 60);
}

TEST_F(SimulatedCloudTest, ATerminatedNoticeMeansTheInstanceIsAlreadyGone) {
  const std::string id = Launch({});
  clock_.Step(minutes(1));
  ASSERT_TRUE(cloud_.Interrupt(id, InterruptionKind::kTerminated).ok());
  EXPECT_EQ(cloud_.Get(id).status().code(), core::StatusCode::kNotFound);
  EXPECT_EQ(cloud_.DrainInterruptionEvents().size(), 1u);
  EXPECT_EQ(cloud_.Interrupt(id, InterruptionKind::kScheduledChange).code(),
            core::StatusCode::kNotFound);
}

// --- The interruption queue and the unavailable-offerings cache ---

TEST_F(SimulatedCloudTest, NoticesAreReceivedAsQueueMessagesUntilDeleted) {
  const std::string spot = Launch({Types({"small"}), In(s::kLabelCapacityType, {"spot"})});
  const std::string od = Launch({Types({"small"}), In(s::kLabelCapacityType, {"on-demand"})});
  clock_.Step(minutes(10));
  const core::Time warned = clock_.Now();
  ASSERT_TRUE(cloud_.Interrupt(spot, InterruptionKind::kSpotInterruption).ok());
  ASSERT_TRUE(cloud_.Interrupt(od, InterruptionKind::kStopping).ok());
  InterruptionQueue& queue = cloud_;

  auto first = queue.Receive(1);
  ASSERT_TRUE(first.ok()) << first.status().message();
  ASSERT_EQ(first->size(), 1u) << "at most max_messages";
  const InterruptionMessage& m = (*first)[0];
  EXPECT_EQ(m.kind, InterruptionMessageKind::kSpotInterruption);
  EXPECT_EQ(m.instance_id, ParseProviderId(spot)->instance_id);
  EXPECT_EQ(m.start_time, warned);
  EXPECT_EQ(m.action_time, warned + minutes(2));

  auto rest = queue.Receive(10);
  ASSERT_TRUE(rest.ok());
  ASSERT_EQ(rest->size(), 1u) << "a received notice is invisible to the next Receive";
  EXPECT_EQ((*rest)[0].kind, InterruptionMessageKind::kStateChange);
  EXPECT_EQ((*rest)[0].state, "stopping");
  EXPECT_EQ(InterruptionMessageKindName((*rest)[0]), "stopping");
  EXPECT_NE((*rest)[0].id, m.id);

  ASSERT_TRUE(queue.Delete(m).ok());
  ASSERT_TRUE(queue.Delete(m).ok()) << "deleting twice is harmless";
  EXPECT_EQ(cloud_.QueuedNotices(), 1u);
  clock_.Step(kNoticeVisibilityTimeout - seconds(1));
  EXPECT_THAT(*queue.Receive(10), IsEmpty());
  clock_.Step(seconds(1));
  auto again = queue.Receive(10);
  ASSERT_TRUE(again.ok());
  ASSERT_EQ(again->size(), 1u) << "an undeleted notice comes back after the visibility timeout";
  EXPECT_EQ((*again)[0], (*rest)[0]);
  ASSERT_TRUE(queue.Delete((*again)[0]).ok());
  clock_.Step(minutes(5));
  EXPECT_THAT(*queue.Receive(10), IsEmpty());
  EXPECT_EQ(queue.Receive(0).status().code(), core::StatusCode::kInvalidArgument);
}

TEST_F(SimulatedCloudTest, AnOfferingMarkedUnavailableIsNeitherLaunchedNorOfferedUntilItsTtl) {
  clock_.Step(minutes(1));
  UnavailableOfferingsSink& sink = cloud_;
  sink.MarkOfferingUnavailable({"small", "zone-a", "spot", "spot", minutes(3)});
  auto created = cloud_.Create(Claim({Types({"small"}), In(s::kLabelCapacityType, {"spot"})}));
  ASSERT_TRUE(created.ok()) << created.status().message();
  EXPECT_EQ(created->metadata.labels.at(s::kLabelTopologyZone), "zone-b");
  EXPECT_EQ(cloud_.NextAvailabilityChange(), kStart + minutes(4));
  clock_.Step(minutes(3));
  auto later = cloud_.Create(Claim({Types({"small"}), In(s::kLabelCapacityType, {"spot"})}));
  ASSERT_TRUE(later.ok()) << later.status().message();
  EXPECT_EQ(later->metadata.labels.at(s::kLabelTopologyZone), "zone-a");
}

TEST_F(SimulatedCloudTest, AFailedInstanceDisappearsWithoutANotice) {
  const std::string id = Launch({});
  clock_.Step(minutes(2));
  ASSERT_TRUE(cloud_.Fail(id).ok());
  EXPECT_EQ(cloud_.Get(id).status().code(), core::StatusCode::kNotFound);
  EXPECT_THAT(cloud_.DrainInterruptionEvents(), IsEmpty());
  EXPECT_EQ(cloud_.Fail(id).code(), core::StatusCode::kNotFound);
  EXPECT_EQ(cloud_.Fail("aws:///zone-a/i-00000000000000000").code(), core::StatusCode::kNotFound);
}

// --- Drift ---

TEST_F(SimulatedCloudTest, DriftIsWhatSetDriftSaysOrATypeThatLeftTheCatalog) {
  auto small = cloud_.Create(Claim({Types({"small"})}));
  auto large = cloud_.Create(Claim({Types({"large"})}));
  ASSERT_TRUE(small.ok() && large.ok());
  EXPECT_EQ(cloud_.IsDrifted(*small).reason, "");

  ASSERT_TRUE(cloud_.SetDrift(small->status.provider_id, "AMIDrift").ok());
  EXPECT_EQ(cloud_.IsDrifted(*small).reason, "AMIDrift");
  EXPECT_EQ(cloud_.SetDrift("aws:///zone-a/i-00000000000000000", "AMIDrift").code(),
            core::StatusCode::kNotFound);

  Catalog without_large = TestCatalog();
  without_large.instance_types.erase(without_large.instance_types.begin());
  cloud_.SetCatalog(without_large);
  EXPECT_EQ(cloud_.IsDrifted(*large).reason, kDriftInstanceTypeNotFound);
  EXPECT_DOUBLE_EQ(Instance(large->status.provider_id).price_per_hour, 0.12)
      << "a running instance keeps its launch price";
  EXPECT_EQ(cloud_.Create(Claim({Types({"large"})})).status().code(),
            core::StatusCode::kUnavailable);
}

// --- Built-in catalogs ---

TEST(SimulatedCloudCatalogs, LaunchesFromTheKwokCatalogLikeKarpentersKwokProvider) {
  auto catalog = LoadCatalog(CatalogSource::FromFlag("kwok"));
  ASSERT_TRUE(catalog.ok()) << catalog.status().message();
  core::FakeClock clock(kStart);
  SimulatedCloud cloud(clock, *catalog);
  auto created = cloud.Create(Claim({Types({"c-4x-amd64-linux", "c-2x-amd64-linux"})}));
  ASSERT_TRUE(created.ok()) << created.status().message();
  const api::Labels& labels = created->metadata.labels;
  EXPECT_EQ(labels.at(s::kLabelInstanceTypeStable), "c-2x-amd64-linux");
  EXPECT_EQ(labels.at(s::kLabelCapacityType), "spot");
  EXPECT_EQ(labels.at(s::kLabelTopologyZone), "test-zone-a") << "equal prices: first zone";
  EXPECT_EQ(labels.at(kLabelKwokInstanceFamily), "c");
  const InstanceType* type = nullptr;
  for (const auto& t : catalog->instance_types) {
    if (t->name == "c-2x-amd64-linux") type = t.get();
  }
  ASSERT_NE(type, nullptr);
  EXPECT_DOUBLE_EQ(cloud.FindInstance(created->status.provider_id)->price_per_hour,
                   type->CheapestOffering({})->price);
}

TEST(SimulatedCloudCatalogs, LaunchesFromTheAwsCatalogWithRegionAndZoneLabels) {
  auto catalog = LoadCatalog(CatalogSource::FromFlag("aws"), "us-west-2");
  ASSERT_TRUE(catalog.ok()) << catalog.status().message();
  core::FakeClock clock(kStart);
  SimulatedCloud cloud(clock, *catalog);
  auto created =
      cloud.Create(Claim({Types({"m5.large"}), In(s::kLabelCapacityType, {"on-demand"})}));
  ASSERT_TRUE(created.ok()) << created.status().message();
  const api::Labels& labels = created->metadata.labels;
  EXPECT_EQ(labels.at(s::kLabelTopologyRegion), "us-west-2");
  EXPECT_EQ(labels.at(s::kLabelTopologyZone).rfind("us-west-2", 0), 0u);
  EXPECT_EQ(labels.at(s::kLabelArchStable), "amd64");
  EXPECT_EQ(labels.at(s::kLabelInstanceFamily), "m5");
  EXPECT_TRUE(std::regex_match(created->status.provider_id,
                               std::regex(R"(aws:///us-west-2[a-z]/i-0[0-9a-f]{16})")));
}

// --- Determinism ---

TEST(SimulatedCloudDeterminism, TheSameSeedGivesTheSameIdsAndADifferentSeedOtherIds) {
  auto ids = [](uint64_t seed) {
    core::FakeClock clock(kStart);
    SimulatedCloud cloud(clock, TestCatalog(), CloudTimings{}, seed);
    std::vector<std::string> out;
    for (int i = 0; i < 50; ++i) {
      clock.Step(seconds(7));
      auto created = cloud.Create(Claim({}));
      EXPECT_TRUE(created.ok());
      out.push_back(created->status.provider_id + " " +
                    cloud.FindInstance(created->status.provider_id)->private_ip);
    }
    return out;
  };
  const auto first = ids(7);
  EXPECT_EQ(first, ids(7));
  EXPECT_NE(first, ids(8));
  EXPECT_EQ(std::set<std::string>(first.begin(), first.end()).size(), first.size());
}

}  // namespace
}  // namespace nodesmith::cloud::sim
