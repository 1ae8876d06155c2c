// HostPortUsage: the host ports already taken on one node, as Karpenter's
// pkg/scheduling/hostportusage.go. Two ports conflict when port and protocol are equal and
// the IPs are equal or either is unspecified ("" or 0.0.0.0, meaning every address).
#pragma once

#include <string>
#include <vector>

#include "api/pod.h"

namespace nodesmith::solver {

struct HostPort {
  std::string ip;
  std::string protocol;
  int port = 0;
  bool Conflicts(const HostPort& o) const;
  // "TCP/0.0.0.0:80" for messages.
  std::string String() const;
};

// The host ports a pod's containers (init containers included) expose.
std::vector<HostPort> PodHostPorts(const api::Pod& pod);

class HostPortUsage {
 public:
  // The first used port that conflicts with one of `ports`, or nullptr.
  const HostPort* Conflict(const std::vector<HostPort>& ports) const;
  void Add(const std::vector<HostPort>& ports);
  bool empty() const { return used_.empty(); }

 private:
  std::vector<HostPort> used_;
};

}  // namespace nodesmith::solver
