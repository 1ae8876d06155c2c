// One specification of cluster::ClusterApi, run against MemoryCluster (the simulator's store)
// and KubeCluster on the real kube-apiserver. Where they differ, the simulator is wrong.
#include <gmock/gmock.h>
#include <gtest/gtest.h>

#include <memory>

#include "cluster/memory_cluster.h"
#include "kube/kube_cluster.h"
#include "kube_test_env.h"

namespace nodesmith::kube {
namespace {

using ::testing::HasSubstr;
using ::testing::StartsWith;
using cluster::Kind;
using cluster::WatchEventType;
using namespace nodesmith::testing;

// A world under test: its ClusterApi, a namespace of its own, and a way to let asynchronous
// changes (the real controller-manager's) arrive.
class World {
 public:
  virtual ~World() = default;
  virtual cluster::ClusterApi& api() = 0;
  virtual const std::string& ns() = 0;
  // Lets changes made by others be announced (KubeCluster); nothing to do in memory.
  virtual void Settle() {}
};

class MemoryWorld : public World {
 public:
  MemoryWorld() : clock_(core::Time::FromUnixSeconds(1767225600)), cluster_(clock_), ns_(UniqueName("mem")) {}
  cluster::ClusterApi& api() override { return cluster_; }
  const std::string& ns() override { return ns_; }

 private:
  core::FakeClock clock_;
  cluster::MemoryCluster cluster_;
  std::string ns_;
};

class KubeWorld : public World {
 public:
  KubeWorld() : client_(TestenvConfig()), cluster_(client_), namespace_("conf") {
    EnsureReferenceCrds();
    core::Status st = cluster_.Start(60);
    EXPECT_TRUE(st.ok()) << st.message();
  }
  cluster::ClusterApi& api() override { return cluster_; }
  const std::string& ns() override { return namespace_.name(); }
  void Settle() override { cluster_.DispatchEvents(); }

 private:
  RestClient client_;
  KubeCluster cluster_;
  TestNamespace namespace_;
};

template <typename W>
class ClusterConformanceTest : public ::testing::Test {
 protected:
  ClusterConformanceTest() : world_(std::make_unique<W>()) {}
  cluster::ClusterApi& api() { return world_->api(); }
  const std::string& ns() { return world_->ns(); }

