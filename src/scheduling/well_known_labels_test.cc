// Label-key rules as Karpenter's pkg/apis/v1/labels.go and the AWS provider's additions.
#include "scheduling/well_known_labels.h"

#include <gtest/gtest.h>

#include "scheduling/label_syntax.h"

namespace nodesmith::scheduling {
namespace {

TEST(WellKnownLabelsTest, ContainsCoreAndAwsKeys) {
  for (const char* key :
       {kLabelNodePool, kLabelTopologyZone, kLabelTopologyRegion, kLabelInstanceTypeStable,
        kLabelArchStable, kLabelOSStable, kLabelCapacityType, kLabelWindowsBuild,
        kLabelInstanceCategory, kLabelInstanceFamily, kLabelInstanceGeneration, kLabelInstanceSize,
        kLabelInstanceCpu, kLabelInstanceCpuManufacturer, kLabelInstanceMemory,
        kLabelInstanceEbsBandwidth, kLabelInstanceNetworkBandwidth, kLabelInstanceGpuName,
        kLabelInstanceGpuManufacturer, kLabelInstanceGpuCount, kLabelInstanceGpuMemory,
        kLabelInstanceAcceleratorName, kLabelInstanceAcceleratorManufacturer,
        kLabelInstanceAcceleratorCount, kLabelInstanceHypervisor,
        kLabelInstanceEncryptionInTransitSupported, kLabelInstanceLocalNvme,
        kLabelTopologyZoneId, kLabelInstanceCapacityReservationId}) {
    EXPECT_TRUE(IsWellKnownLabel(key)) << key;
  }
  EXPECT_FALSE(IsWellKnownLabel(kLabelHostname));
  EXPECT_FALSE(IsWellKnownLabel("karpenter.k8s.aws/ec2nodeclass"));
  EXPECT_FALSE(IsWellKnownLabel("example.com/team"));
}

TEST(WellKnownLabelsTest, CatalogCanExtendTheSet) {
  LabelKeySet extended = WellKnownLabels().With({"size", "special", kLabelTopologyZone});
  EXPECT_TRUE(extended.Contains("size"));
  EXPECT_TRUE(extended.Contains(kLabelTopologyZone));
  EXPECT_EQ(extended.size(), WellKnownLabels().size() + 2);
  EXPECT_FALSE(WellKnownLabels().Contains("size"));
}

TEST(IsRestrictedLabelTest, WellKnownAndCustomLabelsAreAllowed) {
  EXPECT_TRUE(IsRestrictedLabel(kLabelTopologyZone).ok());
  EXPECT_TRUE(IsRestrictedLabel(kLabelInstanceFamily).ok());
  EXPECT_TRUE(IsRestrictedLabel("example.com/team").ok());
  EXPECT_TRUE(IsRestrictedLabel("team").ok());
}

TEST(IsRestrictedLabelTest, ExceptionDomainsAreAllowed) {
  EXPECT_TRUE(IsRestrictedLabel("node.kubernetes.io/lifecycle").ok());
  EXPECT_TRUE(IsRestrictedLabel("node-restriction.kubernetes.io/team").ok());
  EXPECT_TRUE(IsRestrictedLabel("kops.k8s.io/instancegroup").ok());
  EXPECT_TRUE(IsRestrictedLabel("foo.node.kubernetes.io/x").ok());  // suffix match, as upstream
}

TEST(IsRestrictedLabelTest, RestrictedDomainsAndHostnameAreRejectedWithAReason) {
  for (const char* key : {"kubernetes.io/custom", "k8s.io/x", "sub.k8s.io/x", "karpenter.sh/x",
                          "karpenter.k8s.aws/x", kLabelHostname, kLabelNodeInitialized}) {
    core::Status s = IsRestrictedLabel(key);
    ASSERT_FALSE(s.ok()) << key;
    EXPECT_EQ(s.message().rfind(std::string("label ") + key + " is restricted; specify a well "
                                "known label: [karpenter.k8s.aws/capacity-reservation-id ",
                                0),
              0u)
        << s.message();
    EXPECT_NE(s.message().find("or a custom label that does not use a restricted domain: [k8s.io "
                               "karpenter.k8s.aws karpenter.sh kubernetes.io]"),
              std::string::npos);
  }
}

TEST(IsRestrictedNodeLabelTest, WellKnownLabelsAreLeftToTheCloudProvider) {
  EXPECT_TRUE(IsRestrictedNodeLabel(kLabelInstanceTypeStable));
  EXPECT_TRUE(IsRestrictedNodeLabel(kLabelHostname));
  EXPECT_TRUE(IsRestrictedNodeLabel("karpenter.sh/registered"));
  EXPECT_FALSE(IsRestrictedNodeLabel("node.kubernetes.io/lifecycle"));
  EXPECT_FALSE(IsRestrictedNodeLabel("team"));
  EXPECT_TRUE(IsRestrictedNodeLabel("team", WellKnownLabels().With({"team"})));
}

TEST(NormalizeLabelKeyTest, MapsDeprecatedAliases) {
  EXPECT_EQ(NormalizeLabelKey("beta.kubernetes.io/arch"), "kubernetes.io/arch");
  EXPECT_EQ(NormalizeLabelKey("beta.kubernetes.io/os"), "kubernetes.io/os");
  EXPECT_EQ(NormalizeLabelKey("beta.kubernetes.io/instance-type"),
            "node.kubernetes.io/instance-type");
  EXPECT_EQ(NormalizeLabelKey("failure-domain.beta.kubernetes.io/zone"),
            "topology.kubernetes.io/zone");
  EXPECT_EQ(NormalizeLabelKey("failure-domain.beta.kubernetes.io/region"),
            "topology.kubernetes.io/region");
  EXPECT_EQ(NormalizeLabelKey("kubernetes.io/arch"), "kubernetes.io/arch");
  EXPECT_EQ(NormalizeLabelKey("x.beta.kubernetes.io/other"), "x.beta.kubernetes.io/other");
}

TEST(GetLabelDomainTest, IsThePrefixBeforeTheSlash) {
  EXPECT_EQ(GetLabelDomain("topology.kubernetes.io/zone"), "topology.kubernetes.io");
  EXPECT_EQ(GetLabelDomain("team"), "");
}

TEST(LabelSyntaxTest, QualifiedNames) {
  EXPECT_TRUE(IsQualifiedName("team"));
  EXPECT_TRUE(IsQualifiedName("example.com/Team_1.x"));
  EXPECT_EQ(QualifiedNameError("example.com/"), "name part must be non-empty");
  EXPECT_EQ(QualifiedNameError("/x"), "prefix part must be non-empty");
  EXPECT_FALSE(IsQualifiedName("Example.com/x"));
  EXPECT_FALSE(IsQualifiedName("a/b/c"));
  EXPECT_FALSE(IsQualifiedName("-team"));
  EXPECT_EQ(QualifiedNameError(std::string(64, 'a')),
            "name part must be no more than 63 characters");
}

TEST(LabelSyntaxTest, LabelValues) {
  EXPECT_TRUE(IsValidLabelValue(""));
  EXPECT_TRUE(IsValidLabelValue("us-west-2a"));
  EXPECT_TRUE(IsValidLabelValue("A_b.c-1"));
  EXPECT_FALSE(IsValidLabelValue("a b"));
  EXPECT_FALSE(IsValidLabelValue("value-"));
  EXPECT_EQ(LabelValueError(std::string(64, 'a')), "must be no more than 63 characters");
}

}  // namespace
}  // namespace nodesmith::scheduling
