#include "solver/host_ports.h"

namespace nodesmith::solver {
namespace {

bool Unspecified(const std::string& ip) { return ip.empty() || ip == "0.0.0.0" || ip == "::"; }

void Collect(const std::vector<api::Container>& containers, std::vector<HostPort>& out) {
  for (const auto& c : containers) {
    for (const auto& p : c.ports) {
      if (p.host_port == 0) continue;
      out.push_back(HostPort{p.host_ip, p.protocol.empty() ? "TCP" : p.protocol, p.host_port});
    }
  }
}

}  // namespace

bool HostPort::Conflicts(const HostPort& o) const {
  if (port != o.port || protocol != o.protocol) return false;
  return ip == o.ip || Unspecified(ip) || Unspecified(o.ip);
}

std::string HostPort::String() const {
  return protocol + "/" + (ip.empty() ? "0.0.0.0" : ip) + ":" + std::to_string(port);
}

std::vector<HostPort> PodHostPorts(const api::Pod& pod) {
  std::vector<HostPort> out;
  Collect(pod.spec.init_containers, out);
  Collect(pod.spec.containers, out);
  return out;
}

const HostPort* HostPortUsage::Conflict(const std::vector<HostPort>& ports) const {
  for (const auto& p : ports) {
    for (const auto& u : used_) {
      if (u.Conflicts(p)) return &u;
    }
  }
  return nullptr;
}

void HostPortUsage::Add(const std::vector<HostPort>& ports) {
  used_.insert(used_.end(), ports.begin(), ports.end());
}

}  // namespace nodesmith::solver
