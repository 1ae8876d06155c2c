// KubeCluster on the real API server, beyond the shared conformance suite: writes that keep
// every field nodesmith does not model, indexes, the cache surviving an API server restart and a
// compacted etcd, and objects as kubectl reads them.
#include "kube/kube_cluster.h"

#include <gmock/gmock.h>
#include <gtest/gtest.h>

#include <chrono>
#include <thread>

#include "api/codec.h"
#include "kube/object_codec.h"
#include "kube_test_env.h"

namespace nodesmith::kube {
namespace {

using ::testing::HasSubstr;
using cluster::Kind;
using namespace nodesmith::testing;

Json KubectlJson(const std::string& args) { return Json::parse(Kubectl("get -o json " + args)); }

// A Node full of what nodesmith does not model: annotations of others, status fields, a taint
// with timeAdded, fields a newer Kubernetes might add.
std::string RichNode(const std::string& name) {
  return R"({"apiVersion":"v1","kind":"Node","metadata":{"name":")" + name + R"(",
    "labels":{"kubernetes.io/hostname":")" + name + R"(","team":"a"},
    "annotations":{"node.alpha.kubernetes.io/ttl":"0","example.com/owner":"platform"}},
   "spec":{"podCIDR":"10.1.0.0/24","podCIDRs":["10.1.0.0/24"],"providerID":"kwok://)" + name + R"(",
    "taints":[{"key":"example.com/dedicated","value":"x","effect":"NoSchedule"}]}})";
}

class KubeClusterServerTest : public ::testing::Test {
 protected:
  KubeClusterServerTest() : client_(TestenvConfig()) {}
  void StartCluster(std::vector<Kind> kinds) {
    KubeClusterOptions options;
    options.kinds = std::move(kinds);
    cluster_ = std::make_unique<KubeCluster>(client_, options);
    core::Status st = cluster_->Start(60);
    ASSERT_TRUE(st.ok()) << st.message();
  }
  RestClient client_;
  std::unique_ptr<KubeCluster> cluster_;
};

TEST_F(KubeClusterServerTest, UpdatingANodeKeepsEveryFieldItDoesNotModel) {
  std::string name = UniqueName("rich");
  KubectlWithInput("create", RichNode(name));
  // Status fields only the kubelet writes.
  Kubectl("patch node " + name + R"( --subresource=status --type=merge -p '{"status":{"nodeInfo":{"kubeletVersion":"v1.35.4","machineID":"m-1"},"addresses":[{"type":"InternalIP","address":"10.0.0.7"}],"capacity":{"cpu":"4","memory":"16Gi","pods":"110"},"allocatable":{"cpu":"4","memory":"16Gi","pods":"110"}}}')");
  StartCluster({Kind::kNode});
  // The control plane's node controllers may write the Node meanwhile (a taint for a Node that
  // never reports Ready): `before` is the server's document at the version the update edits.
  Json before;
  core::Result<api::Node> node = core::Status::NotFound("not read yet");
  for (int attempt = 0; attempt < 50; ++attempt) {
    before = KubectlJson("node " + name);
    node = cluster_->Get<api::Node>("", name);
    ASSERT_TRUE(node.ok()) << node.status().message();
    if (node->metadata.resource_version == before["metadata"]["resourceVersion"]) break;
    std::this_thread::sleep_for(std::chrono::milliseconds(100));
  }
  ASSERT_EQ(node->metadata.resource_version, before["metadata"]["resourceVersion"]);
  const size_t taints = before["spec"]["taints"].size();
  api::Node changed = node.value();
  changed.metadata.labels["karpenter.sh/initialized"] = "true";
  changed.spec.taints.push_back({"karpenter.sh/disrupted", "", "NoSchedule"});
  auto updated = cluster_->Update(changed);
  ASSERT_TRUE(updated.ok()) << updated.status().message();

  Json after = KubectlJson("node " + name);
  EXPECT_EQ(after["metadata"]["labels"]["karpenter.sh/initialized"], "true");
  EXPECT_EQ(after["metadata"]["labels"]["team"], "a");
  EXPECT_EQ(after["metadata"]["annotations"], before["metadata"]["annotations"]);
  EXPECT_EQ(after["spec"]["podCIDR"], "10.1.0.0/24");
  EXPECT_EQ(after["spec"]["podCIDRs"], before["spec"]["podCIDRs"]);
  ASSERT_EQ(after["spec"]["taints"].size(), taints + 1);
  EXPECT_EQ(after["spec"]["taints"][0], before["spec"]["taints"][0]);
  EXPECT_EQ(after["spec"]["taints"][taints]["key"], "karpenter.sh/disrupted");
  EXPECT_EQ(after["status"]["nodeInfo"], before["status"]["nodeInfo"]);
  EXPECT_EQ(after["status"]["addresses"], before["status"]["addresses"]);
  // Nothing else changed: the same document but for the two edits and the server's bookkeeping.
  Json a = after, b = before;
  for (Json* d : {&a, &b}) {
    (*d)["metadata"].erase("resourceVersion");
    (*d)["metadata"].erase("managedFields");
    (*d)["metadata"]["labels"].erase("karpenter.sh/initialized");
  }
  a["spec"]["taints"].erase(taints);
  EXPECT_EQ(a, b);
  Kubectl("delete node " + name);
}

