// The REST client against the real kube-apiserver: reads, writes, pagination, eviction, and the
// error a person gets for each way a request can fail.
#include "kube/rest_client.h"

#include <gmock/gmock.h>
#include <gtest/gtest.h>

#include <sys/stat.h>

#include <fstream>

#include "kube_test_env.h"

namespace nodesmith::kube {
namespace {

using ::testing::HasSubstr;
using namespace nodesmith::testing;

const ResourceType kConfigMaps{"", "v1", "configmaps", "ConfigMap", true};

Json ConfigMap(const std::string& ns, const std::string& name) {
  return {{"apiVersion", "v1"}, {"kind", "ConfigMap"},
          {"metadata", {{"name", name}, {"namespace", ns}}}, {"data", {{"k", "v"}}}};
}

Json PendingPod(const std::string& ns, const std::string& name) {
  return Json::parse(R"({"apiVersion":"v1","kind":"Pod","metadata":{"name":")" + name +
                     R"(","namespace":")" + ns + R"(","labels":{"app":"web"}},
      "spec":{"containers":[{"name":"c","image":"registry.k8s.io/pause:3.10"}]}})");
}

TEST(RestClientServerTest, ListFollowsContinueTokensAcrossPages) {
  TestNamespace ns;
  RestClient client(TestenvConfig());
  for (int i = 0; i < 23; ++i) ASSERT_TRUE(client.Create(kConfigMaps, ns.name(), ConfigMap(ns.name(), "cm-" + std::to_string(i))).ok());
  uint64_t before = client.requests_sent();
  ListOptions options;
  options.limit = 10;
  auto all = client.List(kConfigMaps, ns.name(), options);
  ASSERT_TRUE(all.ok()) << all.status().message();
  size_t ours = 0;
  for (const Json& item : all->items) ours += item["metadata"]["name"].get<std::string>().rfind("cm-", 0) == 0;
  EXPECT_EQ(ours, 23u);  // (kube-root-ca.crt may be there too)
  EXPECT_EQ(client.requests_sent() - before, all->items.size() > 30 ? 4u : 3u);
  EXPECT_FALSE(all->resource_version.empty());
  EXPECT_EQ(all->items[0]["kind"], "ConfigMap");  // items come back as whole documents
}

TEST(RestClientServerTest, ReplaceWithAStaleVersionIsAConflict) {
  TestNamespace ns;
  RestClient client(TestenvConfig());
  auto created = client.Create(kConfigMaps, ns.name(), ConfigMap(ns.name(), "cm"));
  ASSERT_TRUE(created.ok());
  Json first = created.value();
  first["data"]["k"] = "v2";
  ASSERT_TRUE(client.Replace(kConfigMaps, ns.name(), "cm", first).ok());
  first["data"]["k"] = "v3";  // still the first resourceVersion
  auto stale = client.Replace(kConfigMaps, ns.name(), "cm", first);
  ASSERT_FALSE(stale.ok());
  EXPECT_EQ(stale.status().code(), core::StatusCode::kConflict);
  EXPECT_THAT(stale.status().message(), HasSubstr("conflict: "));
}

TEST(RestClientServerTest, MergePatchChangesOnlyWhatItNames) {
  TestNamespace ns;
  RestClient client(TestenvConfig());
  Json cm = ConfigMap(ns.name(), "cm");
  cm["metadata"]["annotations"] = {{"theirs", "kept"}};
  ASSERT_TRUE(client.Create(kConfigMaps, ns.name(), cm).ok());
  auto patched = client.Patch(kConfigMaps, ns.name(), "cm", PatchType::kMerge,
                              {{"metadata", {{"labels", {{"mine", "1"}}}}}});
  ASSERT_TRUE(patched.ok()) << patched.status().message();
  EXPECT_EQ((*patched)["metadata"]["annotations"]["theirs"], "kept");
  EXPECT_EQ((*patched)["metadata"]["labels"]["mine"], "1");
}

TEST(RestClientServerTest, DeleteWithAnotherUidIsRefused) {
  TestNamespace ns;
  RestClient client(TestenvConfig());
  ASSERT_TRUE(client.Create(kConfigMaps, ns.name(), ConfigMap(ns.name(), "cm")).ok());
  DeleteOptions options;
  options.uid = "00000000-0000-0000-0000-000000000000";
  auto refused = client.Delete(kConfigMaps, ns.name(), "cm", options);
  ASSERT_FALSE(refused.ok());
  EXPECT_EQ(refused.status().code(), core::StatusCode::kConflict);
  EXPECT_TRUE(client.Get(kConfigMaps, ns.name(), "cm").ok());
}

