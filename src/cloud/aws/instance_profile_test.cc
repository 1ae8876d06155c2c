// The names and paths of the instance profiles nodesmith makes for a class's role: stable for a
// class and role, new for a new role, within IAM's limits, under the path deletion lists.
#include "cloud/aws/instance_profile.h"

#include <gtest/gtest.h>

#include <regex>

namespace nodesmith::aws {
namespace {

api::EC2NodeClass Class(const std::string& role) {
  api::EC2NodeClass c;
  c.metadata.name = "default";
  c.metadata.uid = "6f1c2a7e-0d1b-4c55-9a3e-2b8f4c1d9e70";
  c.role = role;
  return c;
}

TEST(InstanceProfileReconciler, AProfileIsNamedForItsClusterClassAndRole) {
  InstanceProfileReconciler r(nullptr, {"demo", "us-west-2"});
  const std::string name = r.NameFor(Class("KarpenterNodeRole-demo"));
  EXPECT_EQ(name, r.NameFor(Class("KarpenterNodeRole-demo"))) << "stable";
  EXPECT_EQ(name.rfind("demo_", 0), 0u) << name;
  EXPECT_NE(r.NameFor(Class("OtherRole")), name) << "a new role, a new profile";
  EXPECT_EQ(r.NameFor(Class("path/to/KarpenterNodeRole-demo")), name) << "a role's path is not its name";
  InstanceProfileReconciler other_region(nullptr, {"demo", "eu-west-1"});
  EXPECT_NE(other_region.NameFor(Class("KarpenterNodeRole-demo")), name);
  EXPECT_EQ(r.PathOf(Class("x")), "/karpenter/us-west-2/demo/6f1c2a7e-0d1b-4c55-9a3e-2b8f4c1d9e70/");
}

TEST(InstanceProfileReconciler, ANameFitsIamsLimitsWhateverTheClusterIsCalled) {
  InstanceProfileReconciler r(nullptr, {std::string(200, 'c'), "us-west-2"});
  const std::string name = r.NameFor(Class("KarpenterNodeRole-demo"));
  EXPECT_LE(name.size(), 128u);
  EXPECT_TRUE(std::regex_match(name, std::regex(R"([\w+=,.@-]+)"))) << name;
}

}  // namespace
}  // namespace nodesmith::aws
