// Pod requests: each Kubernetes rule with concrete numbers.
#include "scheduling/pod_requests.h"

#include <gtest/gtest.h>

namespace nodesmith::scheduling {
namespace {

using api::Quantity;
using api::ResourceList;

ResourceList RL(std::initializer_list<std::pair<const char*, const char*>> items) {
  ResourceList out;
  for (const auto& [name, value] : items) out.Set(name, Quantity::MustParse(value));
  return out;
}

api::Container C(ResourceList requests, ResourceList limits = {}, std::string restart = "") {
  api::Container c;
  c.name = "c";
  c.resources.requests = std::move(requests);
  c.resources.limits = std::move(limits);
  c.restart_policy = std::move(restart);
  return c;
}

api::Container Sidecar(ResourceList requests) { return C(std::move(requests), {}, "Always"); }

void ExpectRequests(const api::Pod& pod, const ResourceList& expected) {
  ResourceList got = PodRequests(pod);
  EXPECT_EQ(got, expected) << "got " << got.String() << ", want " << expected.String();
  // Every expected name is present, not just equal-as-zero.
  for (const auto& [name, q] : expected.items()) EXPECT_TRUE(got.Has(name)) << name;
}

TEST(PodRequestsTest, EmptyPodRequestsOnlyItsPodSlot) {
  ResourceList got = PodRequests(api::Pod{});
  EXPECT_EQ(got.String(), "pods: 1");
}

TEST(PodRequestsTest, SumsRegularContainers) {
  api::Pod pod;
  pod.spec.containers = {C(RL({{"cpu", "100m"}, {"memory", "128Mi"}})), C(RL({{"cpu", "200m"}}))};
  ExpectRequests(pod, RL({{"cpu", "300m"}, {"memory", "128Mi"}, {"pods", "1"}}));
}

TEST(PodRequestsTest, ContainerWithLimitButNoRequestRequestsItsLimit) {
  api::Pod pod;
  pod.spec.containers = {
      C(RL({{"memory", "512Mi"}}), RL({{"cpu", "1"}, {"memory", "1Gi"}, {"nvidia.com/gpu", "1"}}))};
  ExpectRequests(pod,
                 RL({{"cpu", "1"}, {"memory", "512Mi"}, {"nvidia.com/gpu", "1"}, {"pods", "1"}}));
}

TEST(PodRequestsTest, InitContainerLargerThanContainersSetsTheRequest) {
  api::Pod pod;
  pod.spec.containers = {C(RL({{"cpu", "500m"}, {"memory", "1Gi"}}))};
  pod.spec.init_containers = {C(RL({{"cpu", "2"}, {"memory", "256Mi"}}))};
  ExpectRequests(pod, RL({{"cpu", "2"}, {"memory", "1Gi"}, {"pods", "1"}}));
}

TEST(PodRequestsTest, InitContainersRunOneAtATimeSoTheirMaxCountsNotTheirSum) {
  api::Pod pod;
  pod.spec.containers = {C(RL({{"cpu", "500m"}}))};
  pod.spec.init_containers = {C(RL({{"cpu", "1"}})), C(RL({{"cpu", "2"}}))};
  ExpectRequests(pod, RL({{"cpu", "2"}, {"pods", "1"}}));
}

TEST(PodRequestsTest, SidecarRunsBesideLaterInitContainersAndTheMainContainers) {
  api::Pod pod;
  pod.spec.containers = {C(RL({{"cpu", "500m"}}))};
  pod.spec.init_containers = {Sidecar(RL({{"cpu", "300m"}})), C(RL({{"cpu", "1"}}))};
  // Init step: 1 + 300m = 1300m; steady state: 500m + 300m = 800m.
  ExpectRequests(pod, RL({{"cpu", "1300m"}, {"pods", "1"}}));
}

TEST(PodRequestsTest, InitContainerBeforeASidecarDoesNotRunBesideIt) {
  api::Pod pod;
  pod.spec.containers = {C(RL({{"cpu", "500m"}}))};
  pod.spec.init_containers = {C(RL({{"cpu", "1"}})), Sidecar(RL({{"cpu", "300m"}}))};
  // Init step alone: 1; steady state: 800m.
  ExpectRequests(pod, RL({{"cpu", "1"}, {"pods", "1"}}));
}

TEST(PodRequestsTest, SidecarsAccumulate) {
  api::Pod pod;
  pod.spec.containers = {C(RL({{"cpu", "1"}, {"memory", "1Gi"}}))};
  pod.spec.init_containers = {Sidecar(RL({{"cpu", "100m"}, {"memory", "100Mi"}})),
                              Sidecar(RL({{"cpu", "200m"}})),
                              C(RL({{"cpu", "1500m"}, {"memory", "64Mi"}}))};
  // Init step 3: 1500m + 300m = 1800m cpu; steady: 1300m cpu, 1Gi + 100Mi memory.
  ExpectRequests(pod, RL({{"cpu", "1800m"}, {"memory", "1124Mi"}, {"pods", "1"}}));
}

TEST(PodRequestsTest, SidecarsAloneAddToTheContainers) {
  api::Pod pod;
  pod.spec.containers = {C(RL({{"memory", "1Gi"}}))};
  pod.spec.init_containers = {Sidecar(RL({{"memory", "1Gi"}}))};
  ExpectRequests(pod, RL({{"memory", "2Gi"}, {"pods", "1"}}));
}

TEST(PodRequestsTest, OverheadIsAdded) {
  api::Pod pod;
  pod.spec.containers = {C(RL({{"cpu", "1"}}))};
  pod.spec.overhead = RL({{"cpu", "250m"}, {"memory", "120Mi"}});
  ExpectRequests(pod, RL({{"cpu", "1250m"}, {"memory", "120Mi"}, {"pods", "1"}}));
}

TEST(PodRequestsTest, PodLevelRequestsReplaceTheResourcesTheyName) {
  api::Pod pod;
  pod.spec.containers = {C(RL({{"cpu", "1"}, {"memory", "1Gi"}, {"nvidia.com/gpu", "1"}}))};
  pod.spec.resources = api::ResourceRequirements{RL({{"cpu", "3"}, {"nvidia.com/gpu", "4"}}), {}};
  // gpu is not a pod-level resource, so the container aggregate stands.
  ExpectRequests(pod,
                 RL({{"cpu", "3"}, {"memory", "1Gi"}, {"nvidia.com/gpu", "1"}, {"pods", "1"}}));
}

TEST(PodRequestsTest, PodLevelRequestsMayBeBelowTheContainerSum) {
  api::Pod pod;
  pod.spec.containers = {C(RL({{"memory", "1Gi"}})), C(RL({{"memory", "1Gi"}}))};
  pod.spec.resources = api::ResourceRequirements{RL({{"memory", "1536Mi"}}), {}};
  ExpectRequests(pod, RL({{"memory", "1536Mi"}, {"pods", "1"}}));
}

TEST(PodRequestsTest, PodLevelLimitsDefaultRequestsLikeTheApiServer) {
  api::Pod pod;
  pod.spec.containers = {C(RL({{"cpu", "500m"}}))};
  pod.spec.resources = api::ResourceRequirements{{}, RL({{"cpu", "2"}, {"memory", "4Gi"}})};
  // cpu: the containers request it, so the aggregate; memory: nobody requests it, so the limit.
  ExpectRequests(pod, RL({{"cpu", "500m"}, {"memory", "4Gi"}, {"pods", "1"}}));
}

TEST(PodRequestsTest, OverheadAddsOnTopOfPodLevelRequests) {
  api::Pod pod;
  pod.spec.containers = {C(RL({{"cpu", "1"}}))};
  pod.spec.resources = api::ResourceRequirements{RL({{"cpu", "2"}}), {}};
  pod.spec.overhead = RL({{"cpu", "100m"}});
  ExpectRequests(pod, RL({{"cpu", "2100m"}, {"pods", "1"}}));
}

TEST(PodRequestsTest, PodsIsAlwaysOne) {
  api::Pod pod;
  pod.spec.containers = {C(RL({{"pods", "3"}}))};
  EXPECT_EQ(PodRequests(pod).Get("pods"), Quantity::FromInt(1));
}

TEST(PodRequestsTest, SupportedPodLevelResources) {
  EXPECT_TRUE(IsSupportedPodLevelResource("cpu"));
  EXPECT_TRUE(IsSupportedPodLevelResource("memory"));
  EXPECT_TRUE(IsSupportedPodLevelResource("hugepages-2Mi"));
  EXPECT_FALSE(IsSupportedPodLevelResource("ephemeral-storage"));
  EXPECT_FALSE(IsSupportedPodLevelResource("nvidia.com/gpu"));
}

}  // namespace
}  // namespace nodesmith::scheduling
