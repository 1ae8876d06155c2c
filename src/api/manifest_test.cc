// LoadManifests: documents and Lists, files and directories, defaults, unused kinds, and one clear
// error for every kind of malformed input.
#include "api/manifest.h"

#include <filesystem>
#include <fstream>
#include <iostream>
#include <sstream>

#include <gtest/gtest.h>

namespace nodesmith::api {
namespace {

constexpr const char* kPool = R"(apiVersion: karpenter.sh/v1
kind: NodePool
metadata: {name: default}
spec:
  template:
    spec:
      nodeClassRef: {group: karpenter.k8s.aws, kind: EC2NodeClass, name: default}
      requirements:
      - {key: karpenter.sh/capacity-type, operator: In, values: [spot, on-demand], minValues: 2}
)";

std::string LoadError(const std::string& text, const std::string& file = "in.yaml") {
  auto set = LoadManifestsFromString(text, file);
  if (set.ok()) return "<loaded>";
  return set.status().message();
}

TEST(LoadManifests, DecodesEveryDocumentOfAFile) {
  auto set = LoadManifestsFromString(std::string(kPool) + R"(---
apiVersion: v1
kind: Pod
metadata: {name: web}
spec:
  containers: [{name: c, resources: {requests: {cpu: 500m}}}]
)", "pools.yaml");
  ASSERT_TRUE(set.ok()) << set.status().message();
  ASSERT_EQ(set->node_pools.size(), 1u);
  ASSERT_EQ(set->pods.size(), 1u);
  EXPECT_EQ(set->pods[0].object.metadata.namespace_, "default");
  EXPECT_EQ(set->pods[0].source.file, "pools.yaml");
  EXPECT_EQ(set->pods[0].source.document, 2);
  EXPECT_EQ(set->pods[0].source.kind, "Pod");
  EXPECT_EQ(set->pods[0].source.name, "web");
}

TEST(LoadManifests, AppliesNodePoolDefaults) {
  auto set = LoadManifestsFromString(kPool);
  ASSERT_TRUE(set.ok()) << set.status().message();
  const NodePool& pool = set->node_pools[0].object;
  EXPECT_EQ(pool.disruption.consolidation_policy, "WhenEmptyOrUnderutilized");
  ASSERT_FALSE(pool.disruption.consolidate_after.never());
  EXPECT_EQ(*pool.disruption.consolidate_after.value, core::Duration(0));
  ASSERT_EQ(pool.disruption.budgets.size(), 1u);
  EXPECT_EQ(pool.disruption.budgets[0].nodes, "10%");
  ASSERT_FALSE(pool.template_.spec.expire_after.never());
  EXPECT_EQ(*pool.template_.spec.expire_after.value, std::chrono::hours(720));
  EXPECT_FALSE(pool.weight.has_value());
}

TEST(LoadManifests, UnpacksListsAndNamesTheItemInErrors) {
  const char* list = R"({"apiVersion": "v1", "kind": "List", "items": [
    {"apiVersion": "v1", "kind": "Pod", "metadata": {"name": "a", "namespace": "ns"}, "spec": {"containers": []}},
    {"apiVersion": "v1", "kind": "Node", "metadata": {"name": "n1"}},
    {"apiVersion": "v1", "kind": "Pod", "metadata": {"name": "b"}, "spec": {"containers": 5}}]})";
  EXPECT_EQ(LoadError(list, "pods.json"),
            "pods.json: document 1, item 3 (Pod b): spec.containers: expected a list, got the number 5");
  std::string ok = std::string(list).replace(std::string(list).find("\"containers\": 5"), 15, "\"containers\": []");
  auto set = LoadManifestsFromString(ok, "pods.json");
  ASSERT_TRUE(set.ok()) << set.status().message();
  ASSERT_EQ(set->pods.size(), 2u);
  EXPECT_EQ(set->pods[0].object.metadata.Key(), "ns/a");
  EXPECT_EQ(set->pods[1].source.item, 3);
  EXPECT_EQ(set->nodes.size(), 1u);
}

TEST(LoadManifests, WarnsOnceForEachUnusedKind) {
  auto set = LoadManifestsFromString(
      "apiVersion: v1\nkind: ConfigMap\nmetadata: {name: app-config}\n---\n"
      "apiVersion: v1\nkind: Service\nmetadata: {name: web}\n", "cm.yaml");
  ASSERT_TRUE(set.ok());
  ASSERT_EQ(set->warnings.size(), 2u);
  EXPECT_EQ(set->warnings[0], "cm.yaml: document 1 (ConfigMap app-config): kind v1/ConfigMap is not used by nodesmith; ignored");
}

