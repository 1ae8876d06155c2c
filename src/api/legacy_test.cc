// Legacy conversion: each rule of the v1alpha5 -> v1beta1 -> v1 migration, checked on the
// converted documents and on the objects they decode to.
#include "api/legacy.h"

#include <gmock/gmock.h>
#include <gtest/gtest.h>
#include <nlohmann/json.hpp>

#include "api/manifest.h"

namespace nodesmith::api {
namespace {

using Json = nlohmann::ordered_json;

std::vector<Json> Convert(const std::string& text, std::vector<std::string>* warnings = nullptr) {
  std::vector<std::string> local;
  auto docs = ReadDocumentsFromString(text, "old.yaml", warnings ? warnings : &local);
  EXPECT_TRUE(docs.ok()) << docs.status().message();
  std::vector<Json> out;
  if (docs.ok()) {
    for (auto& d : *docs) out.push_back(d.object);
  }
  return out;
}

std::string ConvertError(const std::string& text) {
  std::vector<std::string> warnings;
  auto docs = ReadDocumentsFromString(text, "old.yaml", &warnings);
  return docs.ok() ? "<converted>" : docs.status().message();
}

constexpr const char* kTemplate = R"(
---
apiVersion: karpenter.k8s.aws/v1alpha1
kind: AWSNodeTemplate
metadata: {name: default}
spec:
  instanceProfile: KarpenterNodeInstanceProfile-c
  subnetSelector: {karpenter.sh/discovery: c}
  securityGroupSelector: {karpenter.sh/discovery: c}
)";

std::string Provisioner(const std::string& spec) {
  return "apiVersion: karpenter.sh/v1alpha5\nkind: Provisioner\nmetadata: {name: default}\nspec:\n" + spec;
}

TEST(LegacyProvisioner, BecomesANodePoolReferringToItsNodeClass) {
  auto docs = Convert(Provisioner("  providerRef: {name: tmpl}\n  requirements:\n"
                                  "  - {key: node.k8s.aws/capacity-type, operator: In, values: [spot]}\n"
                                  "  limits: {resources: {cpu: 1000}}\n  weight: 5\n"
                                  "  taints: [{key: example.com/special-taint, effect: NoSchedule}]\n"
                                  "  labels: {team: a}\n"));
  ASSERT_EQ(docs.size(), 1u);
  const Json& p = docs[0];
  EXPECT_EQ(p["apiVersion"], "karpenter.sh/v1");
  EXPECT_EQ(p["kind"], "NodePool");
  const Json& t = p["spec"]["template"];
  EXPECT_EQ(t["spec"]["nodeClassRef"], Json::parse(R"({"group":"karpenter.k8s.aws","kind":"EC2NodeClass","name":"tmpl"})"));
  EXPECT_EQ(t["spec"]["requirements"][0]["key"], "karpenter.sh/capacity-type");
  EXPECT_EQ(t["spec"]["taints"][0]["key"], "example.com/special-taint");
  EXPECT_EQ(t["metadata"]["labels"]["team"], "a");
  EXPECT_EQ(p["spec"]["limits"]["cpu"], 1000);
  EXPECT_EQ(p["spec"]["weight"], 5);
}

TEST(LegacyProvisioner, TtlSecondsAfterEmptyBecomesWhenEmptyAfterThatLong) {
  auto docs = Convert(Provisioner("  providerRef: {name: default}\n  ttlSecondsAfterEmpty: 30\n"));
  EXPECT_EQ(docs[0]["spec"]["disruption"], Json::parse(R"({"consolidationPolicy":"WhenEmpty","consolidateAfter":"30s"})"));
}

TEST(LegacyProvisioner, ConsolidationEnabledBecomesWhenEmptyOrUnderutilized) {
  auto docs = Convert(Provisioner("  providerRef: {name: default}\n  consolidation: {enabled: true}\n"));
  EXPECT_EQ(docs[0]["spec"]["disruption"],
            Json::parse(R"({"consolidationPolicy":"WhenEmptyOrUnderutilized","consolidateAfter":"0s"})"));
}

TEST(LegacyProvisioner, ConsolidationEnabledOfAnotherTypeIsAnErrorNamingItAndNullIsUnset) {
  for (const char* value : {"\"yes\"", "1", "[true]"}) {
    EXPECT_THAT(ConvertError(Provisioner(std::string("  providerRef: {name: default}\n  consolidation: {enabled: ") +
                                         value + "}\n")),
                ::testing::HasSubstr("spec.consolidation.enabled: expected true or false, got"))
        << value;
  }
  auto docs = Convert(Provisioner("  providerRef: {name: default}\n  consolidation: {enabled: null}\n"));
  ASSERT_FALSE(docs.empty());
  EXPECT_EQ(docs[0]["spec"]["disruption"], Json::parse(R"({"consolidationPolicy":"WhenEmpty","consolidateAfter":"Never"})"));
}

TEST(LegacyProvisioner, RequirementsOfAnotherTypeAreAnErrorNotDropped) {
  EXPECT_EQ(ConvertError(Provisioner("  providerRef: {name: default}\n  requirements: {key: kubernetes.io/arch}\n")),
            "old.yaml: document 1 (Provisioner default): spec.requirements: expected a list, got a mapping");
  EXPECT_THAT(ConvertError(Provisioner("  providerRef: {name: default}\n  requirements: \"x\"\n")),
              ::testing::HasSubstr("spec.requirements: expected a list, got the string \"x\""));
  // null is how kubectl prints a field nobody set.
  EXPECT_EQ(ConvertError(Provisioner("  providerRef: {name: default}\n  requirements: null\n")), "<converted>");
}

TEST(LegacyProvisioner, WithoutEitherNodesAreNeverConsolidated) {
  auto docs = Convert(Provisioner("  providerRef: {name: default}\n"));
  EXPECT_EQ(docs[0]["spec"]["disruption"], Json::parse(R"({"consolidationPolicy":"WhenEmpty","consolidateAfter":"Never"})"));
}

TEST(LegacyProvisioner, TtlSecondsUntilExpiredBecomesExpireAfterAndAbsentMeansNever) {
  auto with = Convert(Provisioner("  providerRef: {name: default}\n  ttlSecondsUntilExpired: 2592000\n"));
  EXPECT_EQ(with[0]["spec"]["template"]["spec"]["expireAfter"], "2592000s");
  auto without = Convert(Provisioner("  providerRef: {name: default}\n"));
  EXPECT_EQ(without[0]["spec"]["template"]["spec"]["expireAfter"], "Never");
}

TEST(LegacyProvisioner, GetsTheDefaultsTheV1alpha5WebhookAdded) {
  auto docs = Convert(Provisioner("  providerRef: {name: default}\n"
                                  "  requirements: [{key: kubernetes.io/arch, operator: In, values: [arm64]}]\n"));
  const Json& reqs = docs[0]["spec"]["template"]["spec"]["requirements"];
  ASSERT_EQ(reqs.size(), 2u);
  EXPECT_EQ(reqs[0]["values"], Json::array({"arm64"}));
  EXPECT_EQ(reqs[1], Json::parse(R"({"key":"karpenter.sh/capacity-type","operator":"In","values":["on-demand"]})"));
}

TEST(LegacyProvisioner, InlineProviderBecomesAnEC2NodeClassNamedAfterIt) {
  auto docs = Convert(Provisioner("  provider:\n    instanceProfile: KarpenterNodeInstanceProfile-c\n"
                                  "    subnetSelector: {aws-ids: 'subnet-1, subnet-2'}\n"
                                  "    securityGroupSelector: {karpenter.sh/discovery: c}\n"));
  ASSERT_EQ(docs.size(), 2u);
  EXPECT_EQ(docs[0]["spec"]["template"]["spec"]["nodeClassRef"]["name"], "default");
  const Json& nc = docs[1];
  EXPECT_EQ(nc["apiVersion"], "karpenter.k8s.aws/v1");
  EXPECT_EQ(nc["kind"], "EC2NodeClass");
  EXPECT_EQ(nc["metadata"]["name"], "default");
  EXPECT_EQ(nc["spec"]["subnetSelectorTerms"], Json::parse(R"([{"id":"subnet-1"},{"id":"subnet-2"}])"));
  EXPECT_EQ(nc["spec"]["securityGroupSelectorTerms"], Json::parse(R"([{"tags":{"karpenter.sh/discovery":"c"}}])"));
  EXPECT_EQ(nc["spec"]["amiSelectorTerms"], Json::parse(R"([{"alias":"al2@latest"}])"));
  EXPECT_EQ(nc["spec"]["instanceProfile"], "KarpenterNodeInstanceProfile-c");
}

TEST(LegacyProvisioner, AClusterOnlyProviderSelectsByTheClusterTag) {
  std::vector<std::string> warnings;
  auto docs = Convert(Provisioner("  requirements: [{key: node.k8s.aws/capacity-type, operator: In, values: [spot]}]\n"
                                  "  provider:\n    instanceProfile: KarpenterNodeInstanceProfile-c\n"
                                  "    cluster: {name: c, endpoint: https://example}\n  ttlSecondsAfterEmpty: 30\n"),
                      &warnings);
  ASSERT_EQ(docs.size(), 2u);
  EXPECT_EQ(docs[1]["spec"]["subnetSelectorTerms"], Json::parse(R"([{"tags":{"kubernetes.io/cluster/c":"*"}}])"));
  EXPECT_EQ(docs[1]["spec"]["securityGroupSelectorTerms"], Json::parse(R"([{"tags":{"kubernetes.io/cluster/c":"*"}}])"));
  EXPECT_EQ(warnings.size(), 3u);  // two selectors assumed, cluster dropped
}

TEST(LegacyProvisioner, KubeletConfigurationMovesToTheNodeClass) {
  auto docs = Convert(Provisioner("  providerRef: {name: default}\n  kubeletConfiguration: {maxPods: 20}\n") + kTemplate);
  ASSERT_EQ(docs.size(), 2u);
  EXPECT_EQ(docs[1]["spec"]["kubelet"], Json::parse(R"({"maxPods":20})"));
}

TEST(LegacyProvisioner, DisagreeingKubeletSettingsGetTheirOwnNodeClassCopy) {
  std::string second = "---\napiVersion: karpenter.sh/v1alpha5\nkind: Provisioner\nmetadata: {name: big}\nspec:\n"
                       "  providerRef: {name: default}\n  kubeletConfiguration: {maxPods: 110}\n";
  std::vector<std::string> warnings;
  auto docs = Convert(Provisioner("  providerRef: {name: default}\n  kubeletConfiguration: {maxPods: 20}\n") + second +
                          kTemplate,
                      &warnings);
  ASSERT_EQ(docs.size(), 4u);
  EXPECT_EQ(docs[1]["spec"]["template"]["spec"]["nodeClassRef"]["name"], "default-big");
  EXPECT_EQ(docs[2]["spec"]["kubelet"]["maxPods"], 20);
  EXPECT_EQ(docs[3]["metadata"]["name"], "default-big");
  EXPECT_EQ(docs[3]["spec"]["kubelet"]["maxPods"], 110);
  ASSERT_EQ(warnings.size(), 1u);
}

TEST(LegacyAWSNodeTemplate, AmiFamilyBecomesAnAlias) {
  auto docs = Convert(std::string(kTemplate).replace(std::string(kTemplate).find("  instanceProfile"), 0,
                                                     "  amiFamily: Bottlerocket\n"));
  EXPECT_EQ(docs[0]["spec"]["amiSelectorTerms"], Json::parse(R"([{"alias":"bottlerocket@latest"}])"));
}

TEST(LegacyAWSNodeTemplate, AmiSelectorIdsBecomeIdTermsAndKeepTheFamily) {
  std::string t = std::string(kTemplate) + "  amiSelector: {aws-ids: 'ami-1,ami-2'}\n";
  auto docs = Convert(t);
  EXPECT_EQ(docs[0]["spec"]["amiSelectorTerms"], Json::parse(R"([{"id":"ami-1"},{"id":"ami-2"}])"));
  EXPECT_EQ(docs[0]["spec"]["amiFamily"], "AL2");
}

TEST(LegacyAWSNodeTemplate, UnsupportedSettingsAreErrorsNamingTheField) {
  EXPECT_EQ(ConvertError(std::string(kTemplate) + "  amiFamily: Ubuntu\n"),
            "old.yaml: document 1 (AWSNodeTemplate default): spec.amiFamily: amiFamily Ubuntu is not supported by "
            "karpenter.k8s.aws/v1; choose AMIs with amiSelectorTerms and amiFamily AL2 or Custom");
  EXPECT_EQ(ConvertError(std::string(kTemplate) + "  launchTemplate: my-template\n"),
            "old.yaml: document 1 (AWSNodeTemplate default): spec.launchTemplate: launch templates are not supported "
            "by karpenter.k8s.aws/v1; express the settings in the EC2NodeClass");
}

TEST(LegacyV1beta1, NodePoolMovesExpireAfterAndRenamesThePolicy) {
  auto docs = Convert(R"(apiVersion: karpenter.sh/v1beta1
kind: NodePool
metadata: {name: default}
spec:
  template:
    spec:
      nodeClassRef: {apiVersion: karpenter.k8s.aws/v1beta1, kind: EC2NodeClass, name: default}
      requirements: [{key: karpenter.sh/capacity-type, operator: In, values: [spot]}]
      kubelet: {maxPods: 50}
  disruption: {consolidationPolicy: WhenUnderutilized, expireAfter: 168h}
---
apiVersion: karpenter.k8s.aws/v1beta1
kind: EC2NodeClass
metadata: {name: default}
spec:
  amiFamily: AL2023
  role: KarpenterNodeRole-c
  subnetSelectorTerms: [{tags: {karpenter.sh/discovery: c}}]
  securityGroupSelectorTerms: [{tags: {karpenter.sh/discovery: c}}]
)");
  ASSERT_EQ(docs.size(), 2u);
  const Json& spec = docs[0]["spec"];
  EXPECT_EQ(docs[0]["apiVersion"], "karpenter.sh/v1");
  EXPECT_EQ(spec["template"]["spec"]["expireAfter"], "168h");
  EXPECT_FALSE(spec["disruption"].contains("expireAfter"));
  EXPECT_EQ(spec["disruption"]["consolidationPolicy"], "WhenEmptyOrUnderutilized");
  EXPECT_EQ(spec["template"]["spec"]["nodeClassRef"],
            Json::parse(R"({"group":"karpenter.k8s.aws","kind":"EC2NodeClass","name":"default"})"));
  EXPECT_FALSE(spec["template"]["spec"].contains("kubelet"));
  EXPECT_EQ(docs[1]["apiVersion"], "karpenter.k8s.aws/v1");
  EXPECT_EQ(docs[1]["spec"]["amiSelectorTerms"], Json::parse(R"([{"alias":"al2023@latest"}])"));
  EXPECT_EQ(docs[1]["spec"]["kubelet"]["maxPods"], 50);
}

TEST(LegacyMachine, BecomesANodeClaim) {
  auto docs = Convert(R"(apiVersion: karpenter.sh/v1alpha5
kind: Machine
metadata:
  name: default-abcde
  labels: {karpenter.sh/provisioner-name: default}
spec:
  machineTemplateRef: {name: default}
  requirements: [{key: node.k8s.aws/capacity-type, operator: In, values: [spot]}]
status:
  providerID: aws:///us-west-2a/i-1
  conditions: [{type: MachineLaunched, status: "True"}]
)");
  const Json& c = docs[0];
  EXPECT_EQ(c["kind"], "NodeClaim");
  EXPECT_EQ(c["metadata"]["labels"], Json::parse(R"({"karpenter.sh/nodepool":"default"})"));
  EXPECT_EQ(c["spec"]["nodeClassRef"]["group"], "karpenter.k8s.aws");
  EXPECT_EQ(c["spec"]["requirements"][0]["key"], "karpenter.sh/capacity-type");
  EXPECT_EQ(c["status"]["conditions"][0]["type"], "Launched");
}

TEST(LegacyV1beta1, NodeClaimRefersToItsNodeClassByGroup) {
  auto docs = Convert(R"(apiVersion: karpenter.sh/v1beta1
kind: NodeClaim
metadata: {name: default-x, labels: {karpenter.sh/nodepool: default}}
spec:
  nodeClassRef: {apiVersion: karpenter.k8s.aws/v1beta1, kind: EC2NodeClass, name: default}
  requirements: [{key: karpenter.sh/capacity-type, operator: In, values: [spot]}]
  kubelet: {maxPods: 10}
)");
  EXPECT_EQ(docs[0]["apiVersion"], "karpenter.sh/v1");
  EXPECT_EQ(docs[0]["spec"]["nodeClassRef"],
            Json::parse(R"({"group":"karpenter.k8s.aws","kind":"EC2NodeClass","name":"default"})"));
  EXPECT_FALSE(docs[0]["spec"].contains("kubelet"));
}

TEST(LegacyAnnotations, DoNotEvictAndDoNotConsolidateBecomeDoNotDisrupt) {
  auto set = LoadManifestsFromString(R"(apiVersion: v1
kind: Pod
metadata: {name: db-0, annotations: {karpenter.sh/do-not-evict: "true"}}
spec:
  nodeSelector: {karpenter.sh/provisioner-name: default}
  containers: []
---
apiVersion: v1
kind: Node
metadata: {name: n1, annotations: {karpenter.sh/do-not-consolidate: "true"}, labels: {karpenter.sh/provisioner-name: default}}
)");
  ASSERT_TRUE(set.ok()) << set.status().message();
  const Pod& pod = set->pods[0].object;
  EXPECT_EQ(pod.metadata.annotations, (std::map<std::string, std::string>{{"karpenter.sh/do-not-disrupt", "true"}}));
  EXPECT_EQ(pod.spec.node_selector, (Labels{{"karpenter.sh/nodepool", "default"}}));
  const Node& node = set->nodes[0].object;
  EXPECT_EQ(node.metadata.annotations, (std::map<std::string, std::string>{{"karpenter.sh/do-not-disrupt", "true"}}));
  EXPECT_EQ(node.metadata.labels, (Labels{{"karpenter.sh/nodepool", "default"}}));
}

TEST(LegacyErrors, NameTheLegacyObjectAndWhatItBecame) {
  auto set = LoadManifestsFromString(Provisioner("  providerRef: {name: default}\n  weight: 0\n"), "old.yaml");
  ASSERT_FALSE(set.ok());
  EXPECT_EQ(set.status().message(),
            "old.yaml: document 1 (Provisioner default) as karpenter.sh/v1 NodePool: spec.weight: must be between 1 "
            "and 100, got 0");
}

}  // namespace
}  // namespace nodesmith::api