TEST_F(KubeClusterServerTest, UpdatingAPodKeepsItsUnmodelledSpec) {
  TestNamespace ns;
  KubectlWithInput("create -n " + ns.name(), R"({"apiVersion":"v1","kind":"Pod","metadata":{"name":"p",
    "annotations":{"prometheus.io/scrape":"true"}},
    "spec":{"containers":[{"name":"c","image":"registry.k8s.io/pause:3.10","env":[{"name":"A","value":"1"}],
      "livenessProbe":{"exec":{"command":["true"]}},"securityContext":{"runAsNonRoot":true,"runAsUser":1000}}],
      "dnsPolicy":"ClusterFirst","enableServiceLinks":false}})");
  Json before = KubectlJson("pod p -n " + ns.name());
  StartCluster({Kind::kPod});
  auto pod = cluster_->Get<api::Pod>(ns.name(), "p");
  ASSERT_TRUE(pod.ok());
  api::Pod changed = pod.value();
  changed.metadata.annotations["karpenter.sh/do-not-disrupt"] = "true";
  ASSERT_TRUE(cluster_->Update(changed).ok());
  Json after = KubectlJson("pod p -n " + ns.name());
  EXPECT_EQ(after["metadata"]["annotations"]["karpenter.sh/do-not-disrupt"], "true");
  EXPECT_EQ(after["metadata"]["annotations"]["prometheus.io/scrape"], "true");
  EXPECT_EQ(after["spec"], before["spec"]);
}

