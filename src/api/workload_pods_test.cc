// ExpandWorkloads: workloads whose pods are absent stand for pending pods from their template.
#include "api/workload_pods.h"

#include <gtest/gtest.h>

#include "api/manifest.h"

namespace nodesmith::api {
namespace {

constexpr const char* kInflate = R"(apiVersion: apps/v1
kind: Deployment
metadata: {name: inflate, namespace: default, uid: d-1, creationTimestamp: "2025-01-01T00:00:00Z"}
spec:
  replicas: 3
  selector: {matchLabels: {app: inflate}}
  template:
    metadata: {labels: {app: inflate}}
    spec: {containers: [{name: c, resources: {requests: {cpu: 1}}}]}
)";

ObjectSet Load(const std::string& text) {
  auto set = LoadManifestsFromString(text);
  EXPECT_TRUE(set.ok()) << set.status().message();
  return set.ok() ? std::move(*set) : ObjectSet();
}

TEST(ExpandWorkloads, ADeploymentWithoutPodsStandsForReplicasPendingPods) {
  ObjectSet set = Load(kInflate);
  ASSERT_TRUE(ExpandWorkloads(set).ok());
  ASSERT_EQ(set.pods.size(), 3u);
  const Pod& p = set.pods[0].object;
  EXPECT_EQ(p.metadata.Key(), "default/inflate-1");
  EXPECT_EQ(set.pods[2].object.metadata.name, "inflate-3");
  EXPECT_EQ(p.metadata.labels.at("app"), "inflate");
  EXPECT_EQ(p.metadata.creation_timestamp, set.replicated_workloads[0].object.metadata.creation_timestamp);
  EXPECT_EQ(p.metadata.owner_references[0].kind, "Deployment");
  EXPECT_EQ(p.spec.containers[0].resources.requests.Get("cpu"), Quantity::MustParse("1"));
  EXPECT_TRUE(p.spec.node_name.empty());
  EXPECT_EQ(set.pods[0].source.kind, "Deployment");
}

TEST(ExpandWorkloads, UidsAreStableAndDistinct) {
  ObjectSet a = Load(kInflate), b = Load(kInflate);
  ASSERT_TRUE(ExpandWorkloads(a).ok());
  ASSERT_TRUE(ExpandWorkloads(b).ok());
  EXPECT_EQ(a.pods[0].object.metadata.uid, b.pods[0].object.metadata.uid);
  EXPECT_NE(a.pods[0].object.metadata.uid, a.pods[1].object.metadata.uid);
  EXPECT_EQ(a.pods[0].object.metadata.uid.size(), 36u);
}

TEST(ExpandWorkloads, PodsOwnedThroughAReplicaSetMeanTheDeploymentIsPresent) {
  ObjectSet set = Load(std::string(kInflate) + R"(---
apiVersion: v1
kind: Pod
metadata: {name: inflate-7d9f-x, ownerReferences: [{apiVersion: apps/v1, kind: ReplicaSet, name: inflate-7d9f}]}
spec: {containers: []}
)");
  ASSERT_TRUE(ExpandWorkloads(set).ok());
  EXPECT_EQ(set.pods.size(), 1u);
}

TEST(ExpandWorkloads, PodsMatchingTheSelectorMeanTheWorkloadIsPresent) {
  ObjectSet set = Load(std::string(kInflate) + R"(---
apiVersion: v1
kind: Pod
metadata: {name: stray, labels: {app: inflate}}
spec: {containers: []}
)");
  ASSERT_TRUE(ExpandWorkloads(set).ok());
  EXPECT_EQ(set.pods.size(), 1u);
}

TEST(ExpandWorkloads, PodsInAnotherNamespaceDoNotCount) {
  ObjectSet set = Load(std::string(kInflate) + R"(---
apiVersion: v1
kind: Pod
metadata: {name: stray, namespace: other, labels: {app: inflate}}
spec: {containers: []}
)");
  ASSERT_TRUE(ExpandWorkloads(set).ok());
  EXPECT_EQ(set.pods.size(), 4u);
}

TEST(ExpandWorkloads, AJobStandsForParallelismPodsCappedByCompletions) {
  ObjectSet set = Load(R"(apiVersion: batch/v1
kind: Job
metadata: {name: train}
spec: {parallelism: 4, completions: 2, template: {spec: {containers: [{name: c}]}}}
)");
  ASSERT_TRUE(ExpandWorkloads(set).ok());
  ASSERT_EQ(set.pods.size(), 2u);
  EXPECT_EQ(set.pods[1].object.metadata.name, "train-2");
  EXPECT_EQ(set.pods[1].object.metadata.owner_references[0].api_version, "batch/v1");
}

TEST(ExpandWorkloads, DaemonSetsAndZeroReplicasMakeNoPods) {
  ObjectSet set = Load(R"(apiVersion: apps/v1
kind: DaemonSet
metadata: {name: agent}
spec: {template: {spec: {containers: [{name: c}]}}}
---
apiVersion: apps/v1
kind: StatefulSet
metadata: {name: db}
spec: {replicas: 0, template: {spec: {containers: [{name: c}]}}}
)");
  ASSERT_TRUE(ExpandWorkloads(set).ok());
  EXPECT_TRUE(set.pods.empty());
}

TEST(ExpandWorkloads, AReplicaSetOfAGivenDeploymentIsLeftToTheDeployment) {
  ObjectSet set = Load(std::string(kInflate) + R"(---
apiVersion: apps/v1
kind: ReplicaSet
metadata: {name: inflate-7d9f, ownerReferences: [{apiVersion: apps/v1, kind: Deployment, name: inflate, uid: d-1}]}
spec: {replicas: 3, selector: {matchLabels: {app: inflate}}, template: {metadata: {labels: {app: inflate}}, spec: {containers: []}}}
)");
  ASSERT_TRUE(ExpandWorkloads(set).ok());
  ASSERT_EQ(set.pods.size(), 3u);
  EXPECT_EQ(set.pods[0].object.metadata.name, "inflate-1");
}

// replicas is an int32: two billion pods would exhaust memory long before the solver ran.
TEST(ExpandWorkloads, RefusesMorePodsThanTheLimitBeforeMakingAny) {
  auto set = LoadManifestsFromString(std::string(kInflate) + R"(---
apiVersion: apps/v1
kind: Deployment
metadata: {name: huge}
spec: {replicas: 2000000000, template: {spec: {containers: [{name: c}]}}}
)", "in.yaml");
  ASSERT_TRUE(set.ok()) << set.status().message();
  core::Status st = ExpandWorkloads(*set);
  ASSERT_FALSE(st.ok());
  EXPECT_EQ(st.code(), core::StatusCode::kInvalidArgument);
  EXPECT_EQ(st.message(),
            "in.yaml: document 2 (Deployment huge): spec.replicas: 2000000000 pods would make "
            "2000000003 in all, more than the 1000000 pods an input may stand for");
  EXPECT_TRUE(set->pods.empty());
}

TEST(ExpandWorkloads, TheLimitCountsEveryWorkloadAndNamesTheJobFieldThatCrossesIt) {
  auto set = LoadManifestsFromString(R"(apiVersion: apps/v1
kind: StatefulSet
metadata: {name: db}
spec: {replicas: 600000, template: {spec: {containers: [{name: c}]}}}
---
apiVersion: batch/v1
kind: Job
metadata: {name: train}
spec: {parallelism: 900000, completions: 500000, template: {spec: {containers: [{name: c}]}}}
)", "in.yaml");
  ASSERT_TRUE(set.ok()) << set.status().message();
  EXPECT_EQ(ExpandWorkloads(*set).message(),
            "in.yaml: document 2 (Job train): spec.completions: 500000 pods would make 1100000 in "
            "all, more than the 1000000 pods an input may stand for");
}

}  // namespace
}  // namespace nodesmith::api
