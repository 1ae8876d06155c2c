// BuildNodeClaim as a specification: what a planned NodeClaim becomes when created from its
// NodePool.
#include "controllers/provisioning/nodeclaim_builder.h"

#include <gmock/gmock.h>
#include <gtest/gtest.h>

#include "controllers/common/karpenter.h"
#include "controllers/testing/fixtures.h"

namespace nodesmith::controllers {
namespace {

using ::testing::ElementsAre;
namespace s = scheduling;

solver::NewNodeClaim Planned() {
  solver::NewNodeClaim p;
  p.name = "default-x7k2q";
  p.node_pool = "default";
  p.instance_type_options = {"small", "large"};
  p.labels = {{"team", "web"}};
  p.requests = {{"cpu", api::Quantity::MustParse("1500m")}};
  p.pods = {"default/a", "default/b"};
  p.requirements = s::Requirements::FromNodeSelectorRequirements(
      {{s::kLabelCapacityType, "In", {"spot"}, std::nullopt},
       {s::kLabelInstanceTypeStable, "In", {"small", "large", "huge"}, std::nullopt}});
  return p;
}

api::NodePool PoolWithTemplate() {
  api::NodePool pool = testing::Pool();
  pool.metadata.uid = "pool-uid";
  pool.template_.labels = {{"team", "platform"}, {"tier", "general"}};
  pool.template_.annotations = {{"example.com/owner", "infra"}};
  pool.template_.spec.taints = {{"dedicated", "web", "NoSchedule"}};
  pool.template_.spec.startup_taints = {{"cni", "", "NoSchedule"}};
  pool.template_.spec.termination_grace_period = std::chrono::minutes(5);
  return pool;
}

TEST(BuildNodeClaim, NamesAndLabelsComeFromThePoolThenThePlan) {
  api::NodeClaim c = BuildNodeClaim(Planned(), PoolWithTemplate());
  EXPECT_EQ(c.metadata.generate_name, "default-");
  EXPECT_TRUE(c.metadata.name.empty()) << "the API server names it";
  EXPECT_EQ(c.metadata.labels.at("team"), "web") << "the plan's label wins over the template's";
  EXPECT_EQ(c.metadata.labels.at("tier"), "general");
  EXPECT_EQ(c.metadata.labels.at(s::kLabelNodePool), "default");
}

TEST(BuildNodeClaim, CarriesTheDriftHashTheFinalizerAndTheOwner) {
  const api::NodePool pool = PoolWithTemplate();
  api::NodeClaim c = BuildNodeClaim(Planned(), pool);
  EXPECT_EQ(c.metadata.annotations.at("example.com/owner"), "infra");
  EXPECT_EQ(c.metadata.annotations.at(kNodePoolHashAnnotation), NodePoolHash(pool));
  EXPECT_EQ(c.metadata.annotations.at(kNodePoolHashVersionAnnotation), kNodePoolHashVersion);
  EXPECT_THAT(c.metadata.finalizers, ElementsAre(kTerminationFinalizer));
  ASSERT_EQ(c.metadata.owner_references.size(), 1u);
  EXPECT_EQ(c.metadata.owner_references[0].kind, "NodePool");
  EXPECT_EQ(c.metadata.owner_references[0].name, "default");
  EXPECT_EQ(c.metadata.owner_references[0].uid, "pool-uid");
}

TEST(BuildNodeClaim, InstanceTypesAreThePlansOptionsInPriceOrderAndLast) {
  api::NodeClaim c = BuildNodeClaim(Planned(), PoolWithTemplate());
  ASSERT_FALSE(c.spec.requirements.empty());
  int instance_type_requirements = 0;
  for (const auto& r : c.spec.requirements) {
    if (r.key == s::kLabelInstanceTypeStable) ++instance_type_requirements;
  }
  EXPECT_EQ(instance_type_requirements, 1) << "the solver's wider set is replaced, not kept";
  const auto& last = c.spec.requirements.back();
  EXPECT_EQ(last.key, s::kLabelInstanceTypeStable);
  EXPECT_EQ(last.op, "In");
  EXPECT_THAT(last.values, ElementsAre("small", "large"));
  bool capacity_type = false;
  for (const auto& r : c.spec.requirements) {
    if (r.key == s::kLabelCapacityType) {
      capacity_type = true;
      EXPECT_THAT(r.values, ElementsAre("spot"));
    }
  }
  EXPECT_TRUE(capacity_type);
}

TEST(BuildNodeClaim, SpecComesFromThePlanAndTheTemplate) {
  const api::NodePool pool = PoolWithTemplate();
  api::NodeClaim c = BuildNodeClaim(Planned(), pool);
  EXPECT_EQ(c.spec.resource_requests.Get("cpu"), api::Quantity::MustParse("1500m"));
  ASSERT_EQ(c.spec.taints.size(), 1u);
  EXPECT_EQ(c.spec.taints[0].key, "dedicated");
  ASSERT_EQ(c.spec.startup_taints.size(), 1u);
  EXPECT_EQ(c.spec.startup_taints[0].key, "cni");
  EXPECT_EQ(c.spec.node_class_ref.name, "default");
  EXPECT_EQ(c.spec.termination_grace_period, std::chrono::minutes(5));
  EXPECT_EQ(c.spec.expire_after.value, pool.template_.spec.expire_after.value);
}

}  // namespace
}  // namespace nodesmith::controllers