TEST_F(KubeClusterServerTest, NodeClaimStatusConditionsKeepFieldsOfNewerVersions) {
  EnsureReferenceCrds();
  std::string name = UniqueName("nc");
  KubectlWithInput("create", R"({"apiVersion":"karpenter.sh/v1","kind":"NodeClaim","metadata":{"name":")" + name + R"(",
    "labels":{"karpenter.sh/nodepool":"default"},"annotations":{"example.com/x":"y"}},
    "spec":{"nodeClassRef":{"group":"karpenter.k8s.aws","kind":"EC2NodeClass","name":"default"},
      "requirements":[{"key":"kubernetes.io/arch","operator":"In","values":["amd64"]}]}})");
  Kubectl("patch nodeclaim " + name + R"( --subresource=status --type=merge -p '{"status":{"conditions":[{"type":"Launched","status":"True","reason":"Launched","message":"","lastTransitionTime":"2026-12-01T00:00:00Z","observedGeneration":1}],"imageID":"ami-1"}}')");
  StartCluster({Kind::kNodeClaim});
  auto claim = cluster_->Get<api::NodeClaim>("", name);
  ASSERT_TRUE(claim.ok()) << claim.status().message();
  api::NodeClaim changed = claim.value();
  changed.status.provider_id = "kwok://" + name;
  changed.status.conditions.push_back({"Registered", "True", "Registered", "", changed.status.conditions[0].last_transition_time});
  auto updated = cluster_->Update(changed);
  ASSERT_TRUE(updated.ok()) << updated.status().message();
  Json after = KubectlJson("nodeclaim " + name);
  EXPECT_EQ(after["status"]["providerID"], "kwok://" + name);
  EXPECT_EQ(after["status"]["imageID"], "ami-1");
  ASSERT_EQ(after["status"]["conditions"].size(), 2u);
  EXPECT_EQ(after["status"]["conditions"][0]["observedGeneration"], 1);
  EXPECT_EQ(after["metadata"]["annotations"]["example.com/x"], "y");
  // Found by its provider id, from the informer's index.
  std::vector<std::string> found;
  cluster_->ForEachWithProviderId(Kind::kNodeClaim, "kwok://" + name, [&](const cluster::Object& o) {
    found.push_back(cluster::MetaOf(o).name);
  });
  EXPECT_EQ(found, std::vector<std::string>{name});
  Kubectl("delete nodeclaim " + name);
}

TEST_F(KubeClusterServerTest, ObjectsNodesmithCreatesAreWhatKubectlShows) {
  EnsureReferenceCrds();
  TestNamespace ns;
  StartCluster({Kind::kNodeClaim, Kind::kPod});
  api::NodeClaim claim;
  claim.metadata.name = UniqueName("made");
  claim.metadata.labels["karpenter.sh/nodepool"] = "default";
  claim.spec.node_class_ref = {"karpenter.k8s.aws", "EC2NodeClass", "default"};
  auto created = cluster_->Create(claim);
  ASSERT_TRUE(created.ok()) << created.status().message();
  api::NodeClaim from_kubectl;
  ASSERT_TRUE(api::DecodeNodeClaim(KubectlJson("nodeclaim " + claim.metadata.name), &from_kubectl).ok());
  EXPECT_EQ(api::EncodeNodeClaim(from_kubectl), api::EncodeNodeClaim(created.value()));
  Kubectl("delete nodeclaim " + claim.metadata.name);
}

TEST_F(KubeClusterServerTest, FieldIndexesFindPodsByNodeAndNodesByProviderId) {
  TestNamespace ns;
  std::string node = UniqueName("idx");
  KubectlWithInput("create", RichNode(node));
  StartCluster({Kind::kPod, Kind::kNode});
  for (const char* n : {"a", "b"}) {
    api::Pod p;
    p.metadata.name = n;
    p.metadata.namespace_ = ns.name();
    p.spec.containers.push_back({});
    p.spec.containers[0].name = "c";
    p.spec.containers[0].image = "registry.k8s.io/pause:3.10";
    ASSERT_TRUE(cluster_->Create(p).ok());
  }
  ASSERT_TRUE(cluster_->Bind(ns.name(), "a", node).ok());
  std::vector<std::string> by_provider_id;
  cluster_->ForEachWithProviderId(Kind::kNode, "kwok://" + node, [&](const cluster::Object& o) {
    by_provider_id.push_back(cluster::MetaOf(o).name);
  });
  EXPECT_EQ(by_provider_id, std::vector<std::string>{node});
  // The pods by node: ClusterApi::ForEachPodOn; pods bound to no node are under "".
  EXPECT_TRUE(cluster_->IndexesPodsByNode());
  auto names_on = [&](const std::string& n) {
    std::vector<std::string> out;
    cluster_->ForEachPodOn(n, [&](const api::Pod& p) {
      if (p.metadata.namespace_ == ns.name()) out.push_back(p.metadata.name);
    });
    return out;
  };
  EXPECT_EQ(names_on(node), std::vector<std::string>{"a"});
  EXPECT_EQ(names_on(""), std::vector<std::string>{"b"});
  ASSERT_TRUE(cluster_->Bind(ns.name(), "b", node).ok());
  EXPECT_EQ(names_on(node), (std::vector<std::string>{"a", "b"}));
  EXPECT_TRUE(names_on("").empty());
  Kubectl("delete node " + node);
}

