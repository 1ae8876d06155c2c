// The NodePool hash controller as a specification: a NodePool carries the hash of its template
// and the hash version, and NodeClaims stamped by another hash version are moved to this one.
#include "controllers/nodepool/hash.h"

#include <gtest/gtest.h>

#include "controllers/nodeclaim/drift_detection.h"
#include "controllers/testing/fixtures.h"

namespace nodesmith::controllers {
namespace {

namespace s = scheduling;

class NodePoolHashTest : public ::testing::Test {
 protected:
  NodePoolHashTest() { world_.MustCreate(testing::Pool()); }

  api::NodePool Pool() { return world_.MustGet<api::NodePool>("", "default"); }
  api::NodePool Reconciled() {
    auto r = controller_.Reconcile({"", "default"});
    EXPECT_TRUE(r.ok()) << r.status().message();
    return Pool();
  }
  // A NodeClaim of `pool` stamped with `hash` at hash version `version` ("" for none).
  api::NodeClaim Claim(const std::string& name, const std::string& version,
                       const std::string& hash = "123", const std::string& pool = "default") {
    api::NodeClaim c;
    c.metadata.name = name;
    c.metadata.labels = {{s::kLabelNodePool, pool}};
    c.metadata.annotations[kNodePoolHashAnnotation] = hash;
    if (!version.empty()) c.metadata.annotations[kNodePoolHashVersionAnnotation] = version;
    return world_.MustCreate(std::move(c));
  }
  std::map<std::string, std::string> Annotations(const std::string& claim) {
    return world_.MustGet<api::NodeClaim>("", claim).metadata.annotations;
  }

  testing::World world_;
  NodePoolHashController controller_{world_.cluster};
};

TEST_F(NodePoolHashTest, ANodePoolCarriesItsTemplatesHashAndTheHashVersion) {
  api::NodePool p = Reconciled();
  EXPECT_EQ(p.metadata.annotations.at(kNodePoolHashAnnotation), NodePoolHash(p));
  EXPECT_EQ(p.metadata.annotations.at(kNodePoolHashVersionAnnotation), kNodePoolHashVersion);
  EXPECT_EQ(p.metadata.generation, 1) << "annotations are no spec change";

  const std::string before = p.metadata.annotations.at(kNodePoolHashAnnotation);
  p.template_.labels["team"] = "web";
  ASSERT_TRUE(world_.cluster.Update(p).ok());
  p = Reconciled();
  EXPECT_NE(p.metadata.annotations.at(kNodePoolHashAnnotation), before);
  EXPECT_EQ(p.metadata.annotations.at(kNodePoolHashAnnotation), NodePoolHash(p));
}

TEST_F(NodePoolHashTest, NodeClaimsOfAnotherHashVersionAreMovedToThisOne) {
  Claim("default-old", "v2");
  Claim("default-none", "");
  api::NodeClaim drifted = Claim("default-drifted", "v2");
  drifted.status.conditions.push_back(
      {kConditionDrifted, "True", kDriftReasonNodePoolDrifted, "", world_.clock.Now()});
  ASSERT_TRUE(world_.cluster.Update(drifted).ok());
  Claim("default-current", kNodePoolHashVersion, "456");
  Claim("other-old", "v2", "123", "other");

  const std::string hash = NodePoolHash(Reconciled());
  EXPECT_EQ(Annotations("default-old").at(kNodePoolHashAnnotation), hash);
  EXPECT_EQ(Annotations("default-old").at(kNodePoolHashVersionAnnotation), kNodePoolHashVersion);
  EXPECT_EQ(Annotations("default-none").at(kNodePoolHashAnnotation), hash);
  EXPECT_EQ(Annotations("default-drifted").at(kNodePoolHashAnnotation), "123")
      << "a drifted NodeClaim stays drifted";
  EXPECT_EQ(Annotations("default-drifted").at(kNodePoolHashVersionAnnotation),
            kNodePoolHashVersion);
  EXPECT_EQ(Annotations("default-current").at(kNodePoolHashAnnotation), "456")
      << "already on this version: its hash says whether it drifted";
  EXPECT_EQ(Annotations("other-old").at(kNodePoolHashVersionAnnotation), "v2") << "another pool's";
}

TEST_F(NodePoolHashTest, ACLusterKarpenterStampedIsNotTakenForDrift) {
  // Karpenter v1 stamps hash version "v3" with hashes of its own algorithm. nodesmith hashes
  // differently, so it must not claim that version: reading Karpenter's stamps as its own would
  // find every node drifted the moment a user switches.
  EXPECT_NE(std::string(kNodePoolHashVersion), "v3");
  api::NodePool p = Pool();
  p.metadata.annotations[kNodePoolHashAnnotation] = "6103076166144412431";
  p.metadata.annotations[kNodePoolHashVersionAnnotation] = "v3";
  ASSERT_TRUE(world_.cluster.Update(p).ok());
  Claim("default-karpenter", "v3", "6103076166144412431");

  p = Reconciled();
  EXPECT_EQ(Annotations("default-karpenter").at(kNodePoolHashAnnotation),
            p.metadata.annotations.at(kNodePoolHashAnnotation));
  EXPECT_EQ(Annotations("default-karpenter").at(kNodePoolHashVersionAnnotation),
            kNodePoolHashVersion);
}

TEST_F(NodePoolHashTest, NodeClaimsAreLeftAloneOnceTheNodePoolIsOnThisVersion) {
  Reconciled();
  Claim("default-old", "v2");
  Reconciled();
  EXPECT_EQ(Annotations("default-old").at(kNodePoolHashVersionAnnotation), "v2");
}

TEST_F(NodePoolHashTest, NothingIsWrittenWhenNothingChanged) {
  const std::string version = Reconciled().metadata.resource_version;
  EXPECT_EQ(Reconciled().metadata.resource_version, version);
  EXPECT_TRUE(controller_.Reconcile({"", "gone"}).ok());
}

}  // namespace
}  // namespace nodesmith::controllers
