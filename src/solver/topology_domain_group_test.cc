// TopologyDomainGroup and BuildDomainGroups: the universe of domains a constraint may count,
// and which of them a pod can reach when its spread honours node taints.
#include "solver/topology_domain_group.h"

#include <gmock/gmock.h>
#include <gtest/gtest.h>

namespace nodesmith::solver {
namespace {

using ::testing::ElementsAre;

constexpr const char* kZone = "topology.kubernetes.io/zone";

std::vector<std::string> Domains(const TopologyDomainGroup& g, const api::Pod& pod, bool honor) {
  std::vector<std::string> out;
  g.ForEachDomain(pod, honor, [&](const std::string& d) { out.push_back(d); });
  return out;
}

cloud::InstanceTypePtr TypeIn(const std::string& name, std::vector<std::string> zones) {
  std::vector<cloud::Offering> offerings;
  for (const auto& z : zones) offerings.push_back({z, "on-demand", 1.0, true, {}});
  return cloud::NewInstanceType(name, scheduling::Requirements(), {}, {}, offerings);
}

const api::Taint kGpuTaint{"nvidia.com/gpu", "true", "NoSchedule"};

TEST(TopologyDomainGroup, TaintedDomainsAreReachableOnlyByTolerantPodsWhenHonoured) {
  TopologyDomainGroup g;
  g.Insert("zone-a", {});
  g.Insert("zone-b", {kGpuTaint});
  api::Pod plain;
  EXPECT_THAT(Domains(g, plain, /*honor=*/false), ElementsAre("zone-a", "zone-b"));
  EXPECT_THAT(Domains(g, plain, /*honor=*/true), ElementsAre("zone-a"));
  api::Pod tolerant;
  tolerant.spec.tolerations.push_back({"nvidia.com/gpu", "Exists", "", "", std::nullopt});
  EXPECT_THAT(Domains(g, tolerant, /*honor=*/true), ElementsAre("zone-a", "zone-b"));
}

TEST(TopologyDomainGroup, AnUntaintedSourceMakesTheDomainReachableByEveryone) {
  TopologyDomainGroup g;
  g.Insert("zone-a", {kGpuTaint});
  g.Insert("zone-a", {});
  g.Insert("zone-a", {kGpuTaint});
  EXPECT_THAT(Domains(g, api::Pod(), /*honor=*/true), ElementsAre("zone-a"));
}

TEST(BuildDomainGroups, ZonesAreThePoolsZonesIntersectedWithItsInstanceTypes) {
  api::NodePool pool;
  pool.metadata.name = "default";
  pool.template_.spec.requirements.push_back({kZone, "In", {"zone-a", "zone-b"}, std::nullopt});
  cloud::InstanceTypes types = {TypeIn("m5.large", {"zone-a", "zone-b", "zone-c"}),
                                TypeIn("c5.large", {"zone-b", "zone-c"})};
  DomainGroups groups = BuildDomainGroups({{&pool, &types}});
  ASSERT_EQ(groups.count(kZone), 1u);
  EXPECT_THAT(Domains(groups[kZone], api::Pod(), false), ElementsAre("zone-a", "zone-b"));
  // Instance-type names and capacity types become domains of their keys too.
  EXPECT_THAT(Domains(groups["node.kubernetes.io/instance-type"], api::Pod(), false),
              ElementsAre("c5.large", "m5.large"));
  EXPECT_THAT(Domains(groups["karpenter.sh/capacity-type"], api::Pod(), false),
              ElementsAre("on-demand"));
}

TEST(BuildDomainGroups, PoolLabelsAndInRequirementsAreDomainsEvenWithoutInstanceTypes) {
  api::NodePool pool;
  pool.template_.labels = {{"team", "payments"}};
  pool.template_.spec.requirements.push_back({"rack", "In", {"r1", "r2"}, std::nullopt});
  pool.template_.spec.requirements.push_back({"tier", "NotIn", {"cold"}, std::nullopt});
  cloud::InstanceTypes none;
  DomainGroups groups = BuildDomainGroups({{&pool, &none}});
  EXPECT_THAT(Domains(groups["team"], api::Pod(), false), ElementsAre("payments"));
  EXPECT_THAT(Domains(groups["rack"], api::Pod(), false), ElementsAre("r1", "r2"));
  EXPECT_EQ(groups.count("tier"), 0u);  // NotIn names no domain
}

TEST(BuildDomainGroups, DomainsCarryThePoolsTaints) {
  api::NodePool gpu;
  gpu.template_.spec.taints.push_back(kGpuTaint);
  gpu.template_.spec.requirements.push_back({kZone, "In", {"zone-c"}, std::nullopt});
  api::NodePool general;
  general.template_.spec.requirements.push_back({kZone, "In", {"zone-a"}, std::nullopt});
  cloud::InstanceTypes none;
  DomainGroups groups = BuildDomainGroups({{&gpu, &none}, {&general, &none}});
  EXPECT_THAT(Domains(groups[kZone], api::Pod(), /*honor=*/true), ElementsAre("zone-a"));
  EXPECT_THAT(Domains(groups[kZone], api::Pod(), /*honor=*/false), ElementsAre("zone-a", "zone-c"));
}

}  // namespace
}  // namespace nodesmith::solver
