#include "cluster/memory_cluster.h"

#include <gmock/gmock.h>
#include <gtest/gtest.h>

#include <set>
#include <string>
#include <vector>

namespace nodesmith::cluster {
namespace {

using std::chrono::seconds;
using ::testing::ElementsAre;
using ::testing::HasSubstr;
using ::testing::MatchesRegex;
using ::testing::StartsWith;

constexpr core::Time kStart{1'700'000'000'000'000'000};

api::Pod MakePod(const std::string& name, const std::string& ns = "default") {
  api::Pod pod;
  pod.metadata.name = name;
  pod.metadata.namespace_ = ns;
  return pod;
}

api::Node MakeNode(const std::string& name) {
  api::Node node;
  node.metadata.name = name;
  return node;
}

api::NodeClaim MakeNodeClaim(const std::string& name) {
  api::NodeClaim claim;
  claim.metadata.name = name;
  return claim;
}

std::string Describe(const WatchEvent& e) {
  std::string out = WatchEventTypeName(e.type);
  out += " ";
  out += KindName(e.kind);
  out += " ";
  if (!e.namespace_.empty()) out += e.namespace_ + "/";
  return out + e.name;
}

class MemoryClusterTest : public ::testing::Test {
 protected:
  core::FakeClock clock_{kStart};
  MemoryCluster cluster_{clock_};
};

// --- Create / Get / List ---

TEST_F(MemoryClusterTest, CreateFillsServerFields) {
  clock_.Step(seconds(42));
  auto pod = cluster_.Create(MakePod("web", ""));
  ASSERT_TRUE(pod.ok()) << pod.status().message();
  EXPECT_EQ(pod->metadata.namespace_, "default");
  EXPECT_FALSE(pod->metadata.uid.empty());
  EXPECT_EQ(pod->metadata.resource_version, "1");
  EXPECT_EQ(pod->metadata.generation, 1);
  EXPECT_EQ(pod->metadata.creation_timestamp, kStart + seconds(42));
  EXPECT_EQ(pod->status.phase, "Pending");

  auto got = cluster_.Get<api::Pod>("default", "web");
  ASSERT_TRUE(got.ok());
  EXPECT_EQ(got->metadata.uid, pod->metadata.uid);
  EXPECT_EQ(got->metadata.resource_version, "1");
}

TEST_F(MemoryClusterTest, UidsAndResourceVersionsAreDistinctAndDeterministic) {
  core::FakeClock other_clock{kStart};
  MemoryCluster other(other_clock);
  std::set<std::string> uids;
  for (auto* c : {&cluster_, &other}) {
    ASSERT_TRUE(c->Create(MakeNode("a")).ok());
    ASSERT_TRUE(c->Create(MakeNode("b")).ok());
  }
  auto a1 = cluster_.Get<api::Node>("", "a");
  auto b1 = cluster_.Get<api::Node>("", "b");
  auto a2 = other.Get<api::Node>("", "a");
  EXPECT_NE(a1->metadata.uid, b1->metadata.uid);
  EXPECT_EQ(a1->metadata.uid, a2->metadata.uid);
  EXPECT_EQ(b1->metadata.resource_version, "2");
  EXPECT_EQ(cluster_.resource_version(), 2);
}

TEST_F(MemoryClusterTest, CreateKeepsAGivenUidAndCreationTimestamp) {
  api::Node node = MakeNode("old");
  node.metadata.uid = "abc-123";
  node.metadata.creation_timestamp = kStart - seconds(3600);
  auto created = cluster_.Create(node);
  ASSERT_TRUE(created.ok());
  EXPECT_EQ(created->metadata.uid, "abc-123");
  EXPECT_EQ(created->metadata.creation_timestamp, kStart - seconds(3600));
}

TEST_F(MemoryClusterTest, ClusterScopedObjectsHaveNoNamespace) {
  api::Node node = MakeNode("n1");
  node.metadata.namespace_ = "default";
  auto created = cluster_.Create(node);
  ASSERT_TRUE(created.ok());
  EXPECT_EQ(created->metadata.namespace_, "");
  EXPECT_TRUE(cluster_.Get<api::Node>("", "n1").ok());
}

TEST_F(MemoryClusterTest, CreateRefusesATakenName) {
  ASSERT_TRUE(cluster_.Create(MakePod("web")).ok());
  auto again = cluster_.Create(MakePod("web"));
  ASSERT_FALSE(again.ok());
  EXPECT_EQ(again.status().code(), core::StatusCode::kAlreadyExists);
  EXPECT_THAT(again.status().message(), HasSubstr("default/web"));
  // The same name in another namespace is another object.
  EXPECT_TRUE(cluster_.Create(MakePod("web", "prod")).ok());
}

TEST_F(MemoryClusterTest, CreateNeedsANameOrGenerateName) {
  auto r = cluster_.Create(MakeNodeClaim(""));
  ASSERT_FALSE(r.ok());
  EXPECT_EQ(r.status().code(), core::StatusCode::kInvalidArgument);
}

TEST_F(MemoryClusterTest, GenerateNameAppendsFiveDeterministicLowercaseAlphanumerics) {
  api::NodeClaim claim = MakeNodeClaim("");
  claim.metadata.generate_name = "default-";
  std::set<std::string> names;
  for (int i = 0; i < 50; ++i) {
    auto created = cluster_.Create(claim);
    ASSERT_TRUE(created.ok());
    EXPECT_THAT(created->metadata.name, MatchesRegex("default-[a-z0-9]{5}"));
    EXPECT_EQ(created->metadata.generate_name, "default-");
    names.insert(created->metadata.name);
  }
  EXPECT_EQ(names.size(), 50u);

  core::FakeClock other_clock{kStart};
  MemoryCluster other(other_clock);
  auto first = other.Create(claim);
  ASSERT_TRUE(first.ok());
  EXPECT_EQ(cluster_.List<api::NodeClaim>().size(), 50u);
  EXPECT_TRUE(names.contains(first->metadata.name)) << "same counter, same name";
}

TEST_F(MemoryClusterTest, ListIsOrderedByNamespaceThenName) {
  ASSERT_TRUE(cluster_.Create(MakePod("b", "prod")).ok());
  ASSERT_TRUE(cluster_.Create(MakePod("z")).ok());
  ASSERT_TRUE(cluster_.Create(MakePod("a", "prod")).ok());
  ASSERT_TRUE(cluster_.Create(MakePod("c")).ok());
  std::vector<std::string> keys;
  for (const auto& pod : cluster_.List<api::Pod>()) keys.push_back(pod.metadata.Key());
  EXPECT_THAT(keys, ElementsAre("default/c", "default/z", "prod/a", "prod/b"));
  EXPECT_EQ(cluster_.Count(Kind::kPod), 4u);
  EXPECT_TRUE(cluster_.List<api::Node>().empty());
}

TEST_F(MemoryClusterTest, GetOfAMissingObjectIsNotFound) {
  auto r = cluster_.Get<api::Pod>("default", "ghost");
  ASSERT_FALSE(r.ok());
  EXPECT_EQ(r.status().code(), core::StatusCode::kNotFound);
}

TEST_F(MemoryClusterTest, ReplicatedWorkloadsAreNamedByKindAndName) {
  api::ReplicatedWorkload deployment;
  deployment.kind = "Deployment";
  deployment.metadata.name = "inflate";
  api::ReplicatedWorkload statefulset = deployment;
  statefulset.kind = "StatefulSet";
  ASSERT_TRUE(cluster_.Create(deployment).ok());
  ASSERT_TRUE(cluster_.Create(statefulset).ok());
  auto got = cluster_.Get<api::ReplicatedWorkload>("default", "Deployment/inflate");
  ASSERT_TRUE(got.ok());
  EXPECT_EQ(got->kind, "Deployment");
  EXPECT_EQ(got->metadata.name, "inflate");
  EXPECT_EQ(cluster_.List<api::ReplicatedWorkload>().size(), 2u);

  api::ReplicatedWorkload bad = deployment;
  bad.kind = "CronJob";
  EXPECT_EQ(cluster_.Create(bad).status().code(), core::StatusCode::kInvalidArgument);
}

// --- Update ---

TEST_F(MemoryClusterTest, UpdateStoresTheObjectWithANewResourceVersion) {
  auto pod = cluster_.Create(MakePod("web"));
  ASSERT_TRUE(pod.ok());
  pod->metadata.labels["app"] = "web";
  auto updated = cluster_.Update(*pod);
  ASSERT_TRUE(updated.ok()) << updated.status().message();
  EXPECT_EQ(updated->metadata.resource_version, "2");
  EXPECT_EQ(cluster_.Get<api::Pod>("default", "web")->metadata.labels.at("app"), "web");
}

TEST_F(MemoryClusterTest, UpdateWithAStaleResourceVersionIsAConflict) {
  auto pod = cluster_.Create(MakePod("web"));
  ASSERT_TRUE(pod.ok());
  api::Pod first = *pod;
  api::Pod second = *pod;
  first.metadata.labels["writer"] = "first";
  ASSERT_TRUE(cluster_.Update(first).ok());
  second.metadata.labels["writer"] = "second";
  auto r = cluster_.Update(second);
  ASSERT_FALSE(r.ok());
  EXPECT_EQ(r.status().code(), core::StatusCode::kConflict);
  EXPECT_TRUE(cluster::IsConflict(r.status()));
  EXPECT_THAT(r.status().message(), StartsWith("conflict"));
  EXPECT_EQ(cluster_.Get<api::Pod>("default", "web")->metadata.labels.at("writer"), "first");
}

TEST_F(MemoryClusterTest, UpdateWithoutAResourceVersionAlwaysWins) {
  ASSERT_TRUE(cluster_.Create(MakePod("web")).ok());
  api::Pod blind = MakePod("web");
  blind.metadata.labels["blind"] = "true";
  auto r = cluster_.Update(blind);
  ASSERT_TRUE(r.ok());
  EXPECT_EQ(r->metadata.labels.at("blind"), "true");
}

TEST_F(MemoryClusterTest, UpdateOfAMissingObjectIsNotFound) {
  EXPECT_EQ(cluster_.Update(MakePod("ghost")).status().code(), core::StatusCode::kNotFound);
}

TEST_F(MemoryClusterTest, UpdateKeepsServerOwnedFields) {
  auto pod = cluster_.Create(MakePod("web"));
  ASSERT_TRUE(pod.ok());
  api::Pod changed = *pod;
  changed.metadata.uid = "forged";
  changed.metadata.creation_timestamp = kStart + seconds(999);
  changed.metadata.deletion_timestamp = kStart;
  changed.metadata.labels["x"] = "y";
  auto r = cluster_.Update(changed);
  ASSERT_TRUE(r.ok());
  EXPECT_EQ(r->metadata.uid, pod->metadata.uid);
  EXPECT_EQ(r->metadata.creation_timestamp, kStart);
  EXPECT_FALSE(r->metadata.deletion_timestamp.has_value());
}

TEST_F(MemoryClusterTest, GenerationCountsSpecChangesOnly) {
  auto claim = cluster_.Create(MakeNodeClaim("c1"));
  ASSERT_TRUE(claim.ok());
  claim->status.node_name = "n1";
  claim = cluster_.Update(*claim);
  ASSERT_TRUE(claim.ok());
  EXPECT_EQ(claim->metadata.generation, 1) << "status change";
  claim->metadata.labels["team"] = "a";
  claim = cluster_.Update(*claim);
  ASSERT_TRUE(claim.ok());
  EXPECT_EQ(claim->metadata.generation, 1) << "metadata change";
  claim->spec.taints.push_back(api::Taint{"k", "v", "NoSchedule"});
  claim = cluster_.Update(*claim);
  ASSERT_TRUE(claim.ok());
  EXPECT_EQ(claim->metadata.generation, 2) << "spec change";
}

TEST_F(MemoryClusterTest, AnUpdateThatChangesNothingIsANoOp) {
  auto pod = cluster_.Create(MakePod("web"));
  ASSERT_TRUE(pod.ok());
  std::vector<std::string> events;
  cluster_.Watch(Kind::kPod, [&](const WatchEvent& e) { events.push_back(Describe(e)); });
  auto same = cluster_.Update(*pod);
  ASSERT_TRUE(same.ok());
  EXPECT_EQ(same->metadata.resource_version, pod->metadata.resource_version);
  EXPECT_TRUE(events.empty());
}

// --- Delete and finalizers ---

TEST_F(MemoryClusterTest, DeleteWithoutFinalizersRemovesTheObject) {
  ASSERT_TRUE(cluster_.Create(MakePod("web")).ok());
  ASSERT_TRUE(cluster_.Delete<api::Pod>("default", "web").ok());
  EXPECT_EQ(cluster_.Get<api::Pod>("default", "web").status().code(), core::StatusCode::kNotFound);
  EXPECT_EQ(cluster_.Delete<api::Pod>("default", "web").code(), core::StatusCode::kNotFound);
}

TEST_F(MemoryClusterTest, DeleteWithFinalizersMarksTheObjectUntilTheLastFinalizerGoes) {
  api::NodeClaim claim = MakeNodeClaim("c1");
  claim.metadata.finalizers = {"karpenter.sh/termination", "example.com/other"};
  ASSERT_TRUE(cluster_.Create(claim).ok());
  clock_.Step(seconds(7));
  ASSERT_TRUE(cluster_.Delete<api::NodeClaim>("", "c1").ok());

  auto marked = cluster_.Get<api::NodeClaim>("", "c1");
  ASSERT_TRUE(marked.ok());
  EXPECT_EQ(marked->metadata.deletion_timestamp, kStart + seconds(7));

  // A second delete changes nothing.
  clock_.Step(seconds(7));
  std::string rv = marked->metadata.resource_version;
  ASSERT_TRUE(cluster_.Delete<api::NodeClaim>("", "c1").ok());
  EXPECT_EQ(cluster_.Get<api::NodeClaim>("", "c1")->metadata.resource_version, rv);
  EXPECT_EQ(cluster_.Get<api::NodeClaim>("", "c1")->metadata.deletion_timestamp,
            kStart + seconds(7));

  // No new finalizers while deleting.
  api::NodeClaim added = *marked;
  added.metadata.finalizers.push_back("example.com/late");
  EXPECT_EQ(cluster_.Update(added).status().code(), core::StatusCode::kInvalidArgument);

  marked->metadata.finalizers = {"example.com/other"};
  auto one_left = cluster_.Update(*marked);
  ASSERT_TRUE(one_left.ok());
  EXPECT_TRUE(cluster_.Get<api::NodeClaim>("", "c1").ok());

  one_left->metadata.finalizers.clear();
  ASSERT_TRUE(cluster_.Update(*one_left).ok());
  EXPECT_EQ(cluster_.Get<api::NodeClaim>("", "c1").status().code(), core::StatusCode::kNotFound);
}

// --- Watch ---

TEST_F(MemoryClusterTest, WatchersSeeEveryChangeInOrder) {
  std::vector<std::string> events;
  cluster_.Watch(Kind::kNodeClaim, [&](const WatchEvent& e) { events.push_back(Describe(e)); });
  api::NodeClaim claim = MakeNodeClaim("c1");
  claim.metadata.finalizers = {"karpenter.sh/termination"};
  auto created = cluster_.Create(claim);
  ASSERT_TRUE(created.ok());
  ASSERT_TRUE(cluster_.Create(MakeNode("n1")).ok());  // another kind: not seen
  ASSERT_TRUE(cluster_.Delete<api::NodeClaim>("", "c1").ok());
  auto marked = cluster_.Get<api::NodeClaim>("", "c1");
  marked->metadata.finalizers.clear();
  ASSERT_TRUE(cluster_.Update(*marked).ok());
  EXPECT_THAT(events,
              ElementsAre("Added NodeClaim c1", "Modified NodeClaim c1", "Deleted NodeClaim c1"));
}

TEST_F(MemoryClusterTest, WatchEventsCarryTheObjectEvenWhenDeleted) {
  std::vector<std::string> seen;
  cluster_.Watch(Kind::kNode, [&](const WatchEvent& e) {
    ASSERT_NE(e.object, nullptr);
    const auto& node = std::get<api::Node>(*e.object);
    seen.push_back(node.spec.provider_id + "@" + node.metadata.resource_version);
  });
  api::Node node = MakeNode("n1");
  node.spec.provider_id = "aws:///us-west-2a/i-123";
  ASSERT_TRUE(cluster_.Create(node).ok());
  ASSERT_TRUE(cluster_.Delete<api::Node>("", "n1").ok());
  EXPECT_THAT(seen, ElementsAre("aws:///us-west-2a/i-123@1", "aws:///us-west-2a/i-123@2"));
}

TEST_F(MemoryClusterTest, ChangesMadeByAWatcherReachEveryWatcherInChangeOrder) {
  std::vector<std::string> log;
  // The first watcher labels each new pod, which is itself a change.
  cluster_.Watch(Kind::kPod, [&](const WatchEvent& e) {
    log.push_back("labeler saw " + Describe(e));
    if (e.type != WatchEventType::kAdded) return;
    auto pod = cluster_.Get<api::Pod>(e.namespace_, e.name);
    pod->metadata.labels["seen"] = "true";
    ASSERT_TRUE(cluster_.Update(*pod).ok());
  });
  cluster_.Watch(Kind::kPod,
                 [&](const WatchEvent& e) { log.push_back("second saw " + Describe(e)); });
  ASSERT_TRUE(cluster_.Create(MakePod("web")).ok());
  // By the time Create returns, everything has been delivered.
  EXPECT_THAT(
      log,
      ElementsAre("labeler saw Added Pod default/web", "second saw Added Pod default/web",
                  "labeler saw Modified Pod default/web", "second saw Modified Pod default/web"));
}

TEST_F(MemoryClusterTest, AWatchAddedByACallbackSeesOnlyLaterChanges) {
  std::vector<std::string> late;
  bool registered = false;
  cluster_.Watch(Kind::kNode, [&](const WatchEvent&) {
    if (registered) return;
    registered = true;
    cluster_.Watch(Kind::kNode, [&](const WatchEvent& e) { late.push_back(Describe(e)); });
  });
  ASSERT_TRUE(cluster_.Create(MakeNode("n1")).ok());
  ASSERT_TRUE(cluster_.Create(MakeNode("n2")).ok());
  EXPECT_THAT(late, ElementsAre("Added Node n2"));
}

// --- Bind ---

// The API server's Binding does not look the node up (a kubelet may register after its pods are
// assigned); nor does the store.
TEST_F(MemoryClusterTest, BindToANodeNotYetRegisteredIsAllowed) {
  ASSERT_TRUE(cluster_.Create(MakePod("web")).ok());
  ASSERT_TRUE(cluster_.Bind("default", "web", "n9").ok());
  EXPECT_EQ(cluster_.Get<api::Pod>("default", "web")->spec.node_name, "n9");
}

TEST_F(MemoryClusterTest, BindAssignsThePodToAnExistingNode) {
  ASSERT_TRUE(cluster_.Create(MakePod("web")).ok());
  ASSERT_TRUE(cluster_.Create(MakeNode("n1")).ok());
  clock_.Step(seconds(3));
  ASSERT_TRUE(cluster_.Bind("default", "web", "n1").ok());
  auto pod = cluster_.Get<api::Pod>("default", "web");
  EXPECT_EQ(pod->spec.node_name, "n1");
  ASSERT_EQ(pod->status.conditions.size(), 1u);
  EXPECT_EQ(pod->status.conditions[0].type, "PodScheduled");
  EXPECT_EQ(pod->status.conditions[0].status, "True");
  EXPECT_EQ(pod->status.conditions[0].last_transition_time, kStart + seconds(3));
}

TEST_F(MemoryClusterTest, BindReplacesAnUnschedulableCondition) {
  api::Pod pending = MakePod("web");
  pending.status.conditions.push_back(
      api::Condition{.type = "PodScheduled", .status = "False", .reason = "Unschedulable"});
  ASSERT_TRUE(cluster_.Create(pending).ok());
  ASSERT_TRUE(cluster_.Create(MakeNode("n1")).ok());
  ASSERT_TRUE(cluster_.Bind("default", "web", "n1").ok());
  auto pod = cluster_.Get<api::Pod>("default", "web");
  ASSERT_EQ(pod->status.conditions.size(), 1u);
  EXPECT_EQ(pod->status.conditions[0].status, "True");
  EXPECT_EQ(pod->status.conditions[0].reason, "");
}

TEST_F(MemoryClusterTest, BindFailsForABoundPodOrAMissingPod) {
  ASSERT_TRUE(cluster_.Create(MakePod("web")).ok());
  ASSERT_TRUE(cluster_.Create(MakeNode("n1")).ok());
  ASSERT_TRUE(cluster_.Create(MakeNode("n2")).ok());
  EXPECT_EQ(cluster_.Bind("default", "ghost", "n1").code(), core::StatusCode::kNotFound);
  ASSERT_TRUE(cluster_.Bind("default", "web", "n1").ok());
  core::Status again = cluster_.Bind("default", "web", "n2");
  EXPECT_EQ(again.code(), core::StatusCode::kConflict);  // 409, as the API server answers
  EXPECT_THAT(again.message(), HasSubstr("already assigned to node \"n1\""));
  EXPECT_EQ(cluster_.Get<api::Pod>("default", "web")->spec.node_name, "n1");
}

TEST_F(MemoryClusterTest, BindRefusesATerminatingPod) {
  api::Pod pod = MakePod("web");
  pod.metadata.finalizers = {"example.com/hold"};
  ASSERT_TRUE(cluster_.Create(pod).ok());
  ASSERT_TRUE(cluster_.Create(MakeNode("n1")).ok());
  ASSERT_TRUE(cluster_.Delete<api::Pod>("default", "web").ok());
  EXPECT_EQ(cluster_.Bind("default", "web", "n1").code(), core::StatusCode::kConflict);
}

}  // namespace
}  // namespace nodesmith::cluster