TEST(RestClientServerTest, EvictionAgainstAPodDisruptionBudgetIsAnAnswerNotAFailure) {
  TestNamespace ns;
  RestClient client(TestenvConfig());
  ASSERT_TRUE(client.Create(resources::kPods, ns.name(), PendingPod(ns.name(), "web-1")).ok());
  // A pending pod ignores budgets; a running, ready one is what they protect.
  ASSERT_TRUE(client.Bind(ns.name(), "web-1", "node-a").ok());
  // A patch, not a read and a replace: the scheduler may still write its PodScheduled condition
  // onto the pod it saw pending, and a replace carrying the older resourceVersion would conflict.
  auto running = client.Patch(resources::kPods, ns.name(), "web-1", PatchType::kMerge,
                              Json::parse(R"({"status":{"phase":"Running",
                                  "conditions":[{"type":"Ready","status":"True"}]}})"),
                              "status");
  ASSERT_TRUE(running.ok()) << running.status().message();
  Json pdb = Json::parse(R"({"apiVersion":"policy/v1","kind":"PodDisruptionBudget",
      "metadata":{"name":"web"},"spec":{"minAvailable":1,"selector":{"matchLabels":{"app":"web"}}}})");
  ASSERT_TRUE(client.Create(resources::kPodDisruptionBudgets, ns.name(), pdb).ok());
  // The disruption controller computes the budget's status; until then nothing may be evicted.
  core::Status st;
  for (int i = 0; i < 20; ++i) {
    st = client.Evict(ns.name(), "web-1");
    if (!st.ok()) break;
  }
  ASSERT_FALSE(st.ok());
  EXPECT_EQ(st.code(), core::StatusCode::kUnavailable) << st.message();
  EXPECT_THAT(st.message(), HasSubstr("disruption budget"));
  auto kept = client.Get(resources::kPods, ns.name(), "web-1");
  ASSERT_TRUE(kept.ok()) << kept.status().message();
  EXPECT_EQ((*kept)["status"]["phase"], "Running");
  // Without the budget the eviction deletes the pod.
  ASSERT_TRUE(client.Delete(resources::kPodDisruptionBudgets, ns.name(), "web").ok());
  EXPECT_TRUE(client.Evict(ns.name(), "web-1").ok());
}

TEST(RestClientServerTest, BindingAssignsThePod) {
  TestNamespace ns;
  RestClient client(TestenvConfig());
  ASSERT_TRUE(client.Create(resources::kPods, ns.name(), PendingPod(ns.name(), "p")).ok());
  ASSERT_TRUE(client.Bind(ns.name(), "p", "some-node").ok());
  auto pod = client.Get(resources::kPods, ns.name(), "p");
  ASSERT_TRUE(pod.ok());
  EXPECT_EQ((*pod)["spec"]["nodeName"], "some-node");
}

TEST(RestClientServerTest, WatchDeliversChangesInOrderFromAVersion) {
  TestNamespace ns;
  RestClient client(TestenvConfig());
  auto list = client.List(kConfigMaps, ns.name());
  ASSERT_TRUE(list.ok());
  ASSERT_TRUE(client.Create(kConfigMaps, ns.name(), ConfigMap(ns.name(), "a")).ok());
  ASSERT_TRUE(client.Patch(kConfigMaps, ns.name(), "a", PatchType::kMerge, {{"data", {{"k", "2"}}}}).ok());
  ASSERT_TRUE(client.Delete(kConfigMaps, ns.name(), "a").ok());
  std::vector<WatchEventKind> seen;
  WatchOptions options;
  options.resource_version = list->resource_version;
  options.timeout_seconds = 5;
  core::Status st = client.Watch(kConfigMaps, ns.name(), options,
                                 [&](WatchEventKind kind, const api::JsonView&) {
                                   if (kind != WatchEventKind::kBookmark) seen.push_back(kind);
                                   return seen.size() < 3;
                                 },
                                 nullptr);
  EXPECT_TRUE(st.ok()) << st.message();
  EXPECT_EQ(seen, (std::vector<WatchEventKind>{WatchEventKind::kAdded, WatchEventKind::kModified,
                                               WatchEventKind::kDeleted}));
}

// --- Errors a person can act on ---

TEST(RestClientErrorsServerTest, RbacRefusalNamesVerbResourceNamespaceAndIdentity) {
  RestClient client(TestenvConfig("kubeconfig-restricted"));
  auto r = client.List(resources::kPods, "kube-system");
  ASSERT_FALSE(r.ok());
  EXPECT_EQ(r.status().code(), core::StatusCode::kPermissionDenied);
  EXPECT_THAT(r.status().message(), HasSubstr("RBAC does not allow"));
  EXPECT_THAT(r.status().message(), HasSubstr("nodesmith-restricted"));
  EXPECT_THAT(r.status().message(), HasSubstr("list pods in namespace kube-system"));
  auto cluster_wide = client.Create(resources::kNodes, "", {{"metadata", {{"name", "x"}}}});
  ASSERT_FALSE(cluster_wide.ok());
  EXPECT_THAT(cluster_wide.status().message(), HasSubstr("create nodes at the cluster scope"));
}

TEST(RestClientErrorsServerTest, UnknownCredentialsAre401WithWhatToRefresh) {
  RestConfig config = TestenvConfig();
  config.client_cert_pem.clear();
  config.client_key_pem.clear();
  config.bearer_token = "not-a-token-this-cluster-knows";
  config.identity = "user \"expired\"";
  RestClient client(config);
  auto r = client.List(resources::kNodes, "");
  ASSERT_FALSE(r.ok());
  EXPECT_EQ(r.status().code(), core::StatusCode::kUnauthenticated);
  EXPECT_THAT(r.status().message(), HasSubstr("rejected the credentials of user \"expired\""));
  EXPECT_THAT(r.status().message(), HasSubstr("401"));
}

