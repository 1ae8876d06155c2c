// VolumeTopology: where a pod's volumes pin it, and the errors Karpenter reports for claims,
// volumes and classes that do not exist.
#include "solver/volume_topology.h"

#include <gmock/gmock.h>
#include <gtest/gtest.h>

namespace nodesmith::solver {
namespace {

using ::testing::ElementsAre;
using ::testing::IsEmpty;

constexpr const char* kZone = "topology.kubernetes.io/zone";

api::Pod PodWithClaim(const std::string& claim) {
  api::Pod pod;
  pod.metadata.name = "db-0";
  pod.metadata.namespace_ = "default";
  api::Volume v;
  v.name = "data";
  v.pvc_claim_name = claim;
  pod.spec.volumes.push_back(v);
  return pod;
}

api::PersistentVolumeClaim Claim(const std::string& name, std::optional<std::string> sc,
                                 const std::string& volume = "") {
  api::PersistentVolumeClaim c;
  c.metadata.name = name;
  c.metadata.namespace_ = "default";
  c.storage_class_name = std::move(sc);
  c.volume_name = volume;
  return c;
}

api::PersistentVolume ZonalVolume(const std::string& name, const std::string& zone) {
  api::PersistentVolume pv;
  pv.metadata.name = name;
  api::NodeSelector ns;
  api::NodeSelectorTerm term;
  term.match_expressions.push_back({kZone, "In", {zone}, std::nullopt});
  ns.node_selector_terms.push_back(term);
  // A second term is ignored, as upstream uses only the first.
  api::NodeSelectorTerm other;
  other.match_expressions.push_back({kZone, "In", {"elsewhere"}, std::nullopt});
  ns.node_selector_terms.push_back(other);
  pv.node_affinity = ns;
  return pv;
}

api::StorageClass Class(const std::string& name, std::vector<std::string> zones = {},
                        bool is_default = false) {
  api::StorageClass sc;
  sc.metadata.name = name;
  sc.volume_binding_mode = "WaitForFirstConsumer";
  sc.is_default = is_default;
  if (!zones.empty()) {
    api::TopologySelectorTerm term;
    term.match_label_expressions.push_back({kZone, "In", zones});
    sc.allowed_topologies.push_back(term);
  }
  return sc;
}

TEST(VolumeTopology, BoundVolumePinsThePodToTheVolumesZone) {
  VolumeTopology vt;
  vt.AddClaim(Claim("data-db-0", "gp3", "pv-1"));
  vt.AddVolume(ZonalVolume("pv-1", "us-west-2b"));
  auto reqs = vt.Requirements(PodWithClaim("data-db-0"));
  ASSERT_TRUE(reqs.ok()) << reqs.status().message();
  ASSERT_EQ(reqs->size(), 1u);
  EXPECT_EQ((*reqs)[0].key, kZone);
  EXPECT_THAT((*reqs)[0].values, ElementsAre("us-west-2b"));
}

TEST(VolumeTopology, UnboundClaimTakesTheStorageClassAllowedTopologies) {
  VolumeTopology vt;
  vt.AddClaim(Claim("data-db-0", "gp3"));
  vt.AddStorageClass(Class("gp3", {"us-west-2a", "us-west-2c"}));
  auto reqs = vt.Requirements(PodWithClaim("data-db-0"));
  ASSERT_TRUE(reqs.ok()) << reqs.status().message();
  ASSERT_EQ(reqs->size(), 1u);
  EXPECT_EQ((*reqs)[0].op, "In");
  EXPECT_THAT((*reqs)[0].values, ElementsAre("us-west-2a", "us-west-2c"));
}

TEST(VolumeTopology, UnboundClaimWithoutAClassUsesTheDefaultClass) {
  VolumeTopology vt;
  vt.AddClaim(Claim("data-db-0", std::nullopt));
  vt.AddStorageClass(Class("standard", {"us-west-2a"}, /*is_default=*/true));
  auto reqs = vt.Requirements(PodWithClaim("data-db-0"));
  ASSERT_TRUE(reqs.ok()) << reqs.status().message();
  ASSERT_EQ(reqs->size(), 1u);
  EXPECT_THAT((*reqs)[0].values, ElementsAre("us-west-2a"));
}

TEST(VolumeTopology, ClassWithoutAllowedTopologiesAddsNothing) {
  VolumeTopology vt;
  vt.AddClaim(Claim("data-db-0", "gp3"));
  vt.AddStorageClass(Class("gp3"));
  auto reqs = vt.Requirements(PodWithClaim("data-db-0"));
  ASSERT_TRUE(reqs.ok());
  EXPECT_THAT(*reqs, IsEmpty());
}

TEST(VolumeTopology, NonClaimVolumesAddNothing) {
  VolumeTopology vt;
  api::Pod pod = PodWithClaim("");
  auto reqs = vt.Requirements(pod);
  ASSERT_TRUE(reqs.ok());
  EXPECT_THAT(*reqs, IsEmpty());
  EXPECT_TRUE(vt.ValidatePersistentVolumeClaims(pod).ok());
}

TEST(VolumeTopology, EphemeralVolumeUsesTheClaimNamedAfterPodAndVolume) {
  VolumeTopology vt;
  vt.AddClaim(Claim("db-0-scratch", "gp3", "pv-9"));
  vt.AddVolume(ZonalVolume("pv-9", "us-west-2c"));
  api::Pod pod = PodWithClaim("");
  pod.spec.volumes[0].name = "scratch";
  pod.spec.volumes[0].ephemeral = true;
  auto reqs = vt.Requirements(pod);
  ASSERT_TRUE(reqs.ok()) << reqs.status().message();
  ASSERT_EQ(reqs->size(), 1u);
  EXPECT_THAT((*reqs)[0].values, ElementsAre("us-west-2c"));
}

TEST(VolumeTopology, EphemeralVolumeWhoseClaimIsNotCreatedYetAddsNothing) {
  VolumeTopology vt;
  api::Pod pod = PodWithClaim("");
  pod.spec.volumes[0].ephemeral = true;
  EXPECT_TRUE(vt.Requirements(pod).ok());
  EXPECT_TRUE(vt.ValidatePersistentVolumeClaims(pod).ok());
}

TEST(VolumeTopology, MissingClaimIsReportedInKarpentersWords) {
  VolumeTopology vt;
  auto reqs = vt.Requirements(PodWithClaim("data-db-0"));
  ASSERT_FALSE(reqs.ok());
  EXPECT_EQ(reqs.status().message(),
            "discovering persistent volume claim, persistentvolumeclaims \"data-db-0\" not found");
  EXPECT_EQ(vt.ValidatePersistentVolumeClaims(PodWithClaim("data-db-0")).message(),
            "persistentvolumeclaims \"data-db-0\" not found");
}

TEST(VolumeTopology, MissingVolumeIsReportedInKarpentersWords) {
  VolumeTopology vt;
  vt.AddClaim(Claim("data-db-0", "gp3", "pv-1"));
  auto reqs = vt.Requirements(PodWithClaim("data-db-0"));
  ASSERT_FALSE(reqs.ok());
  EXPECT_EQ(reqs.status().message(),
            "getting existing requirements, getting persistent volume \"pv-1\", "
            "persistentvolumes \"pv-1\" not found");
  EXPECT_EQ(vt.ValidatePersistentVolumeClaims(PodWithClaim("data-db-0")).message(),
            "failed to validate pvc \"data-db-0\" with volume \"pv-1\", "
            "persistentvolumes \"pv-1\" not found");
}

TEST(VolumeTopology, MissingStorageClassIsReportedInKarpentersWords) {
  VolumeTopology vt;
  vt.AddClaim(Claim("data-db-0", "fast"));
  auto reqs = vt.Requirements(PodWithClaim("data-db-0"));
  ASSERT_FALSE(reqs.ok());
  EXPECT_EQ(reqs.status().message(),
            "getting storage class \"fast\", storageclasses.storage.k8s.io \"fast\" not found");
  EXPECT_EQ(vt.ValidatePersistentVolumeClaims(PodWithClaim("data-db-0")).message(),
            "failed to validate pvc \"data-db-0\" with storage class \"fast\", "
            "storageclasses.storage.k8s.io \"fast\" not found");
}

TEST(VolumeTopology, UnboundClaimWithoutAnyClassFailsValidation) {
  VolumeTopology vt;
  vt.AddClaim(Claim("data-db-0", ""));
  EXPECT_EQ(vt.ValidatePersistentVolumeClaims(PodWithClaim("data-db-0")).message(),
            "unbound pvc data-db-0 must define a storage class");
  // It constrains nothing, though.
  auto reqs = vt.Requirements(PodWithClaim("data-db-0"));
  ASSERT_TRUE(reqs.ok());
  EXPECT_THAT(*reqs, IsEmpty());
}

TEST(VolumeTopology, InjectCreatesARequiredTermWhenThePodHasNone) {
  VolumeTopology vt;
  vt.AddClaim(Claim("data-db-0", "gp3", "pv-1"));
  vt.AddVolume(ZonalVolume("pv-1", "us-west-2b"));
  api::Pod pod = PodWithClaim("data-db-0");
  ASSERT_TRUE(vt.Inject(pod).ok());
  const auto& terms = pod.spec.affinity->node_affinity->required->node_selector_terms;
  ASSERT_EQ(terms.size(), 1u);
  ASSERT_EQ(terms[0].match_expressions.size(), 1u);
  EXPECT_EQ(terms[0].match_expressions[0].key, kZone);
}

TEST(VolumeTopology, InjectAddsTheZoneToEveryOrTermSoRelaxationKeepsIt) {
  VolumeTopology vt;
  vt.AddClaim(Claim("data-db-0", "gp3", "pv-1"));
  vt.AddVolume(ZonalVolume("pv-1", "us-west-2b"));
  api::Pod pod = PodWithClaim("data-db-0");
  pod.spec.affinity.emplace();
  pod.spec.affinity->node_affinity.emplace();
  api::NodeSelector required;
  for (const char* arch : {"arm64", "amd64"}) {
    api::NodeSelectorTerm t;
    t.match_expressions.push_back({"kubernetes.io/arch", "In", {arch}, std::nullopt});
    required.node_selector_terms.push_back(t);
  }
  pod.spec.affinity->node_affinity->required = required;
  ASSERT_TRUE(vt.Inject(pod).ok());
  for (const auto& term : pod.spec.affinity->node_affinity->required->node_selector_terms) {
    ASSERT_EQ(term.match_expressions.size(), 2u);
    EXPECT_EQ(term.match_expressions[1].key, kZone);
    EXPECT_THAT(term.match_expressions[1].values, ElementsAre("us-west-2b"));
  }
}

TEST(VolumeTopology, InjectLeavesThePodUnchangedOnError) {
  VolumeTopology vt;
  api::Pod pod = PodWithClaim("missing");
  EXPECT_FALSE(vt.Inject(pod).ok());
  EXPECT_FALSE(pod.spec.affinity.has_value());
}

}  // namespace
}  // namespace nodesmith::solver