TEST(LoadManifests, KeepsScenariosAsJson) {
  auto set = LoadManifestsFromString(
      "apiVersion: nodesmith.dev/v1alpha1\nkind: Scenario\nmetadata: {name: s}\nspec: {duration: 45m}\n");
  ASSERT_TRUE(set.ok());
  ASSERT_EQ(set->scenarios.size(), 1u);
  EXPECT_EQ(set->scenarios[0].object["spec"]["duration"], "45m");
}

TEST(LoadManifests, RefusesTwoDocumentsDefiningTheSameObject) {
  EXPECT_EQ(LoadError(std::string(kPool) + "---\n" + kPool, "p.yaml"),
            "p.yaml: document 2 (NodePool default): duplicates the object defined at p.yaml: document 1 (NodePool default)");
}

class TempDir {
 public:
  TempDir() {
    path_ = std::filesystem::temp_directory_path() /
            ("nodesmith-manifest-test-" + std::to_string(::testing::UnitTest::GetInstance()->random_seed()) + "-" +
             ::testing::UnitTest::GetInstance()->current_test_info()->name());
    std::filesystem::remove_all(path_);
    std::filesystem::create_directories(path_);
  }
  ~TempDir() { std::filesystem::remove_all(path_); }
  std::string Write(const std::string& rel, const std::string& text) {
    auto p = path_ / rel;
    std::filesystem::create_directories(p.parent_path());
    std::ofstream(p) << text;
    return p.string();
  }
  std::string path() const { return path_.string(); }

 private:
  std::filesystem::path path_;
};

TEST(LoadManifests, RefusesASecondInstanceTypeCatalog) {
  const std::string catalog = "apiVersion: nodesmith.dev/v1alpha1\nkind: InstanceTypeCatalog\nmetadata: {name: NAME}\n"
                              "spec: {instanceTypes: [{name: t, capacity: {cpu: 4}, price: 0.5}]}\n";
  std::string a = catalog, b = catalog;
  a.replace(a.find("NAME"), 4, "lab");
  b.replace(b.find("NAME"), 4, "other");
  EXPECT_EQ(LoadError(a + "---\n" + b),
            "in.yaml: document 2 (InstanceTypeCatalog other): a second InstanceTypeCatalog; give one (the first is "
            "at in.yaml: document 1 (InstanceTypeCatalog lab))");
}

TEST(LoadManifests, ReadsDirectoriesRecursivelyInSortedOrderOnlyManifestFiles) {
  TempDir dir;
  auto pod = [](const std::string& name) {
    return "apiVersion: v1\nkind: Pod\nmetadata: {name: " + name + "}\nspec: {containers: []}\n";
  };
  dir.Write("b.yaml", pod("b"));
  dir.Write("a/z.yml", pod("az"));
  dir.Write("c.json", R"({"apiVersion": "v1", "kind": "Pod", "metadata": {"name": "c"}, "spec": {}})");
  dir.Write("notes.txt", "not: [a manifest");
  auto set = LoadManifests({dir.path()});
  ASSERT_TRUE(set.ok()) << set.status().message();
  ASSERT_EQ(set->pods.size(), 3u);
  EXPECT_EQ(set->pods[0].object.metadata.name, "az");
  EXPECT_EQ(set->pods[1].object.metadata.name, "b");
  EXPECT_EQ(set->pods[2].object.metadata.name, "c");
}

TEST(LoadManifests, ReadsStdinForDash) {
  std::istringstream in("apiVersion: v1\nkind: Node\nmetadata: {name: n1}\n---\nkind: Node\n");
  std::streambuf* saved = std::cin.rdbuf(in.rdbuf());
  auto set = LoadManifests({"-"});
  std::cin.rdbuf(saved);
  ASSERT_FALSE(set.ok());
  EXPECT_EQ(set.status().message(), "<stdin>: document 2 (Node): apiVersion and kind are required (strings)");
}

TEST(LoadManifests, UnpacksTypedListsAsTheApiServerReturnsThem) {
  auto set = LoadManifestsFromString(R"(apiVersion: v1
kind: NodeList
items:
- {apiVersion: v1, kind: Node, metadata: {name: a}}
- {apiVersion: v1, kind: Node, metadata: {name: b}}
)");
  ASSERT_TRUE(set.ok()) << set.status().message();
  EXPECT_EQ(set->nodes.size(), 2u);
}

TEST(LoadManifests, NamesAMissingPath) {
  auto set = LoadManifests({"/nonexistent/pools.yaml"});
  ASSERT_FALSE(set.ok());
  EXPECT_EQ(set.status().message(), "/nonexistent/pools.yaml: no such file or directory");
}

