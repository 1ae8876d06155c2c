// Decoders and encoders: every kind decodes its fields, applies the API defaults, and encodes to
// JSON that decodes back to the same object.
#include "api/codec.h"

#include <functional>

#include <gtest/gtest.h>
#include <nlohmann/json.hpp>

#include "api/yaml_json.h"

namespace nodesmith::api {
namespace {

using Json = nlohmann::ordered_json;

Json Yaml(const std::string& text) {
  auto docs = ParseDocuments(text);
  EXPECT_TRUE(docs.ok()) << docs.status().message();
  return docs.ok() && !docs->empty() ? (*docs)[0].value : Json();
}

TEST(DecodePod, ReadsSchedulingFieldsAndDefaultsRequestsFromLimits) {
  Pod pod;
  ASSERT_TRUE(DecodePod(Yaml(R"(apiVersion: v1
kind: Pod
metadata: {name: web, namespace: prod, labels: {app: web}, creationTimestamp: "2025-01-01T00:00:00Z",
  ownerReferences: [{apiVersion: apps/v1, kind: ReplicaSet, name: web-abc, uid: u1, controller: true}]}
spec:
  nodeSelector: {kubernetes.io/arch: amd64}
  tolerations: [{key: nvidia.com/gpu, operator: Exists, effect: NoSchedule, tolerationSeconds: 30}]
  initContainers: [{name: init, restartPolicy: Always, resources: {requests: {cpu: 100m}}}]
  containers:
  - name: app
    resources: {limits: {cpu: "2", memory: 1Gi}, requests: {cpu: 500m}}
    ports: [{containerPort: 80, hostPort: 8080}]
  affinity:
    nodeAffinity:
      requiredDuringSchedulingIgnoredDuringExecution:
        nodeSelectorTerms: [{matchExpressions: [{key: topology.kubernetes.io/zone, operator: In, values: [a]}]}]
      preferredDuringSchedulingIgnoredDuringExecution: [{weight: 10, preference: {matchExpressions: [{key: x, operator: Exists}]}}]
    podAntiAffinity:
      requiredDuringSchedulingIgnoredDuringExecution: [{topologyKey: kubernetes.io/hostname, labelSelector: {matchLabels: {app: web}}}]
  topologySpreadConstraints: [{maxSkew: 2, topologyKey: topology.kubernetes.io/zone, whenUnsatisfiable: ScheduleAnyway}]
  volumes: [{name: data, persistentVolumeClaim: {claimName: data-web}}, {name: scratch, ephemeral: {}}]
  priority: 1000
status: {phase: Pending, startTime: "2025-01-01T00:00:05Z"}
)"), &pod).ok());
  EXPECT_EQ(pod.metadata.Key(), "prod/web");
  EXPECT_EQ(pod.metadata.owner_references[0].kind, "ReplicaSet");
  EXPECT_TRUE(pod.metadata.owner_references[0].controller);
  EXPECT_EQ(pod.spec.node_selector.at("kubernetes.io/arch"), "amd64");
  EXPECT_EQ(pod.spec.tolerations[0].toleration_seconds, 30);
  EXPECT_EQ(pod.spec.init_containers[0].restart_policy, "Always");
  const Container& app = pod.spec.containers[0];
  EXPECT_EQ(app.resources.requests.Get("cpu"), Quantity::MustParse("500m"));     // given
  EXPECT_EQ(app.resources.requests.Get("memory"), Quantity::MustParse("1Gi"));  // from the limit
  EXPECT_EQ(app.ports[0].host_port, 8080);
  ASSERT_TRUE(pod.spec.affinity->node_affinity->required.has_value());
  EXPECT_EQ(pod.spec.affinity->node_affinity->preferred[0].weight, 10);
  EXPECT_EQ(pod.spec.affinity->pod_anti_affinity->required[0].topology_key, "kubernetes.io/hostname");
  EXPECT_EQ(pod.spec.topology_spread_constraints[0].when_unsatisfiable, "ScheduleAnyway");
  EXPECT_EQ(pod.spec.volumes[0].pvc_claim_name, "data-web");
  EXPECT_TRUE(pod.spec.volumes[1].ephemeral);
  EXPECT_EQ(pod.spec.priority, 1000);
  EXPECT_EQ(pod.status.phase, "Pending");
  ASSERT_TRUE(pod.status.start_time.has_value());
}

TEST(DecodeNodePool, ReadsEveryField) {
  NodePool p;
  ASSERT_TRUE(DecodeNodePool(Yaml(R"(apiVersion: karpenter.sh/v1
kind: NodePool
metadata: {name: gpu}
spec:
  template:
    metadata: {labels: {team: ml}, annotations: {a: b}}
    spec:
      nodeClassRef: {group: karpenter.k8s.aws, kind: EC2NodeClass, name: default}
      requirements: [{key: karpenter.k8s.aws/instance-family, operator: In, values: [g5, g6], minValues: 2}]
      taints: [{key: nvidia.com/gpu, value: "true", effect: NoSchedule}]
      startupTaints: [{key: example.com/init, effect: NoExecute}]
      expireAfter: Never
      terminationGracePeriod: 1h
  disruption:
    consolidationPolicy: WhenEmpty
    consolidateAfter: 5m
    budgets: [{nodes: 0, schedule: "0 9 * * mon-fri", duration: 8h, reasons: [Drifted]}, {nodes: "20%"}]
  limits: {cpu: 100, nvidia.com/gpu: 8}
  weight: 50
)"), &p).ok());
  EXPECT_EQ(p.template_.labels.at("team"), "ml");
  EXPECT_EQ(p.template_.spec.requirements[0].min_values, 2);
  EXPECT_EQ(p.template_.spec.taints[0], (Taint{"nvidia.com/gpu", "true", "NoSchedule"}));
  EXPECT_EQ(p.template_.spec.startup_taints[0].effect, "NoExecute");
  EXPECT_TRUE(p.template_.spec.expire_after.never());
  EXPECT_EQ(p.template_.spec.termination_grace_period, std::chrono::hours(1));
  EXPECT_EQ(p.disruption.consolidation_policy, "WhenEmpty");
  EXPECT_EQ(p.disruption.consolidate_after.value, std::chrono::minutes(5));
  ASSERT_EQ(p.disruption.budgets.size(), 2u);
  EXPECT_EQ(p.disruption.budgets[0].nodes, "0");
  EXPECT_EQ(p.disruption.budgets[0].schedule, "0 9 * * mon-fri");
  EXPECT_EQ(p.disruption.budgets[0].duration, std::chrono::hours(8));
  EXPECT_EQ(p.disruption.budgets[0].reasons, std::vector<std::string>{"Drifted"});
  EXPECT_EQ(p.limits.Get("nvidia.com/gpu"), Quantity::MustParse("8"));
  EXPECT_EQ(p.weight, 50);
}

TEST(DecodeNodePool, RefusesDurationsTheCrdPatternRejects) {
  NodePool p;
  core::Status st = DecodeNodePool(Yaml("spec: {disruption: {consolidateAfter: 1.5h}}"), &p);
  EXPECT_EQ(st.message(), "spec.disruption.consolidateAfter: \"1.5h\" is not a valid duration (must match "
                          "^(([0-9]+(s|m|h))+|Never)$)");
}

TEST(DecodeNodePool, ReadsAndWritesTheStatusKarpentersControllersKeep) {
  NodePool p;
  ASSERT_TRUE(DecodeNodePool(Yaml(R"(metadata: {name: default, generation: 2}
spec: {template: {spec: {nodeClassRef: {group: karpenter.k8s.aws, kind: EC2NodeClass, name: default}}}}
status:
  resources: {cpu: "12", memory: 48Gi, pods: "330", ephemeral-storage: "0", nodes: "3"}
  nodes: 3
  conditions:
  - {type: ValidationSucceeded, status: "True", reason: ValidationSucceeded, observedGeneration: 2,
     lastTransitionTime: "2025-01-01T00:00:00Z"}
)"), &p).ok());
  EXPECT_EQ(p.resources.Get("cpu"), Quantity::MustParse("12"));
  EXPECT_EQ(p.resources.Get("memory"), Quantity::MustParse("48Gi"));
  EXPECT_EQ(p.resources.Get("nodes"), Quantity::MustParse("3"));
  EXPECT_TRUE(p.resources.Has("ephemeral-storage"));
  EXPECT_EQ(p.nodes, 3);
  ASSERT_EQ(p.conditions.size(), 1u);
  EXPECT_EQ(p.conditions[0].observed_generation, 2);

  Json status = EncodeNodePool(p)["status"];
  EXPECT_EQ(status["nodes"], 3);
  EXPECT_EQ(status["resources"]["cpu"], "12");
  EXPECT_EQ(status["resources"]["ephemeral-storage"], "0");
  EXPECT_EQ(status["conditions"][0]["observedGeneration"], 2);
}

TEST(EncodeNodePool, WritesNodesOnceCountedEvenWhenZero) {
  NodePool p;
  p.metadata.name = "default";
  EXPECT_FALSE(EncodeNodePool(p).contains("status")) << "never counted: no status";
  p.nodes = 0;
  EXPECT_EQ(EncodeNodePool(p)["status"]["nodes"], 0);
}

TEST(DecodeEC2NodeClass, ReadsItsConditions) {
  EC2NodeClass nc;
  ASSERT_TRUE(DecodeEC2NodeClass(Yaml(R"(metadata: {name: default}
spec: {amiSelectorTerms: [{alias: al2023@latest}], role: R}
status:
  conditions: [{type: Ready, status: "False", reason: AMINotFound, message: no AMI matched}]
)"), &nc).ok());
  ASSERT_EQ(nc.conditions.size(), 1u);
  EXPECT_EQ(nc.conditions[0].status, "False");
  EXPECT_EQ(nc.conditions[0].reason, "AMINotFound");
  EXPECT_EQ(EncodeEC2NodeClass(nc)["status"]["conditions"][0]["message"], "no AMI matched");
}

TEST(DecodeEC2NodeClass, ReadsAndWritesWhatItsSelectorsResolvedTo) {
  EC2NodeClass nc;
  ASSERT_TRUE(DecodeEC2NodeClass(Yaml(R"(metadata: {name: default}
spec: {amiSelectorTerms: [{alias: al2023@latest}], role: R}
status:
  subnets: [{id: subnet-1, zone: us-west-2a, zoneID: usw2-az1}]
  securityGroups: [{id: sg-1, name: nodes}]
  amis:
  - id: ami-1
    name: al2023-ami
    requirements: [{key: kubernetes.io/arch, operator: In, values: [amd64]}]
  instanceProfile: demo_123
)"), &nc).ok());
  ASSERT_EQ(nc.status_subnets.size(), 1u);
  EXPECT_EQ(nc.status_subnets[0].zone_id, "usw2-az1");
  ASSERT_EQ(nc.status_amis.size(), 1u);
  EXPECT_EQ(nc.status_amis[0].requirements[0].values[0], "amd64");
  EXPECT_FALSE(nc.status_amis[0].deprecated);
  const auto status = EncodeEC2NodeClass(nc)["status"];
  EXPECT_EQ(status["subnets"][0]["zoneID"], "usw2-az1");
  EXPECT_EQ(status["securityGroups"][0]["name"], "nodes");
  EXPECT_EQ(status["amis"][0]["requirements"][0]["key"], "kubernetes.io/arch");
  EXPECT_FALSE(status["amis"][0].contains("deprecated"));
  EXPECT_EQ(status["instanceProfile"], "demo_123");
}

TEST(DecodeEC2NodeClass, DerivesTheFamilyFromTheAliasAndKeepsDefaults) {
  EC2NodeClass nc;
  ASSERT_TRUE(DecodeEC2NodeClass(Yaml(R"(metadata: {name: default}
spec:
  amiSelectorTerms: [{alias: bottlerocket@latest}]
  role: R
  kubelet: {maxPods: 110, systemReserved: {cpu: 100m}, evictionHard: {memory.available: 5%}}
  blockDeviceMappings: [{deviceName: /dev/xvda, rootVolume: true, ebs: {volumeSize: 100Gi, volumeType: gp3}}]
)"), &nc).ok());
  EXPECT_EQ(nc.ami_family, "Bottlerocket");
  EXPECT_EQ(nc.kubelet->max_pods, 110);
  EXPECT_EQ(nc.kubelet->eviction_hard.at("memory.available"), "5%");
  EXPECT_EQ(nc.block_device_mappings[0].ebs.volume_size, "100Gi");
  EXPECT_EQ(nc.metadata_options.http_tokens, "required");
  EXPECT_FALSE(EncodeEC2NodeClass(nc)["spec"].contains("amiFamily"));  // implied by the alias
}

TEST(DecodeInstanceTypeCatalog, ReadsTheContractExample) {
  InstanceTypeCatalog c;
  ASSERT_TRUE(DecodeInstanceTypeCatalog(Yaml(R"(apiVersion: nodesmith.dev/v1alpha1
kind: InstanceTypeCatalog
metadata: {name: example}
spec:
  wellKnownLabels: [size, special]
  defaults:
    overhead: {kubeReserved: {cpu: 100m, memory: 10Mi}, systemReserved: {}, evictionThreshold: {}}
    offerings:
    - {zone: test-zone-1, capacityType: spot, price: 1.0}
  instanceTypes:
  - name: default-instance-type
    capacity: {cpu: "4", memory: 4Gi, pods: "5"}
    price: 0.8294967296
    labels: {kubernetes.io/arch: amd64, size: small}
    requirements:
    - {key: kubernetes.io/os, operator: In, values: [linux, windows]}
    - {key: special, operator: DoesNotExist}
    offerings:
    - {zone: test-zone-1, capacityType: on-demand, price: 0.83, available: true}
  - name: other
    capacity: {cpu: "2"}
)"), &c).ok());
  EXPECT_EQ(c.well_known_labels, (std::vector<std::string>{"size", "special"}));
  EXPECT_EQ(c.default_overhead->kube_reserved.Get("cpu"), Quantity::MustParse("100m"));
  EXPECT_EQ(c.default_offerings[0].price, 1.0);
  const CatalogInstanceType& t = c.instance_types[0];
  EXPECT_EQ(t.price, 0.8294967296);
  EXPECT_EQ(t.requirements[1].op, "DoesNotExist");
  ASSERT_TRUE(t.offerings.has_value());
  EXPECT_EQ((*t.offerings)[0].capacity_type, "on-demand");
  EXPECT_FALSE(c.instance_types[1].offerings.has_value());  // absent => the defaults apply
}

TEST(DecodeReplicatedWorkload, DefaultsReplicasToOne) {
  ReplicatedWorkload w;
  ASSERT_TRUE(DecodeReplicatedWorkload(Yaml("kind: StatefulSet\nmetadata: {name: db}\nspec: {}\n"), &w).ok());
  EXPECT_EQ(w.kind, "StatefulSet");
  EXPECT_EQ(w.replicas, 1);
}

TEST(DecodeStorageClass, ReadsTheDefaultClassAnnotation) {
  StorageClass sc;
  ASSERT_TRUE(DecodeStorageClass(Yaml(R"(metadata:
  name: gp3
  annotations: {storageclass.kubernetes.io/is-default-class: "true"}
provisioner: ebs.csi.aws.com
volumeBindingMode: WaitForFirstConsumer
allowedTopologies: [{matchLabelExpressions: [{key: topology.kubernetes.io/zone, values: [us-west-2a]}]}]
)"), &sc).ok());
  EXPECT_TRUE(sc.is_default);
  EXPECT_EQ(sc.allowed_topologies[0].match_label_expressions[0].values[0], "us-west-2a");
}

TEST(DecodePodDisruptionBudget, ReadsIntOrString) {
  PodDisruptionBudget pdb;
  ASSERT_TRUE(DecodePodDisruptionBudget(Yaml("metadata: {name: p}\nspec: {minAvailable: 2, maxUnavailable: \"25%\"}"), &pdb).ok());
  EXPECT_FALSE(pdb.min_available->is_string);
  EXPECT_EQ(pdb.min_available->int_value, 2);
  EXPECT_EQ(pdb.max_unavailable->String(), "25%");
}

// Round trip: decode -> encode -> decode -> encode gives the same JSON for every kind.
struct RoundTrip {
  const char* name;
  std::string yaml;
  std::function<Json(const Json&)> cycle;  // decode then encode
};

template <typename T>
std::function<Json(const Json&)> Cycle(core::Status (*decode)(const JsonView&, T*), Json (*encode)(const T&)) {
  return [decode, encode](const Json& in) {
    T v{};
    core::Status st = decode(in, &v);
    EXPECT_TRUE(st.ok()) << st.message();
    return encode(v);
  };
}

class EncodeDecode : public ::testing::TestWithParam<RoundTrip> {};

TEST_P(EncodeDecode, IsStable) {
  Json once = GetParam().cycle(Yaml(GetParam().yaml));
  Json twice = GetParam().cycle(once);
  EXPECT_EQ(once, twice) << once.dump(2);
  // And through YAML text.
  EXPECT_EQ(GetParam().cycle(Yaml(EmitYaml(once))), once);
}

INSTANTIATE_TEST_SUITE_P(
    Kinds, EncodeDecode,
    ::testing::Values(
        RoundTrip{"Pod",
                  "metadata: {name: p, namespace: default}\nspec: {containers: [{name: c, resources: {requests: {cpu: "
                  "250m}}}], tolerations: [{operator: Exists}], priority: 5}\nstatus: {phase: Pending}",
                  Cycle<Pod>(DecodePod, EncodePod)},
        RoundTrip{"Node",
                  "metadata: {name: n, labels: {a: b}}\nspec: {providerID: 'aws:///z/i-1', taints: [{key: k, effect: "
                  "NoSchedule}]}\nstatus: {allocatable: {cpu: 3920m, pods: 58}, conditions: [{type: Ready, status: "
                  "'True'}]}",
                  Cycle<Node>(DecodeNode, EncodeNode)},
        RoundTrip{"PersistentVolumeClaim", "metadata: {name: c}\nspec: {storageClassName: gp3, resources: {requests: {storage: 10Gi}}}",
                  Cycle<PersistentVolumeClaim>(DecodePersistentVolumeClaim, EncodePersistentVolumeClaim)},
        RoundTrip{"PersistentVolume",
                  "metadata: {name: pv}\nspec: {capacity: {storage: 10Gi}, nodeAffinity: {required: {nodeSelectorTerms: "
                  "[{matchExpressions: [{key: topology.kubernetes.io/zone, operator: In, values: [a]}]}]}}, claimRef: "
                  "{namespace: default, name: c}}",
                  Cycle<PersistentVolume>(DecodePersistentVolume, EncodePersistentVolume)},
        RoundTrip{"StorageClass", "metadata: {name: sc}\nprovisioner: x\nvolumeBindingMode: WaitForFirstConsumer",
                  Cycle<StorageClass>(DecodeStorageClass, EncodeStorageClass)},
        RoundTrip{"Deployment",
                  "kind: Deployment\nmetadata: {name: d}\nspec: {replicas: 3, selector: {matchLabels: {app: d}}, "
                  "template: {metadata: {labels: {app: d}}, spec: {containers: [{name: c}]}}}",
                  Cycle<ReplicatedWorkload>(DecodeReplicatedWorkload, EncodeReplicatedWorkload)},
        RoundTrip{"DaemonSet", "metadata: {name: ds}\nspec: {template: {spec: {containers: [{name: c}]}}}",
                  Cycle<DaemonSet>(DecodeDaemonSet, EncodeDaemonSet)},
        RoundTrip{"Job", "metadata: {name: j}\nspec: {parallelism: 4, completions: 8, template: {spec: {containers: []}}}",
                  Cycle<Job>(DecodeJob, EncodeJob)},
        RoundTrip{"PodDisruptionBudget", "metadata: {name: p}\nspec: {maxUnavailable: 1, selector: {matchExpressions: "
                                         "[{key: app, operator: In, values: [a]}]}}",
                  Cycle<PodDisruptionBudget>(DecodePodDisruptionBudget, EncodePodDisruptionBudget)},
        RoundTrip{"NodePool",
                  "metadata: {name: p}\nspec: {template: {spec: {nodeClassRef: {group: g, kind: k, name: n}, "
                  "requirements: [{key: a, operator: In, values: [b], minValues: 1}], terminationGracePeriod: 90s}}, "
                  "disruption: {budgets: [{nodes: '0', schedule: '@daily', duration: 10m}]}, limits: {cpu: '1000'}, weight: 3}\n"
                  "status: {resources: {cpu: 4, memory: 16Gi, nodes: 1}, nodes: 1, conditions: [{type: Ready, status: "
                  "Unknown, reason: AwaitingReconciliation, observedGeneration: 1, lastTransitionTime: "
                  "'2025-01-01T00:00:00Z'}]}",
                  Cycle<NodePool>(DecodeNodePool, EncodeNodePool)},
        RoundTrip{"NodeClaim",
                  "metadata: {name: c, labels: {karpenter.sh/nodepool: p}, creationTimestamp: '2025-01-01T00:00:00Z'}\n"
                  "spec: {nodeClassRef: {group: g, kind: k, name: n}, requirements: [], resources: {requests: {cpu: 1}}}\n"
                  "status: {providerID: p, nodeName: n, lastPodEventTime: '2025-01-01T00:10:00Z', conditions: "
                  "[{type: Initialized, status: 'True', lastTransitionTime: '2025-01-01T00:01:00Z'}]}",
                  Cycle<NodeClaim>(DecodeNodeClaim, EncodeNodeClaim)},
        RoundTrip{"EC2NodeClass",
                  "metadata: {name: nc}\nspec: {amiFamily: Custom, amiSelectorTerms: [{id: ami-1}], role: r, "
                  "subnetSelectorTerms: [{tags: {a: b}}], securityGroupSelectorTerms: [{name: sg}], userData: x, "
                  "tags: {t: v}, kubelet: {podsPerCore: 2, clusterDNS: [10.0.0.10]}, detailedMonitoring: true}\n"
                  "status: {conditions: [{type: Ready, status: 'True', reason: Ready}]}",
                  Cycle<EC2NodeClass>(DecodeEC2NodeClass, EncodeEC2NodeClass)},
        RoundTrip{"InstanceTypeCatalog",
                  "metadata: {name: c}\nspec: {defaults: {offerings: [{zone: z, capacityType: spot}]}, instanceTypes: "
                  "[{name: t, capacity: {cpu: 4}, price: 0.5, offerings: [{zone: z, capacityType: on-demand, "
                  "available: false}]}]}",
                  Cycle<InstanceTypeCatalog>(DecodeInstanceTypeCatalog, EncodeInstanceTypeCatalog)}),
    [](const ::testing::TestParamInfo<RoundTrip>& info) { return info.param.name; });

}  // namespace
}  // namespace nodesmith::api
