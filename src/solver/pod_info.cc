#include "solver/pod_info.h"

#include "scheduling/pod_requests.h"
#include "scheduling/taints.h"

namespace nodesmith::solver {
namespace {

void AppendRequirements(const scheduling::Requirements& reqs, std::string& out) {
  for (const auto& r : reqs) AppendCanonicalText(r, /*with_min_values=*/true, out);
  out += '|';
}

}  // namespace

void AppendCanonicalText(const scheduling::Requirement& r, bool with_min_values, std::string& out) {
  out += r.key();
  out += r.complement() ? "!{" : "{";
  for (const auto& v : r.Values()) {
    out += v;
    out += ',';
  }
  out += '}';
  // Appended piecewise: `"literal" + std::string&&` trips a false g++ 12 -O3 -Wrestrict.
  if (r.lower_bound()) {
    out += ">=";
    out += std::to_string(*r.lower_bound());
  }
  if (r.upper_bound()) {
    out += "<=";
    out += std::to_string(*r.upper_bound());
  }
  if (with_min_values && r.min_values()) {
    out += '#';
    out += std::to_string(*r.min_values());
  }
  out += ';';
}

api::ResourceList PodRequestsWithPodCount(const api::Pod& pod) {
  return scheduling::PodRequests(pod);  // includes pods: 1
}

PodInfo MakePodInfo(const api::Pod& pod, const ResourceIndex& index,
                    api::ResourceList request_list) {
  PodInfo info;
  info.key = pod.metadata.namespace_ + "/" + pod.metadata.name;
  info.request_list = request_list.empty() ? PodRequestsWithPodCount(pod) : std::move(request_list);
  info.requests = index.ToVector(info.request_list);
  info.requirements = scheduling::Requirements::FromPod(pod);
  info.strict_requirements = scheduling::Requirements::FromPodStrict(pod);
  info.host_ports = PodHostPorts(pod);

  std::string& sig = info.signature;
  for (int64_t v : info.requests) {
    sig += std::to_string(v);
    sig += ',';
  }
  sig += '|';
  AppendRequirements(info.requirements, sig);
  AppendRequirements(info.strict_requirements, sig);
  for (const auto& t : pod.spec.tolerations) {
    sig += t.key + "\x1f" + t.op + "\x1f" + t.value + "\x1f" + t.effect + ";";
  }
  sig += '|';
  for (const auto& p : info.host_ports) sig += p.String() + ";";
  return info;
}

std::optional<api::Taint> FirstUntoleratedTaint(const std::vector<api::Taint>& taints,
                                                const api::Pod& pod) {
  const api::Taint* t = scheduling::FindUntoleratedTaint(pod.spec.tolerations, taints);
  if (t == nullptr) return std::nullopt;
  return *t;
}

std::string DescribeUntolerated(const api::Taint& t) {
  return "taint " + scheduling::TaintString(t) + " not tolerated";
}

bool HasTopologyConstraints(const api::Pod& pod) {
  if (!pod.spec.topology_spread_constraints.empty()) return true;
  if (!pod.spec.affinity) return false;
  const auto& a = *pod.spec.affinity;
  auto has = [](const std::optional<api::PodAffinity>& p) {
    return p && (!p->required.empty() || !p->preferred.empty());
  };
  return has(a.pod_affinity) || has(a.pod_anti_affinity);
}

bool HasRequiredAntiAffinity(const api::Pod& pod) {
  return pod.spec.affinity && pod.spec.affinity->pod_anti_affinity &&
         !pod.spec.affinity->pod_anti_affinity->required.empty();
}

}  // namespace nodesmith::solver