// Malformed input: each row gives one clear message (never a crash, never a partial load).
struct Malformed {
  const char* name;
  std::string text;
  std::string error;
};

std::string PodWith(const std::string& spec) {
  return "apiVersion: v1\nkind: Pod\nmetadata: {name: p}\nspec:\n" + spec;
}

std::string PoolWith(const std::string& requirements) {
  return std::string(R"(apiVersion: karpenter.sh/v1
kind: NodePool
metadata: {name: default}
spec:
  template:
    spec:
      nodeClassRef: {group: karpenter.k8s.aws, kind: EC2NodeClass, name: default}
      requirements: )") + requirements + "\n";
}

std::string Pdb(const std::string& budget) {
  return "apiVersion: policy/v1\nkind: PodDisruptionBudget\nmetadata: {name: b, namespace: default}\n"
         "spec: {" + budget + ", selector: {matchLabels: {app: a}}}\n";
}

class MalformedInput : public ::testing::TestWithParam<Malformed> {};

TEST_P(MalformedInput, FailsWithOneClearMessage) {
  EXPECT_EQ(LoadError(GetParam().text), GetParam().error);
}

INSTANTIATE_TEST_SUITE_P(
    Table, MalformedInput,
    ::testing::Values(
        Malformed{"TruncatedYaml", "apiVersion: v1\nkind: Pod\nmetadata: {name: p\n",
                  "in.yaml: document 1: line 4, column 1: invalid YAML: end of map flow not found"},
        Malformed{"ReplicasNotANumber",
                  "apiVersion: apps/v1\nkind: Deployment\nmetadata: {name: d}\nspec: {replicas: abc}\n",
                  "in.yaml: document 1 (Deployment d): spec.replicas: expected an integer, got the string \"abc\""},
        Malformed{"RequirementsNotAList", PoolWith("5"),
                  "in.yaml: document 1 (NodePool default): spec.template.spec.requirements: expected a list, got the number 5"},
        Malformed{"HugeInteger",
                  "apiVersion: apps/v1\nkind: Deployment\nmetadata: {name: d}\nspec: {replicas: 99999999999999999999}\n",
                  "in.yaml: document 1 (Deployment d): spec.replicas: 99999999999999999999 is out of range for a "
                  "64-bit integer"},
        Malformed{"QuantityOutOfRange", PodWith("  containers: [{name: c, resources: {requests: {cpu: 1e400}}}]"),
                  "in.yaml: document 1 (Pod p): spec.containers[0].resources.requests.cpu: 1e400 is out of range for a number"},
        Malformed{"QuantityNotAQuantity", PodWith("  containers: [{name: c, resources: {requests: {cpu: abc}}}]"),
                  "in.yaml: document 1 (Pod p): spec.containers[0].resources.requests[cpu]: quantity \"abc\": "
                  "quantities must match the regular expression '^([+-]?[0-9.]+)([eEinumkKMGTP]*[-+]?[0-9]*)$'"},
        Malformed{"QuantityWithoutDigits", PodWith("  containers: [{name: c, resources: {requests: {cpu: e1}}}]"),
                  "in.yaml: document 1 (Pod p): spec.containers[0].resources.requests[cpu]: quantity \"e1\": "
                  "unable to parse numeric part of quantity"},
        Malformed{"NodeClassKubeletReservedNotAQuantity",
                  "apiVersion: karpenter.k8s.aws/v1\nkind: EC2NodeClass\nmetadata: {name: default}\nspec:\n"
                  "  role: R\n  amiSelectorTerms: [{alias: al2023@latest}]\n"
                  "  subnetSelectorTerms: [{tags: {a: b}}]\n  securityGroupSelectorTerms: [{tags: {a: b}}]\n"
                  "  kubelet: {kubeReserved: {cpu: e1}}\n",
                  "in.yaml: document 1 (EC2NodeClass default): spec.kubelet.kubeReserved[cpu]: quantity \"e1\": "
                  "unable to parse numeric part of quantity"},
        Malformed{"NodeNegativeAllocatable",
                  "apiVersion: v1\nkind: Node\nmetadata: {name: n}\nstatus: {capacity: {cpu: 4}, allocatable: {cpu: -1}}\n",
                  "in.yaml: document 1 (Node n): status.allocatable[cpu]: must not be negative"},
        Malformed{"NodeClaimNegativeRequest",
                  "apiVersion: karpenter.sh/v1\nkind: NodeClaim\nmetadata: {name: c}\nspec:\n"
                  "  nodeClassRef: {group: karpenter.k8s.aws, kind: EC2NodeClass, name: default}\n"
                  "  requirements: []\n  resources: {requests: {memory: -1Gi}}\n",
                  "in.yaml: document 1 (NodeClaim c): spec.resources.requests[memory]: must not be negative"},
        Malformed{"CatalogNegativeOverhead",
                  "apiVersion: nodesmith.dev/v1alpha1\nkind: InstanceTypeCatalog\nmetadata: {name: lab}\nspec:\n"
                  "  defaults: {overhead: {kubeReserved: {cpu: -100m}}}\n"
                  "  instanceTypes: [{name: t, capacity: {cpu: 4}, price: 0.1}]\n",
                  "in.yaml: document 1 (InstanceTypeCatalog lab): spec.defaults.overhead.kubeReserved[cpu]: must "
                  "not be negative"},
        Malformed{"UnknownOperator", PoolWith("[{key: kubernetes.io/arch, operator: Within, values: [amd64]}]"),
                  "in.yaml: document 1 (NodePool default): spec.template.spec.requirements[0].operator: unsupported "
                  "operator \"Within\" (must be one of In, NotIn, Exists, DoesNotExist, Gt, Lt, Gte, Lte)"},
        Malformed{"TenMegabyteString", "apiVersion: v1\nkind: Pod\nmetadata:\n  name: " + std::string(10 << 20, 'a') + "\n",
                  "in.yaml: document 1 (Pod): metadata.name: a value of 10485760 bytes is longer than the 2097152-byte limit"},
        Malformed{"DeepNesting", std::string(100000, '[') + std::string(100000, ']'),
                  "in.yaml: nesting is 100000 levels deep; at most 512 are allowed"},
        Malformed{"NotAnObject", "- a\n- b\n",
                  "in.yaml: document 1: expected a Kubernetes object (a mapping with apiVersion and kind), got a list"},
        Malformed{"MissingKind", "apiVersion: v1\nmetadata: {name: x}\n",
                  "in.yaml: document 1 (x): apiVersion and kind are required (strings)"},
        Malformed{"MissingName", "apiVersion: v1\nkind: Node\nmetadata: {}\n",
                  "in.yaml: document 1 (Node): metadata.name: is required"},
        Malformed{"LongName", "apiVersion: v1\nkind: Node\nmetadata: {name: " + std::string(300, 'a') + "}\n",
                  "in.yaml: document 1 (Node " + std::string(64, 'a') + "...): metadata.name: invalid name \"" +
                      std::string(64, 'a') + "...\" (at most 253 lowercase alphanumerics, '-' or '.', starting and "
                      "ending with an alphanumeric)"},
        Malformed{"MinValuesAboveValues",
                  PoolWith("[{key: karpenter.sh/capacity-type, operator: In, values: [spot, on-demand], minValues: 3}]"),
                  "in.yaml: document 1 (NodePool default): spec.template.spec.requirements[0].minValues: 3 is more than "
                  "the 2 values given"},
        Malformed{"LabelsNotStrings", "apiVersion: v1\nkind: Node\nmetadata: {name: n, labels: {a: 1}}\n",
                  "in.yaml: document 1 (Node n): metadata.labels[a]: expected a string, got the number 1"},
        Malformed{"MinDomainsZero",
                  PodWith("  containers: [{name: c}]\n  topologySpreadConstraints: [{maxSkew: 1, topologyKey: zone, "
                          "whenUnsatisfiable: DoNotSchedule, minDomains: 0}]"),
                  "in.yaml: document 1 (Pod p): spec.topologySpreadConstraints[0].minDomains: must be greater than 0, "
                  "got 0"},
        Malformed{"RequestAboveLimit",
                  PodWith("  containers: [{name: c, resources: {requests: {cpu: 2}, limits: {cpu: 1}}}]"),
                  "in.yaml: document 1 (Pod p): spec.containers[0].resources.requests[cpu]: must be less than or "
                  "equal to cpu limit of 1, got 2"},
        Malformed{"PdbAbove100Percent", Pdb("minAvailable: \"200%\""),
                  "in.yaml: document 1 (PodDisruptionBudget b): spec.minAvailable: must not be greater than "
                  "100%, got 200%"},
        Malformed{"PdbNegative", Pdb("maxUnavailable: -1"),
                  "in.yaml: document 1 (PodDisruptionBudget b): spec.maxUnavailable: must be greater than or "
                  "equal to 0, got -1"},
        Malformed{"PdbNotAPercent", Pdb("minAvailable: \"half\""),
                  "in.yaml: document 1 (PodDisruptionBudget b): spec.minAvailable: must be an integer or a "
                  "percentage like \"50%\", got \"half\""}),
    [](const ::testing::TestParamInfo<Malformed>& info) { return info.param.name; });

}  // namespace
}  // namespace nodesmith::api
