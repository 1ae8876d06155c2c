// Validation rules of Karpenter's v1 CRDs, one row per rule with its exact message.
#include "api/validation.h"

#include <functional>

#include <gtest/gtest.h>

#include "api/label_domains.h"

namespace nodesmith::api {
namespace {

NodePool ValidPool() {
  NodePool p;
  p.metadata.name = "default";
  p.template_.spec.node_class_ref = {"karpenter.k8s.aws", "EC2NodeClass", "default"};
  p.template_.spec.requirements = {{"karpenter.sh/capacity-type", "In", {"spot", "on-demand"}, 2},
                                   {"karpenter.k8s.aws/instance-generation", "Gt", {"2"}, std::nullopt}};
  return p;
}

struct PoolCase {
  const char* name;
  std::function<void(NodePool&)> mutate;
  std::string error;  // "" = valid
};

class NodePoolRule : public ::testing::TestWithParam<PoolCase> {};

TEST_P(NodePoolRule, GivesItsMessage) {
  NodePool p = ValidPool();
  GetParam().mutate(p);
  core::Status st = ValidateNodePool(p);
  EXPECT_EQ(st.ok() ? "" : st.message(), GetParam().error);
}

NodeSelectorRequirement Req(std::string key, std::string op, std::vector<std::string> values,
                            std::optional<int> min_values = std::nullopt) {
  return {std::move(key), std::move(op), std::move(values), min_values};
}

const std::string kReq0 = "spec.template.spec.requirements[0]";

INSTANTIATE_TEST_SUITE_P(
    Crd, NodePoolRule,
    ::testing::Values(
        PoolCase{"Valid", [](NodePool&) {}, ""},
        PoolCase{"UnknownOperator", [](NodePool& p) { p.template_.spec.requirements[0].op = "Within"; },
                 kReq0 + ".operator: unsupported operator \"Within\" (must be one of In, NotIn, Exists, DoesNotExist, "
                         "Gt, Lt, Gte, Lte)"},
        PoolCase{"InWithoutValues", [](NodePool& p) { p.template_.spec.requirements[0] = Req("a.io/x", "In", {}); },
                 kReq0 + ".values: operator In needs at least one value"},
        PoolCase{"ExistsWithValues",
                 [](NodePool& p) { p.template_.spec.requirements[0] = Req("a.io/x", "Exists", {"v"}); },
                 kReq0 + ".values: must be empty when operator is Exists"},
        PoolCase{"GtTwoValues", [](NodePool& p) { p.template_.spec.requirements[0] = Req("a.io/x", "Gt", {"1", "2"}); },
                 kReq0 + ".values: operator Gt needs a single non-negative integer value"},
        PoolCase{"LtNotInteger", [](NodePool& p) { p.template_.spec.requirements[0] = Req("a.io/x", "Lt", {"abc"}); },
                 kReq0 + ".values: operator Lt needs a single non-negative integer value"},
        PoolCase{"GteNegative", [](NodePool& p) { p.template_.spec.requirements[0] = Req("a.io/x", "Gte", {"-1"}); },
                 kReq0 + ".values: operator Gte needs a single non-negative integer value"},
        PoolCase{"MinValuesAboveValues",
                 [](NodePool& p) { p.template_.spec.requirements[0].min_values = 3; },
                 kReq0 + ".minValues: 3 is more than the 2 values given"},
        PoolCase{"MinValuesZero", [](NodePool& p) { p.template_.spec.requirements[0].min_values = 0; },
                 kReq0 + ".minValues: must be between 1 and 50, got 0"},
        PoolCase{"MinValuesAboveFifty",
                 [](NodePool& p) { p.template_.spec.requirements[0] = Req("a.io/x", "Exists", {}, 51); },
                 kReq0 + ".minValues: must be between 1 and 50, got 51"},
        PoolCase{"RestrictedKarpenterDomain",
                 [](NodePool& p) { p.template_.spec.requirements[0] = Req("karpenter.sh/custom", "In", {"a"}); },
                 kReq0 + ".key: label domain \"karpenter.sh\" is restricted"},
        PoolCase{"RestrictedSubdomainOfKarpenter",
                 [](NodePool& p) { p.template_.spec.requirements[0] = Req("foo.karpenter.sh/x", "In", {"a"}); },
                 kReq0 + ".key: label domain \"karpenter.sh\" is restricted"},
        PoolCase{"RestrictedNodePoolLabel",
                 [](NodePool& p) { p.template_.spec.requirements[0] = Req("karpenter.sh/nodepool", "In", {"a"}); },
                 kReq0 + ".key: label \"karpenter.sh/nodepool\" is restricted"},
        PoolCase{"RestrictedHostname",
                 [](NodePool& p) { p.template_.spec.requirements[0] = Req("kubernetes.io/hostname", "In", {"a"}); },
                 kReq0 + ".key: label \"kubernetes.io/hostname\" is restricted"},
        PoolCase{"RestrictedAwsDomain",
                 [](NodePool& p) { p.template_.spec.requirements[0] = Req("karpenter.k8s.aws/foo", "In", {"a"}); },
                 kReq0 + ".key: label domain \"karpenter.k8s.aws\" is restricted"},
        PoolCase{"AwsWellKnownAllowed",
                 [](NodePool& p) { p.template_.spec.requirements[0] = Req("karpenter.k8s.aws/instance-family", "In", {"c5"}); },
                 ""},
        PoolCase{"BadKeySyntax", [](NodePool& p) { p.template_.spec.requirements[0] = Req("-bad", "In", {"a"}); },
                 kReq0 + ".key: invalid label key \"-bad\""},
        PoolCase{"BadValue", [](NodePool& p) { p.template_.spec.requirements[0] = Req("a.io/x", "In", {"a b"}); },
                 kReq0 + ".values[0]: invalid label value \"a b\" (alphanumerics, '-', '_' and '.', starting and "
                         "ending with an alphanumeric)"},
        PoolCase{"TemplateLabelRestricted",
                 [](NodePool& p) { p.template_.labels["karpenter.sh/nodepool"] = "x"; },
                 "spec.template.metadata.labels[karpenter.sh/nodepool]: label \"karpenter.sh/nodepool\" is restricted"},
        PoolCase{"TemplateLabelCapacityTypeAllowed",
                 [](NodePool& p) { p.template_.labels["karpenter.sh/capacity-type"] = "spot"; }, ""},
        PoolCase{"TemplateLabelValueTooLong",
                 [](NodePool& p) { p.template_.labels["team"] = std::string(64, 'a'); },
                 "spec.template.metadata.labels[team]: label value of 64 characters is longer than 63"},
        PoolCase{"WeightZero", [](NodePool& p) { p.weight = 0; }, "spec.weight: must be between 1 and 100, got 0"},
        PoolCase{"WeightAbove100", [](NodePool& p) { p.weight = 101; },
                 "spec.weight: must be between 1 and 100, got 101"},
        PoolCase{"ScheduleWithoutDuration", [](NodePool& p) { p.disruption.budgets[0].schedule = "@daily"; },
                 "spec.disruption.budgets[0]: 'schedule' must be set with 'duration'"},
        PoolCase{"DurationWithoutSchedule",
                 [](NodePool& p) { p.disruption.budgets[0].duration = std::chrono::hours(1); },
                 "spec.disruption.budgets[0]: 'schedule' must be set with 'duration'"},
        PoolCase{"BadCron",
                 [](NodePool& p) {
                   p.disruption.budgets[0].schedule = "daily";
                   p.disruption.budgets[0].duration = std::chrono::hours(1);
                 },
                 "spec.disruption.budgets[0].schedule: invalid cron schedule \"daily\" (five fields, or @yearly, "
                 "@monthly, @weekly, @daily, @hourly)"},
        PoolCase{"CronFieldOutOfRange",
                 [](NodePool& p) {
                   p.disruption.budgets[0].schedule = "99 * * * *";
                   p.disruption.budgets[0].duration = std::chrono::hours(1);
                 },
                 "spec.disruption.budgets[0].schedule: invalid cron schedule \"99 * * * *\": minute field \"99\": 99 is "
                 "above the maximum 59"},
        PoolCase{"NodesPercentAbove100", [](NodePool& p) { p.disruption.budgets[0].nodes = "101%"; },
                 "spec.disruption.budgets[0].nodes: invalid value \"101%\" (a count like \"5\" or a percentage from 0% "
                 "to 100%)"},
        PoolCase{"BudgetReasonUnknown", [](NodePool& p) { p.disruption.budgets[0].reasons = {"Expired"}; },
                 "spec.disruption.budgets[0].reasons[0]: unsupported reason \"Expired\" (must be one of Underutilized, "
                 "Empty, Drifted)"},
        PoolCase{"PolicyUnknown", [](NodePool& p) { p.disruption.consolidation_policy = "WhenUnderutilized"; },
                 "spec.disruption.consolidationPolicy: unsupported policy \"WhenUnderutilized\" (must be one of "
                 "WhenEmpty, WhenEmptyOrUnderutilized, Balanced)"},
        PoolCase{"NodeClassRefGroupMissing", [](NodePool& p) { p.template_.spec.node_class_ref.group = ""; },
                 "spec.template.spec.nodeClassRef.group: group may not be empty"},
        PoolCase{"NodeClassRefKindMissing", [](NodePool& p) { p.template_.spec.node_class_ref.kind = ""; },
                 "spec.template.spec.nodeClassRef.kind: kind may not be empty"},
        PoolCase{"NodeClassRefNameMissing", [](NodePool& p) { p.template_.spec.node_class_ref.name = ""; },
                 "spec.template.spec.nodeClassRef.name: name may not be empty"},
        PoolCase{"TaintEffectUnknown",
                 [](NodePool& p) { p.template_.spec.taints = {{"nvidia.com/gpu", "true", "NoRun"}}; },
                 "spec.template.spec.taints[0].effect: unsupported effect \"NoRun\" (must be one of NoSchedule, "
                 "PreferNoSchedule, NoExecute)"},
        PoolCase{"TaintEffectMissing", [](NodePool& p) { p.template_.spec.startup_taints = {{"a.io/x", "", ""}}; },
                 "spec.template.spec.startupTaints[0].effect: is required"},
        PoolCase{"TaintKeyMissing", [](NodePool& p) { p.template_.spec.taints = {{"", "", "NoSchedule"}}; },
                 "spec.template.spec.taints[0].key: is required"},
        PoolCase{"NegativeLimit", [](NodePool& p) { p.limits.Set("cpu", Quantity::MustParse("-1")); },
                 "spec.limits[cpu]: must not be negative"}),
    [](const ::testing::TestParamInfo<PoolCase>& info) { return info.param.name; });

TEST(ValidateNodeClaim, AllowsTheNodePoolLabelInRequirements) {
  NodeClaim c;
  c.metadata.name = "default-abcde";
  c.spec.node_class_ref = {"karpenter.k8s.aws", "EC2NodeClass", "default"};
  c.spec.requirements = {Req("karpenter.sh/nodepool", "In", {"default"})};
  EXPECT_TRUE(ValidateNodeClaim(c).ok());
  c.spec.requirements = {Req("kubernetes.io/hostname", "In", {"x"})};
  EXPECT_EQ(ValidateNodeClaim(c).message(), "spec.requirements[0].key: label \"kubernetes.io/hostname\" is restricted");
}

EC2NodeClass ValidNodeClass() {
  EC2NodeClass nc;
  nc.metadata.name = "default";
  nc.role = "KarpenterNodeRole";
  nc.ami_selector_terms = {SelectorTerm{.alias = "al2023@latest"}};
  nc.ami_family = "AL2023";
  nc.subnet_selector_terms = {SelectorTerm{.tags = {{"karpenter.sh/discovery", "c"}}}};
  nc.security_group_selector_terms = {SelectorTerm{.tags = {{"karpenter.sh/discovery", "c"}}}};
  return nc;
}

struct NodeClassCase {
  const char* name;
  std::function<void(EC2NodeClass&)> mutate;
  std::string error;
};

class EC2NodeClassRule : public ::testing::TestWithParam<NodeClassCase> {};

TEST_P(EC2NodeClassRule, GivesItsMessage) {
  EC2NodeClass nc = ValidNodeClass();
  GetParam().mutate(nc);
  core::Status st = ValidateEC2NodeClass(nc);
  EXPECT_EQ(st.ok() ? "" : st.message(), GetParam().error);
}

INSTANTIATE_TEST_SUITE_P(
    Crd, EC2NodeClassRule,
    ::testing::Values(
        NodeClassCase{"Valid", [](EC2NodeClass&) {}, ""},
        NodeClassCase{"NoSubnets", [](EC2NodeClass& n) { n.subnet_selector_terms.clear(); },
                      "spec.subnetSelectorTerms: subnetSelectorTerms cannot be empty"},
        NodeClassCase{"EmptySubnetTerm", [](EC2NodeClass& n) { n.subnet_selector_terms = {SelectorTerm{}}; },
                      "spec.subnetSelectorTerms[0]: expected at least one, got none, ['tags', 'id']"},
        NodeClassCase{"SecurityGroupIdAndTags",
                      [](EC2NodeClass& n) { n.security_group_selector_terms[0].id = "sg-123"; },
                      "spec.securityGroupSelectorTerms[0]: 'id' is mutually exclusive, cannot be set with a "
                      "combination of other fields"},
        NodeClassCase{"RoleAndInstanceProfile", [](EC2NodeClass& n) { n.instance_profile = "p"; },
                      "spec: must specify exactly one of ['role', 'instanceProfile']"},
        NodeClassCase{"NeitherRoleNorInstanceProfile", [](EC2NodeClass& n) { n.role.clear(); },
                      "spec: must specify exactly one of ['role', 'instanceProfile']"},
        NodeClassCase{"BadAlias", [](EC2NodeClass& n) { n.ami_selector_terms[0].alias = "al2023"; },
                      "spec.amiSelectorTerms[0].alias: 'alias' is improperly formatted, must match the format "
                      "'family@version'"},
        NodeClassCase{"UnknownAliasFamily", [](EC2NodeClass& n) { n.ami_selector_terms[0].alias = "ubuntu@latest"; },
                      "spec.amiSelectorTerms[0].alias: family is not supported, must be one of the following: 'al2', "
                      "'al2023', 'bottlerocket', 'windows2019', 'windows2022', 'windows2025'"},
        NodeClassCase{"WindowsPinnedVersion",
                      [](EC2NodeClass& n) { n.ami_selector_terms[0].alias = "windows2022@v1"; },
                      "spec.amiSelectorTerms[0].alias: windows families may only specify version 'latest'"},
        NodeClassCase{"AliasWithOtherTerms",
                      [](EC2NodeClass& n) { n.ami_selector_terms.push_back(SelectorTerm{.id = "ami-123"}); },
                      "spec.amiSelectorTerms: 'alias' is mutually exclusive, cannot be set with a combination of "
                      "other amiSelectorTerms"},
        NodeClassCase{"NoAliasNoFamily",
                      [](EC2NodeClass& n) {
                        n.ami_selector_terms = {SelectorTerm{.id = "ami-123"}};
                        n.ami_family.clear();
                      },
                      "spec: must specify amiFamily if amiSelectorTerms does not contain an alias"},
        NodeClassCase{"NoAmiTerms", [](EC2NodeClass& n) { n.ami_selector_terms.clear(); },
                      "spec.amiSelectorTerms: amiSelectorTerms is required (use an alias such as al2023@latest)"},
        NodeClassCase{"RestrictedTag", [](EC2NodeClass& n) { n.tags["kubernetes.io/cluster/x"] = "owned"; },
                      "spec.tags[kubernetes.io/cluster/x]: tag contains a restricted tag matching kubernetes.io/cluster/"},
        NodeClassCase{"TwoRootVolumes",
                      [](EC2NodeClass& n) {
                        BlockDeviceMapping m;
                        m.root_volume = true;
                        m.ebs.volume_size = "20Gi";
                        n.block_device_mappings = {m, m};
                      },
                      "spec.blockDeviceMappings: must have only one blockDeviceMappings with rootVolume"},
        NodeClassCase{"HopLimit", [](EC2NodeClass& n) { n.metadata_options.http_put_response_hop_limit = 65; },
                      "spec.metadataOptions.httpPutResponseHopLimit: must be between 1 and 64"},
        // The kubelet's maps and volumeSize are kept as text; they are checked at load, not first
        // when a catalog or launch template is built from them (where no file could be named).
        NodeClassCase{"KubeReservedNotAQuantity",
                      [](EC2NodeClass& n) { n.kubelet = KubeletConfiguration{.kube_reserved = {{"cpu", "lots"}}}; },
                      "spec.kubelet.kubeReserved[cpu]: quantity \"lots\": quantities must match the regular "
                      "expression '^([+-]?[0-9.]+)([eEinumkKMGTP]*[-+]?[0-9]*)$'"},
        NodeClassCase{"SystemReservedNegative",
                      [](EC2NodeClass& n) { n.kubelet = KubeletConfiguration{.system_reserved = {{"memory", "-1Gi"}}}; },
                      "spec.kubelet.systemReserved[memory]: quantity \"-1Gi\" must not be negative"},
        NodeClassCase{"EvictionHardNotAPercentage",
                      [](EC2NodeClass& n) { n.kubelet = KubeletConfiguration{.eviction_hard = {{"memory.available", "150%"}}}; },
                      "spec.kubelet.evictionHard[memory.available]: \"150%\" is not a percentage between 0% and 100%"},
        NodeClassCase{"EvictionSoftNotAQuantity",
                      [](EC2NodeClass& n) { n.kubelet = KubeletConfiguration{.eviction_soft = {{"nodefs.available", "1Ki2"}}}; },
                      "spec.kubelet.evictionSoft[nodefs.available]: quantity \"1Ki2\": unable to parse quantity's "
                      "suffix"},
        NodeClassCase{"VolumeSizeNotAQuantity",
                      [](EC2NodeClass& n) {
                        BlockDeviceMapping m;
                        m.device_name = "/dev/xvda";
                        m.ebs.volume_size = "big";
                        n.block_device_mappings = {m};
                      },
                      "spec.blockDeviceMappings[0].ebs.volumeSize: quantity \"big\": quantities must match the "
                      "regular expression '^([+-]?[0-9.]+)([eEinumkKMGTP]*[-+]?[0-9]*)$'"}),
    [](const ::testing::TestParamInfo<NodeClassCase>& info) { return info.param.name; });

TEST(ValidatePodSpec, ChecksOperatorsAndEffects) {
  PodSpec spec;
  spec.tolerations = {Toleration{"a", "Equals", "", "", std::nullopt}};
  EXPECT_EQ(ValidatePodSpec(spec, "spec").message(),
            "spec.tolerations[0].operator: unsupported operator \"Equals\" (must be Equal or Exists)");
  spec.tolerations.clear();
  NodeAffinity na;
  na.required = NodeSelector{{NodeSelectorTerm{{Req("zone", "Gte", {"1"})}, {}}}};
  spec.affinity = Affinity{na, std::nullopt, std::nullopt};
  EXPECT_EQ(ValidatePodSpec(spec, "spec").message(),
            "spec.affinity.nodeAffinity.requiredDuringSchedulingIgnoredDuringExecution.nodeSelectorTerms[0]."
            "matchExpressions[0].operator: unsupported operator \"Gte\" (must be one of In, NotIn, Exists, "
            "DoesNotExist, Gt, Lt)");
}

TEST(ValidateInstanceTypeCatalog, RefusesNegativeCapacityAndPricesNoInstanceCosts) {
  InstanceTypeCatalog catalog;
  catalog.metadata.name = "lab";
  CatalogInstanceType t;
  t.name = "t";
  t.capacity.Set("cpu", Quantity::MustParse("4"));
  t.price = 0.5;
  catalog.instance_types.push_back(t);
  EXPECT_TRUE(ValidateInstanceTypeCatalog(catalog).ok());

  catalog.instance_types[0].capacity.Set("memory", Quantity::MustParse("-1Gi"));
  EXPECT_EQ(ValidateInstanceTypeCatalog(catalog).message(),
            "spec.instanceTypes[0].capacity[memory]: must not be negative");
  catalog.instance_types[0] = t;
  catalog.instance_types[0].price = 1e25;  // once an abort inside the LP solver
  EXPECT_EQ(ValidateInstanceTypeCatalog(catalog).message(),
            "spec.instanceTypes[0].price: must be at most 1000000 (USD per hour)");
  catalog.instance_types[0] = t;
  catalog.instance_types[0].offerings = std::vector<CatalogOffering>{{"zone-a", "spot", 2e6, true}};
  EXPECT_EQ(ValidateInstanceTypeCatalog(catalog).message(),
            "spec.instanceTypes[0].offerings[0].price: must be at most 1000000 (USD per hour)");
}

TEST(LabelDomains, DomainIsThePartBeforeTheFirstSlash) {
  EXPECT_EQ(LabelDomain("karpenter.sh/nodepool"), "karpenter.sh");
  EXPECT_EQ(LabelDomain("team"), "team");
  EXPECT_EQ(RestrictedLabelMessage("karpenter.sh", LabelUse::kTemplateLabel),
            "label domain \"karpenter.sh\" is restricted");
  EXPECT_EQ(RestrictedLabelMessage("node.kubernetes.io/instance-type", LabelUse::kNodePoolRequirement), "");
}

}  // namespace
}  // namespace nodesmith::api