// What the server holds now, as (namespace/name -> resourceVersion).
std::map<std::string, std::string> ServerPodVersions(RestClient& client, const std::string& ns) {
  std::map<std::string, std::string> out;
  auto list = client.List(resources::kPods, ns);
  EXPECT_TRUE(list.ok());
  if (!list.ok()) return out;
  for (const Json& item : list->items)
    out[item["metadata"]["name"].get<std::string>()] = item["metadata"]["resourceVersion"];
  return out;
}

std::map<std::string, std::string> CacheVersions(Informer& informer, const std::string& ns) {
  std::map<std::string, std::string> out;
  for (const auto& e : informer.List())
    if (e->namespace_ == ns) out[e->name] = e->resource_version;
  return out;
}

bool Eventually(const std::function<bool()>& cond, double seconds) {
  auto end = std::chrono::steady_clock::now() + std::chrono::duration<double>(seconds);
  while (std::chrono::steady_clock::now() < end) {
    if (cond()) return true;
    std::this_thread::sleep_for(std::chrono::milliseconds(100));
  }
  return cond();
}

std::string PodManifest(const std::string& name) {
  return R"({"apiVersion":"v1","kind":"Pod","metadata":{"name":")" + name +
         R"("},"spec":{"containers":[{"name":"c","image":"registry.k8s.io/pause:3.10"}]}})";
}

TEST_F(KubeClusterServerTest, TheCacheSurvivesAnApiServerRestartMidWatch) {
  TestNamespace ns;
  InformerOptions io;
  io.namespace_ = ns.name();
  Informer informer(client_, resources::kPods, io);
  informer.Start();
  ASSERT_TRUE(informer.WaitForSync(30));
  KubectlWithInput("create -n " + ns.name(), PodManifest("before"));
  ASSERT_TRUE(Eventually([&] { return informer.Get(ns.name(), "before") != nullptr; }, 10));

  CommandResult restart = RunWithTestenv(std::string(NODESMITH_SOURCE_DIR) + "/scripts/testenv/restart " +
                                         TestenvDir() + " kube-apiserver");
  ASSERT_EQ(restart.exit_code, 0) << restart.output;
  KubectlWithInput("create -n " + ns.name(), PodManifest("after"));
  Kubectl("delete pod before -n " + ns.name() + " --grace-period=0 --force");
  ASSERT_TRUE(Eventually([&] { return CacheVersions(informer, ns.name()) == ServerPodVersions(client_, ns.name()); }, 60))
      << "cache never caught up after the restart";
  EXPECT_EQ(informer.Get(ns.name(), "before"), nullptr);
  EXPECT_NE(informer.Get(ns.name(), "after"), nullptr);
}

