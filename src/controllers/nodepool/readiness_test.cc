// NodePool readiness as a specification: NodeClassReady follows the node class the NodePool
// references, and Ready follows NodeClassReady and ValidationSucceeded.
#include "controllers/nodepool/readiness.h"

#include <gtest/gtest.h>

#include "api/conditions.h"
#include "api/ec2nodeclass.h"
#include "controllers/nodepool/conditions.h"
#include "controllers/nodepool/validation.h"
#include "controllers/testing/fixtures.h"

namespace nodesmith::controllers {
namespace {

using std::chrono::seconds;

class NodePoolReadinessTest : public ::testing::Test {
 protected:
  NodePoolReadinessTest() { world_.MustCreate(testing::Pool()); }

  api::EC2NodeClass NodeClass(std::vector<api::Condition> conditions) {
    api::EC2NodeClass nc;
    nc.metadata.name = "default";
    nc.conditions = std::move(conditions);
    return nc;
  }
  // Reconciles, then the NodePool's condition of `type` ("-" when absent).
  api::Condition Reconciled(const std::string& type = kConditionNodeClassReady) {
    auto r = controller_.Reconcile({});
    EXPECT_TRUE(r.ok()) << r.status().message();
    api::NodePool p = world_.MustGet<api::NodePool>("", "default");
    const api::Condition* c = api::FindCondition(p.conditions, type);
    return c != nullptr ? *c : api::Condition{type, "-"};
  }

  testing::World world_;
  NodePoolReadiness controller_{world_.clock, world_.cluster};
};

TEST_F(NodePoolReadinessTest, AMissingNodeClassIsNotFound) {
  api::Condition c = Reconciled();
  EXPECT_EQ(c.status, "False");
  EXPECT_EQ(c.reason, kReasonNodeClassNotFound);
  EXPECT_EQ(c.message, "NodeClass not found on cluster");
}

TEST_F(NodePoolReadinessTest, ANodeClassWithoutReadinessIsUnknownReadiness) {
  world_.MustCreate(NodeClass({}));
  api::Condition c = Reconciled();
  EXPECT_EQ(c.status, "False");
  EXPECT_EQ(c.reason, kReasonNodeClassReadinessUnknown);
  EXPECT_EQ(c.message, "Node Class Readiness Unknown");
}

TEST_F(NodePoolReadinessTest, ANodeClassNotReadyPassesOnItsReason) {
  world_.MustCreate(NodeClass({{"Ready", "False", "SubnetsNotFound", "no subnets matched"}}));
  api::Condition c = Reconciled();
  EXPECT_EQ(c.status, "False");
  EXPECT_EQ(c.reason, "SubnetsNotFound");
  EXPECT_EQ(c.message, "no subnets matched");
}

TEST_F(NodePoolReadinessTest, AReadyNodeClassMakesTheNodePoolReadyOnceValidated) {
  world_.MustCreate(NodeClass({{"Ready", "True", "Ready"}}));
  EXPECT_EQ(Reconciled().status, "True");
  EXPECT_EQ(Reconciled(kConditionReady).status, "Unknown") << "validation has not run yet";

  NodePoolValidation validation{world_.clock, world_.cluster};
  ASSERT_TRUE(validation.Reconcile({"", "default"}).ok());
  EXPECT_EQ(Reconciled(kConditionReady).status, "True");
}

TEST_F(NodePoolReadinessTest, NodeClassChangesAreFollowed) {
  api::EC2NodeClass nc = world_.MustCreate(NodeClass({{"Ready", "True", "Ready"}}));
  ASSERT_EQ(Reconciled().status, "True");
  world_.clock.Step(seconds(20));
  nc.conditions = {{"Ready", "False", "AMINotFound", "no AMI matched"}};
  ASSERT_TRUE(world_.cluster.Update(nc).ok());
  api::Condition c = Reconciled();
  EXPECT_EQ(c.reason, "AMINotFound");
  EXPECT_EQ(c.last_transition_time, world_.clock.Now());
}

TEST_F(NodePoolReadinessTest, ATerminatingNodeClassIsNotReady) {
  api::EC2NodeClass nc = NodeClass({{"Ready", "True", "Ready"}});
  nc.metadata.finalizers = {"karpenter.k8s.aws/termination"};
  world_.MustCreate(nc);
  ASSERT_TRUE(world_.cluster.Delete<api::EC2NodeClass>("", "default").ok());
  api::Condition c = Reconciled();
  EXPECT_EQ(c.status, "False");
  EXPECT_EQ(c.reason, kReasonNodeClassTerminating);
  EXPECT_EQ(c.message, "NodeClass is Terminating");
}

TEST_F(NodePoolReadinessTest, AKwokNodeClassIsReady) {
  api::NodePool p = world_.MustGet<api::NodePool>("", "default");
  p.template_.spec.node_class_ref = {"karpenter.kwok.sh", "KWOKNodeClass", "default"};
  ASSERT_TRUE(world_.cluster.Update(p).ok());
  EXPECT_EQ(Reconciled().status, "True");
}

TEST_F(NodePoolReadinessTest, AnUnsupportedNodeClassIsLeftAlone) {
  api::NodePool p = world_.MustGet<api::NodePool>("", "default");
  p.template_.spec.node_class_ref = {"example.com", "OtherNodeClass", "default"};
  ASSERT_TRUE(world_.cluster.Update(p).ok());
  EXPECT_EQ(Reconciled().status, "-");
  EXPECT_EQ(Reconciled(kConditionReady).status, "-");
}

TEST_F(NodePoolReadinessTest, NothingIsWrittenWhenNothingChanged) {
  Reconciled();
  auto version = [&] {
    return world_.MustGet<api::NodePool>("", "default").metadata.resource_version;
  };
  const std::string before = version();
  world_.clock.Step(seconds(10));
  Reconciled();
  EXPECT_EQ(version(), before);
}

}  // namespace
}  // namespace nodesmith::controllers
