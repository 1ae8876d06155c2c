#include "solver/host_ports.h"

#include <gtest/gtest.h>

namespace nodesmith::solver {
namespace {

TEST(HostPorts, SamePortAndProtocolConflictUnlessBothIpsAreSpecificAndDiffer) {
  HostPort any{"", "TCP", 80};
  HostPort a{"10.0.0.1", "TCP", 80};
  HostPort b{"10.0.0.2", "TCP", 80};
  EXPECT_TRUE(any.Conflicts(a));
  EXPECT_TRUE(a.Conflicts(HostPort{"0.0.0.0", "TCP", 80}));
  EXPECT_TRUE(a.Conflicts(a));
  EXPECT_FALSE(a.Conflicts(b));
  EXPECT_FALSE(any.Conflicts(HostPort{"", "UDP", 80}));
  EXPECT_FALSE(any.Conflicts(HostPort{"", "TCP", 81}));
}

TEST(HostPorts, UsageReportsTheFirstConflict) {
  api::Pod pod;
  api::Container c;
  c.ports.push_back({"http", 8080, 80, "TCP", ""});
  c.ports.push_back({"metrics", 9090, 0, "TCP", ""});  // no host port
  pod.spec.containers.push_back(c);
  std::vector<HostPort> ports = PodHostPorts(pod);
  ASSERT_EQ(ports.size(), 1u);
  HostPortUsage usage;
  EXPECT_EQ(usage.Conflict(ports), nullptr);
  usage.Add(ports);
  const HostPort* clash = usage.Conflict(ports);
  ASSERT_NE(clash, nullptr);
  EXPECT_EQ(clash->String(), "TCP/0.0.0.0:80");
}

}  // namespace
}  // namespace nodesmith::solver