// The answer to our own write can reach the cache after the watch has already delivered what
// came next: an evicted pod's re-read, applied after kwok deleted it and the DELETED event was
// seen, must not bring the pod back (it would then stay in the cache for good, and the node's
// drain would wait on it forever).
TEST_F(KubeClusterServerTest, AWriteThroughTheWatchHasOvertakenChangesNothing) {
  TestNamespace ns;
  InformerOptions io;
  io.namespace_ = ns.name();
  Informer informer(client_, resources::kPods, io);
  informer.Start();
  ASSERT_TRUE(informer.WaitForSync(30));
  KubectlWithInput("create -n " + ns.name(), PodManifest("evicted"));
  ASSERT_TRUE(Eventually([&] { return informer.Get(ns.name(), "evicted") != nullptr; }, 10));
  auto read = client_.Get(resources::kPods, ns.name(), "evicted");
  ASSERT_TRUE(read.ok()) << read.status().message();
  const Json late_answer = std::move(read).value();

  Kubectl("delete pod evicted -n " + ns.name() + " --grace-period=0 --force");
  ASSERT_TRUE(Eventually([&] { return informer.Get(ns.name(), "evicted") == nullptr; }, 10));
  EXPECT_FALSE(informer.Apply(CacheEventType::kModified, late_answer));
  EXPECT_EQ(informer.Get(ns.name(), "evicted"), nullptr) << "a deleted pod came back from a late write-through";

  // A label written after the watch moved on is still news, and reaches the cache at once.
  KubectlWithInput("create -n " + ns.name(), PodManifest("labelled"));
  ASSERT_TRUE(Eventually([&] { return informer.Get(ns.name(), "labelled") != nullptr; }, 10));
  informer.Stop();  // the watch cannot overtake this write
  Kubectl("label pod labelled -n " + ns.name() + " touched=yes");
  auto labelled = client_.Get(resources::kPods, ns.name(), "labelled");
  ASSERT_TRUE(labelled.ok());
  EXPECT_TRUE(informer.Apply(CacheEventType::kModified, labelled.value()));
  auto cached = informer.Get(ns.name(), "labelled");
  ASSERT_NE(cached, nullptr);
  EXPECT_EQ(std::get<api::Pod>(*cached->object).metadata.labels.at("touched"), "yes");
}

TEST_F(KubeClusterServerTest, AnExpiredVersionRelistsAndTheCacheStaysExact) {
  TestNamespace ns;
  InformerOptions io;
  io.namespace_ = ns.name();
  Informer informer(client_, resources::kPods, io);
  std::vector<std::string> deleted;
  informer.AddHandler([&](CacheEventType type, const CachedObjectPtr& old_object, const CachedObjectPtr&) {
    if (type == CacheEventType::kDeleted) deleted.push_back(old_object->name);
  });
  for (const char* n : {"keep", "gone", "changed"}) KubectlWithInput("create -n " + ns.name(), PodManifest(n));
  informer.Start();
  ASSERT_TRUE(informer.WaitForSync(30));
  ASSERT_EQ(informer.size(), 3u);
  // While the informer is away: changes, then etcd compacts them out of history, and the API
  // server's watch cache is emptied by a restart.
  informer.Stop();
  Kubectl("delete pod gone -n " + ns.name() + " --grace-period=0 --force");
  Kubectl("label pod changed -n " + ns.name() + " touched=yes");
  KubectlWithInput("create -n " + ns.name(), PodManifest("new"));
  std::string etcd = TestenvVar("NODESMITH_TESTENV_ETCD");
  auto rv = client_.List(resources::kPods, ns.name());
  ASSERT_TRUE(rv.ok());
  CommandResult compact = RunWithTestenv("curl -sf -X POST " + etcd + "/v3/kv/compaction -d '{\"revision\":\"" +
                                         rv->resource_version + "\",\"physical\":true}'");
  ASSERT_EQ(compact.exit_code, 0) << compact.output;
  CommandResult restart = RunWithTestenv(std::string(NODESMITH_SOURCE_DIR) + "/scripts/testenv/restart " +
                                         TestenvDir() + " kube-apiserver");
  ASSERT_EQ(restart.exit_code, 0) << restart.output;

  uint64_t relists_before = informer.relists();
  informer.Start();
  ASSERT_TRUE(Eventually([&] { return informer.relists() > relists_before; }, 60)) << "no relist after 410";
  EXPECT_EQ(CacheVersions(informer, ns.name()), ServerPodVersions(client_, ns.name()));
  EXPECT_EQ(deleted, std::vector<std::string>{"gone"});
  auto changed = informer.Get(ns.name(), "changed");
  ASSERT_NE(changed, nullptr);
  EXPECT_EQ(std::get<api::Pod>(*changed->object).metadata.labels.at("touched"), "yes");
}

}  // namespace
}  // namespace nodesmith::kube