TEST(RestClientErrorsServerTest, MissingCredentialsAreAnonymousAndForbidden) {
  RestConfig config = TestenvConfig();
  config.client_cert_pem.clear();
  config.client_key_pem.clear();
  config.identity = "user \"nobody\"";
  RestClient client(config);
  auto r = client.List(resources::kNodes, "");
  ASSERT_FALSE(r.ok());
  EXPECT_THAT(r.status().message(), HasSubstr("system:anonymous"));
}

TEST(RestClientErrorsServerTest, AServerCertificateFromAnotherCaIsNotTrusted) {
  RestConfig config = TestenvConfig();
  std::ifstream in(TestenvDir() + "/pki/other-ca.crt");
  std::stringstream pem;
  pem << in.rdbuf();
  config.ca_pem = pem.str();
  config.ca_source = "other-ca.crt";
  RestClient client(config);
  auto r = client.Get(resources::kNamespaces, "", "default");
  ASSERT_FALSE(r.ok());
  EXPECT_THAT(r.status().message(), HasSubstr("is not trusted by the certificate authority other-ca.crt"));
}

TEST(RestClientErrorsServerTest, AnUnreachableServerSaysWhatToCheck) {
  RestConfig config = TestenvConfig();
  config.server = "https://127.0.0.1:1";  // nothing listens on port 1
  RestClient client(config);
  auto r = client.Get(resources::kNamespaces, "", "default");
  ASSERT_FALSE(r.ok());
  EXPECT_EQ(r.status().code(), core::StatusCode::kUnavailable);
  EXPECT_THAT(r.status().message(), HasSubstr("cannot reach the Kubernetes API server at https://127.0.0.1:1"));
  EXPECT_THAT(r.status().message(), HasSubstr("right kubeconfig context"));
}

TEST(RestClientErrorsServerTest, AMissingCrdIsNamed) {
  RestClient client(TestenvConfig());
  const ResourceType widgets{"widgets.nodesmith.dev", "v1", "widgets", "Widget", false};
  auto r = client.List(widgets, "");
  ASSERT_FALSE(r.ok());
  EXPECT_EQ(r.status().code(), core::StatusCode::kNotFound);
  EXPECT_THAT(r.status().message(), HasSubstr("the Widget CRD is not installed"));
  // A missing object is just that.
  auto o = client.Get(resources::kNamespaces, "", "no-such-namespace");
  ASSERT_FALSE(o.ok());
  EXPECT_THAT(o.status().message(), HasSubstr("Namespace no-such-namespace not found"));
}

TEST(RestClientErrorsServerTest, InvalidObjectsGetTheServersFieldCauses) {
  TestNamespace ns;
  RestClient client(TestenvConfig());
  Json bad = PendingPod(ns.name(), "Bad_Name");
  bad["spec"]["containers"][0].erase("image");
  auto r = client.Create(resources::kPods, ns.name(), bad);
  ASSERT_FALSE(r.ok());
  EXPECT_EQ(r.status().code(), core::StatusCode::kInvalidArgument);
  EXPECT_THAT(r.status().message(), HasSubstr("is invalid: metadata.name: "));
  EXPECT_THAT(r.status().message(), HasSubstr("spec.containers[0].image: "));
}

TEST(RestClientErrorsServerTest, TokenFileUserIsAccepted) {
  RestClient client(TestenvConfig("kubeconfig-token"));
  auto r = client.Get(resources::kNamespaces, "", "default");
  EXPECT_TRUE(r.ok()) << r.status().message();
}

TEST(RestClientErrorsServerTest, ExecCredentialPluginIsAccepted) {
  // A plugin that prints the test user's token as `aws eks get-token` prints an EKS token.
  char dir[] = "/tmp/nodesmith-exec-XXXXXX";
  ASSERT_NE(mkdtemp(dir), nullptr);
  std::string script = std::string(dir) + "/get-token";
  {
    std::ofstream out(script);
    out << "#!/bin/sh\nprintf '{\"kind\":\"ExecCredential\",\"apiVersion\":"
           "\"client.authentication.k8s.io/v1beta1\",\"spec\":{},\"status\":{\"token\":\"%s\"}}' "
           "\"$(cat " << TestenvDir() << "/pki/admin.token)\"\n";
  }
  chmod(script.c_str(), 0755);
  RestConfig config = TestenvConfig();
  config.client_cert_pem.clear();
  config.client_key_pem.clear();
  ExecConfig exec;
  exec.command = script;
  exec.api_version = "client.authentication.k8s.io/v1beta1";
  config.exec = exec;
  RestClient client(config);
  auto r = client.Get(resources::kNamespaces, "", "default");
  EXPECT_TRUE(r.ok()) << r.status().message();
}

}  // namespace
}  // namespace nodesmith::kube
