#include "api/pod_limit.h"

#include <gtest/gtest.h>

namespace nodesmith::api {
namespace {

TEST(PodLimit, AllowsExactlyTheLimitAndRefusesOneMore) {
  PodLimit limit;
  ASSERT_TRUE(limit.Add(kMaxPods - 1, "a.yaml: document 1 (Deployment a): spec.replicas").ok());
  ASSERT_TRUE(limit.Add(1, "a.yaml: document 2 (Deployment b): spec.replicas").ok());
  EXPECT_EQ(limit.total(), kMaxPods);
  core::Status st = limit.Add(1, "a.yaml: document 3 (Job c): spec.parallelism");
  EXPECT_EQ(st.code(), core::StatusCode::kInvalidArgument);
  EXPECT_EQ(st.message(),
            "a.yaml: document 3 (Job c): spec.parallelism: 1 pods would make 1000001 in all, more "
            "than the 1000000 pods an input may stand for");
  EXPECT_EQ(limit.total(), kMaxPods);  // a refused count is not taken
}

TEST(PodLimit, ARefusalLeavesRoomForSmallerCounts) {
  PodLimit limit(10);
  EXPECT_FALSE(limit.Add(2147483647, "x").ok());
  EXPECT_TRUE(limit.Add(10, "y").ok());
}

}  // namespace
}  // namespace nodesmith::api