  api::Pod Pod(const std::string& name) {
    api::Pod p;
    p.metadata.name = name;
    p.metadata.namespace_ = ns();
    p.metadata.labels["app"] = "web";
    api::Container c;
    c.name = "c";
    c.image = "registry.k8s.io/pause:3.10";
    p.spec.containers.push_back(c);
    // No scheduler runs under this name, so the real kube-scheduler leaves the pod alone (it would
    // mark it unschedulable, a change MemoryCluster has nobody to make).
    p.spec.scheduler_name = "nodesmith-conformance";
    return p;
  }
  api::NodeClaim Claim(const std::string& name) {
    api::NodeClaim c;
    c.metadata.name = name;
    c.metadata.labels["karpenter.sh/nodepool"] = "default";
    c.spec.node_class_ref.group = "karpenter.k8s.aws";
    c.spec.node_class_ref.kind = "EC2NodeClass";
    c.spec.node_class_ref.name = "default";
    return c;
  }
  std::unique_ptr<World> world_;
};

using Worlds = ::testing::Types<MemoryWorld, KubeWorld>;
class WorldNames {
 public:
  template <typename T>
  static std::string GetName(int) {
    return std::is_same_v<T, MemoryWorld> ? "MemoryCluster" : "KubeCluster";
  }
};
TYPED_TEST_SUITE(ClusterConformanceTest, Worlds, WorldNames);

TYPED_TEST(ClusterConformanceTest, CreateFillsIdentityAndGetReturnsTheStoredObject) {
  auto created = this->api().Create(this->Pod("web-1"));
  ASSERT_TRUE(created.ok()) << created.status().message();
  EXPECT_FALSE(created->metadata.uid.empty());
  EXPECT_FALSE(created->metadata.resource_version.empty());
  EXPECT_TRUE(created->metadata.creation_timestamp.has_value());
  EXPECT_EQ(created->status.phase, "Pending");
  auto got = this->api().template Get<api::Pod>(this->ns(), "web-1");
  ASSERT_TRUE(got.ok());
  EXPECT_EQ(got->metadata.uid, created->metadata.uid);
  EXPECT_EQ(got->metadata.resource_version, created->metadata.resource_version);
}

TYPED_TEST(ClusterConformanceTest, ATakenNameIsAlreadyExists) {
  ASSERT_TRUE(this->api().Create(this->Pod("web-1")).ok());
  auto again = this->api().Create(this->Pod("web-1"));
  ASSERT_FALSE(again.ok());
  EXPECT_EQ(again.status().code(), core::StatusCode::kAlreadyExists);
}

TYPED_TEST(ClusterConformanceTest, GenerateNameAddsFiveCharacters) {
  api::NodeClaim claim = this->Claim("");
  std::string prefix = UniqueName("gen") + "-";
  claim.metadata.generate_name = prefix;
  auto created = this->api().Create(claim);
  ASSERT_TRUE(created.ok()) << created.status().message();
  EXPECT_THAT(created->metadata.name, StartsWith(prefix));
  EXPECT_EQ(created->metadata.name.size(), prefix.size() + 5);
  EXPECT_TRUE(this->api().template Delete<api::NodeClaim>("", created->metadata.name).ok());
}

TYPED_TEST(ClusterConformanceTest, AStaleResourceVersionIsAConflict) {
  auto created = this->api().Create(this->Pod("web-1"));
  ASSERT_TRUE(created.ok());
  api::Pod first = created.value();
  api::Pod changed = first;
  changed.metadata.labels["v"] = "2";
  auto second = this->api().Update(changed);
  ASSERT_TRUE(second.ok()) << second.status().message();
  first.metadata.labels["v"] = "3";
  auto stale = this->api().Update(first);
  ASSERT_FALSE(stale.ok());
  EXPECT_EQ(stale.status().code(), core::StatusCode::kConflict);
  EXPECT_THAT(stale.status().message(), StartsWith("conflict: "));
  EXPECT_TRUE(cluster::IsConflict(stale.status().WithPrefix("syncing pod web-1")))
      << "what controllers requeue on, as they see it through their own prefixes";
  EXPECT_EQ(this->api().template Get<api::Pod>(this->ns(), "web-1")->metadata.labels.at("v"), "2");
}

TYPED_TEST(ClusterConformanceTest, AnUpdateThatChangesNothingKeepsTheVersion) {
  auto created = this->api().Create(this->Pod("web-1"));
  ASSERT_TRUE(created.ok());
  auto same = this->api().Update(created.value());
  ASSERT_TRUE(same.ok()) << same.status().message();
  EXPECT_EQ(same->metadata.resource_version, created->metadata.resource_version);
}

TYPED_TEST(ClusterConformanceTest, StatusChangesAreStored) {
  api::NodeClaim claim = this->Claim(UniqueName("status"));
  auto created = this->api().Create(claim);
  ASSERT_TRUE(created.ok()) << created.status().message();
  api::NodeClaim launched = created.value();
  launched.status.provider_id = "kwok://" + claim.metadata.name;
  launched.status.conditions.push_back({"Launched", "True", "Launched", "", created->metadata.creation_timestamp});
  auto updated = this->api().Update(launched);
  ASSERT_TRUE(updated.ok()) << updated.status().message();
  auto got = this->api().template Get<api::NodeClaim>("", claim.metadata.name);
  ASSERT_TRUE(got.ok());
  EXPECT_EQ(got->status.provider_id, "kwok://" + claim.metadata.name);
  ASSERT_EQ(got->status.conditions.size(), 1u);
  EXPECT_EQ(got->status.conditions[0].type, "Launched");
  EXPECT_TRUE(this->api().template Delete<api::NodeClaim>("", claim.metadata.name).ok());
}

TYPED_TEST(ClusterConformanceTest, FinalizersHoldADeletionUntilTheLastIsRemoved) {
  api::NodeClaim claim = this->Claim(UniqueName("fin"));
  claim.metadata.finalizers.push_back("karpenter.sh/termination");
  ASSERT_TRUE(this->api().Create(claim).ok());
  ASSERT_TRUE(this->api().template Delete<api::NodeClaim>("", claim.metadata.name).ok());
  auto deleting = this->api().template Get<api::NodeClaim>("", claim.metadata.name);
  ASSERT_TRUE(deleting.ok()) << deleting.status().message();
  EXPECT_TRUE(deleting->metadata.deletion_timestamp.has_value());
  // No finalizer may be added now.
  api::NodeClaim more = deleting.value();
  more.metadata.finalizers.push_back("example.com/other");
  auto refused = this->api().Update(more);
  ASSERT_FALSE(refused.ok());
  EXPECT_EQ(refused.status().code(), core::StatusCode::kInvalidArgument);
  EXPECT_THAT(refused.status().message(), HasSubstr("no new finalizers can be added"));
  // Removing the last one deletes it.
  api::NodeClaim done = deleting.value();
  done.metadata.finalizers.clear();
  ASSERT_TRUE(this->api().Update(done).ok());
  auto gone = this->api().template Get<api::NodeClaim>("", claim.metadata.name);
  ASSERT_FALSE(gone.ok());
  EXPECT_EQ(gone.status().code(), core::StatusCode::kNotFound);
}

TYPED_TEST(ClusterConformanceTest, DeletingWhatIsNotThereIsNotFound) {
  auto st = this->api().template Delete<api::Pod>(this->ns(), "never-was");
  EXPECT_EQ(st.code(), core::StatusCode::kNotFound);
}

TYPED_TEST(ClusterConformanceTest, WatchEventsArriveInChangeOrder) {
  // A NodeClaim: deleting a pod passes through a terminating version on a real API server (its
  // deletionTimestamp is written before it goes, even with no grace period), which a watcher
  // may or may not see.
  std::vector<std::pair<WatchEventType, std::string>> seen;
  std::vector<core::Time> observed;  // each event says when the store took the change in
  const std::string name = UniqueName("watch");
  this->api().Watch(Kind::kNodeClaim, [&](const cluster::WatchEvent& e) {
    if (e.name != name) return;
    seen.push_back({e.type, e.name});
    observed.push_back(e.observed_at);
  });
  auto created = this->api().Create(this->Claim(name));
  ASSERT_TRUE(created.ok()) << created.status().message();
  api::NodeClaim labelled = created.value();
  labelled.metadata.labels["tier"] = "front";
  auto updated = this->api().Update(labelled);
  ASSERT_TRUE(updated.ok()) << updated.status().message();
  ASSERT_TRUE(this->api().template Delete<api::NodeClaim>("", name).ok());
  this->world_->Settle();
  EXPECT_EQ(seen, (std::vector<std::pair<WatchEventType, std::string>>{
                      {WatchEventType::kAdded, name},
                      {WatchEventType::kModified, name},
                      {WatchEventType::kDeleted, name}}));
  for (size_t i = 0; i < observed.size(); ++i) {
    EXPECT_NE(observed[i], core::Time{}) << "event " << i;
    if (i > 0) {
      EXPECT_LE(observed[i - 1], observed[i]) << "event " << i;
    }
  }
}

// Every walk is in (namespace, name) order, as ClusterApi promises: ShadowCluster lays its
// overlay over the live store's walks by merging in that order.
TYPED_TEST(ClusterConformanceTest, ListAndEveryWalkAreInNamespaceAndNameOrder) {
  const std::string node_name = UniqueName("node");
  for (const char* n : {"c", "a", "b", "z", "x", "y"}) ASSERT_TRUE(this->api().Create(this->Pod(n)).ok());
  for (const char* n : {"z", "x", "y"}) ASSERT_TRUE(this->api().Bind(this->ns(), n, node_name).ok());
  this->world_->Settle();
  std::vector<std::string> listed, walked, pending, on_node;
  for (const api::Pod& p : this->api().template List<api::Pod>())
    if (p.metadata.namespace_ == this->ns()) listed.push_back(p.metadata.name);
  this->api().ForEachObject(cluster::Kind::kPod, [&](const cluster::Object& o) {
    if (cluster::MetaOf(o).namespace_ == this->ns()) walked.push_back(cluster::MetaOf(o).name);
  });
  auto in_ns = [&](std::vector<std::string>* out) {
    return [this, out](const api::Pod& p) {
      if (p.metadata.namespace_ == this->ns()) out->push_back(p.metadata.name);
    };
  };
  this->api().ForEachPodOn("", in_ns(&pending));
  this->api().ForEachPodOn(node_name, in_ns(&on_node));
  const std::vector<std::string> all{"a", "b", "c", "x", "y", "z"};
  EXPECT_EQ(listed, all);
  EXPECT_EQ(walked, all);
  EXPECT_EQ(pending, (std::vector<std::string>{"a", "b", "c"}));
  EXPECT_EQ(on_node, (std::vector<std::string>{"x", "y", "z"}));
}

// ForEachPodOn and ForEachWithProviderId answer from KubeCluster's informer indexes and from a
// scan in memory: the same objects either way, updated with the store.
TYPED_TEST(ClusterConformanceTest, PodsByNodeAndObjectsByProviderIdAreWhatAScanFinds) {
  const std::string node_name = UniqueName("node");
  const std::string id = "kwok://" + node_name;
  for (const char* n : {"web-1", "web-2"}) ASSERT_TRUE(this->api().Create(this->Pod(n)).ok());
  ASSERT_TRUE(this->api().Bind(this->ns(), "web-2", node_name).ok());
  api::Node node;
  node.metadata.name = node_name;
  node.spec.provider_id = id;
  ASSERT_TRUE(this->api().Create(node).ok());
  auto created = this->api().Create(this->Claim(UniqueName("claim")));
  ASSERT_TRUE(created.ok()) << created.status().message();
  api::NodeClaim claim = created.value();
  claim.status.provider_id = id;
  ASSERT_TRUE(this->api().Update(claim).ok());
  this->world_->Settle();

  auto pods_on = [&](const std::string& n) {
    std::vector<std::string> out;
    this->api().ForEachPodOn(n, [&](const api::Pod& p) {
      if (p.metadata.namespace_ == this->ns()) out.push_back(p.metadata.name);
    });
    return out;
  };
  auto with_id = [&](cluster::Kind kind) {
    std::vector<std::string> out;
    this->api().ForEachWithProviderId(kind, id, [&](const cluster::Object& o) {
      out.push_back(cluster::MetaOf(o).name);
    });
    return out;
  };
  EXPECT_EQ(pods_on(node_name), std::vector<std::string>{"web-2"});
  EXPECT_EQ(pods_on(""), std::vector<std::string>{"web-1"});
  EXPECT_EQ(with_id(cluster::Kind::kNode), std::vector<std::string>{node_name});
  EXPECT_EQ(with_id(cluster::Kind::kNodeClaim), std::vector<std::string>{claim.metadata.name});
  EXPECT_TRUE(with_id(cluster::Kind::kPod).empty());
  EXPECT_TRUE(this->api().template Delete<api::NodeClaim>("", claim.metadata.name).ok());
  EXPECT_TRUE(this->api().template Delete<api::Node>("", node_name).ok());
  this->world_->Settle();
  EXPECT_TRUE(with_id(cluster::Kind::kNode).empty());
  EXPECT_TRUE(with_id(cluster::Kind::kNodeClaim).empty());
}

TYPED_TEST(ClusterConformanceTest, BindAssignsThePodToTheNode) {
  ASSERT_TRUE(this->api().Create(this->Pod("web-1")).ok());
  ASSERT_TRUE(this->api().Bind(this->ns(), "web-1", "node-a").ok());
  auto pod = this->api().template Get<api::Pod>(this->ns(), "web-1");
  ASSERT_TRUE(pod.ok());
  EXPECT_EQ(pod->spec.node_name, "node-a");
}

TYPED_TEST(ClusterConformanceTest, BindingABoundPodAgainIsAConflict) {
  ASSERT_TRUE(this->api().Create(this->Pod("web-1")).ok());
  ASSERT_TRUE(this->api().Bind(this->ns(), "web-1", "node-a").ok());
  core::Status again = this->api().Bind(this->ns(), "web-1", "node-b");
  EXPECT_EQ(again.code(), core::StatusCode::kConflict);
  EXPECT_TRUE(cluster::IsConflict(again));
  EXPECT_THAT(again.message(), HasSubstr("already assigned to node \"node-a\""));
  EXPECT_EQ(this->api().template Get<api::Pod>(this->ns(), "web-1")->spec.node_name, "node-a");
}

TYPED_TEST(ClusterConformanceTest, EvictionHonoursThePodDisruptionBudget) {
  // Two running, ready pods and a budget that needs both: neither may go.
  for (const char* n : {"web-1", "web-2"}) {
    auto created = this->api().Create(this->Pod(n));
    ASSERT_TRUE(created.ok());
    ASSERT_TRUE(this->api().Bind(this->ns(), n, "node-a").ok());
    api::Pod running = this->api().template Get<api::Pod>(this->ns(), n).value();
    running.status.phase = "Running";
    running.status.conditions.push_back({"Ready", "True", "", "", std::nullopt});
    auto updated = this->api().Update(running);
    ASSERT_TRUE(updated.ok()) << updated.status().message();
  }
  api::PodDisruptionBudget pdb;
  pdb.metadata.name = "web";
  pdb.metadata.namespace_ = this->ns();
  pdb.min_available = api::IntOrString{false, 2, ""};
  api::LabelSelector selector;
  selector.match_labels["app"] = "web";
  pdb.selector = selector;
  ASSERT_TRUE(this->api().Create(pdb).ok());
  core::Status refused;
  for (int i = 0; i < 10; ++i) {  // the real budget's status is computed asynchronously
    refused = this->api().Evict(this->ns(), "web-1");
    if (!refused.ok()) break;
  }
  EXPECT_EQ(refused.code(), core::StatusCode::kUnavailable);
  EXPECT_TRUE(this->api().template Get<api::Pod>(this->ns(), "web-1").ok());
  // A pending pod is not protected: the budget counts only what runs.
  ASSERT_TRUE(this->api().Create(this->Pod("web-3")).ok());
  EXPECT_TRUE(this->api().Evict(this->ns(), "web-3").ok());
  EXPECT_FALSE(this->api().template Get<api::Pod>(this->ns(), "web-3").ok());
}

}  // namespace
}  // namespace nodesmith::kube
