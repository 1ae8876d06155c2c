#include "api/pod_status.h"

#include <gtest/gtest.h>

namespace nodesmith::api {
namespace {

Pod PodIn(const std::string& phase) {
  Pod pod;
  pod.metadata.namespace_ = "default";
  pod.metadata.name = "web-1";
  pod.status.phase = phase;
  return pod;
}

TEST(PodStatus, SucceededAndFailedPodsAreTerminal) {
  EXPECT_TRUE(IsTerminal(PodIn("Succeeded")));
  EXPECT_TRUE(IsTerminal(PodIn("Failed")));
  EXPECT_FALSE(IsTerminal(PodIn("Running")));
  EXPECT_FALSE(IsTerminal(PodIn("")));
}

TEST(PodStatus, APodIsActiveUntilItFinishesOrIsDeleted) {
  EXPECT_TRUE(IsActive(PodIn("Pending")));
  EXPECT_FALSE(IsActive(PodIn("Succeeded")));
  Pod deleting = PodIn("Running");
  deleting.metadata.deletion_timestamp = core::Time::FromUnixSeconds(1);
  EXPECT_TRUE(IsTerminating(deleting));
  EXPECT_FALSE(IsActive(deleting));
}

TEST(PodStatus, OwnershipLooksAtEveryOwnerReferenceKind) {
  Pod pod = PodIn("Running");
  EXPECT_FALSE(IsOwnedByDaemonSet(pod));
  pod.metadata.owner_references = {{"v1", "ConfigMap", "x"}, {"apps/v1", "DaemonSet", "ds"}};
  EXPECT_TRUE(IsOwnedByDaemonSet(pod));
  EXPECT_FALSE(IsOwnedByNode(pod));
  pod.metadata.owner_references.push_back({"v1", "Node", "node-a"});
  EXPECT_TRUE(IsOwnedByNode(pod));
}

TEST(PodStatus, ControllerOfIsTheReferenceMarkedControllerOnly) {
  ObjectMeta meta;
  meta.owner_references = {{"apps/v1", "ReplicaSet", "a"}};
  EXPECT_EQ(ControllerOf(meta), nullptr);
  meta.owner_references.push_back({"apps/v1", "ReplicaSet", "b", "", true});
  ASSERT_NE(ControllerOf(meta), nullptr);
  EXPECT_EQ(ControllerOf(meta)->name, "b");
}

TEST(PodStatus, ReadyFollowsTheReadyCondition) {
  Pod pod = PodIn("Running");
  EXPECT_FALSE(IsPodReady(pod));
  pod.status.conditions = {{"PodScheduled", "True"}, {"Ready", "True"}};
  EXPECT_TRUE(IsPodReady(pod));
  pod.status.conditions[1].status = "False";
  EXPECT_FALSE(IsPodReady(pod));
}

TEST(PodStatus, KeyIsNamespaceSlashNameEvenWithoutANamespace) {
  EXPECT_EQ(PodKey(PodIn("Running")), "default/web-1");
  Pod bare;
  bare.metadata.name = "p";
  EXPECT_EQ(PodKey(bare), "/p");
}

}  // namespace
}  // namespace nodesmith::api
