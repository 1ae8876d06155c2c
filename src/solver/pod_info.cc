#include "solver/pod_info.h"

#include <charconv>

#include "scheduling/pod_requests.h"
#include "scheduling/taints.h"
#include "solver/snapshot.h"

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
  const api::PodSpec& spec = pod.spec;
  if (!spec.init_containers.empty() || spec.resources || !spec.overhead.empty()) {
    return scheduling::PodRequests(pod);  // includes pods: 1
  }
  // The common case, built in place: with no init containers, pod-level resources or overhead,
  // scheduling::PodRequests is the sum of every container's requests (a limit standing in for a
  // missing request) plus pods: 1. Summed in container order, as there, so every quantity
  // keeps the same format; this only skips the intermediate lists.
  api::ResourceList out;
  for (const api::Container& c : spec.containers) {
    for (const auto& [name, q] : c.resources.requests.items()) out.Set(name, out.Get(name) + q);
    for (const auto& [name, q] : c.resources.limits.items()) {
      if (!c.resources.requests.Has(name)) out.Set(name, out.Get(name) + q);
    }
  }
  out.Set(api::kResourcePods, api::Quantity::FromInt(1));
  return out;
}

namespace {

// Requests and limits only: the inputs of PodRequestsWithPodCount's common case.
bool OnlyContainerResources(const api::PodSpec& spec) {
  return spec.init_containers.empty() && !spec.resources && spec.overhead.empty();
}

uint64_t Mix(uint64_t h, uint64_t v) { return (h ^ v) * 0x100000001b3ULL + 0x9e3779b97f4a7c15ULL; }

uint64_t HashList(uint64_t h, const api::ResourceList& list) {
  for (const auto& [name, q] : list.items()) {
    h = Mix(h, std::hash<std::string>()(name));
    h = Mix(h, static_cast<uint64_t>(q.MilliValue()));
    h = Mix(h, static_cast<uint64_t>(q.format()));
  }
  return Mix(h, 0x5bd1e995);
}

// Equal names, values and formats: every quantity of the computed list is a sum (value and
// format, never the spelling), so equal inputs give identical lists.
bool SameList(const api::ResourceList& a, const api::ResourceList& b) {
  if (a.items().size() != b.items().size()) return false;
  auto j = b.items().begin();
  for (const auto& [name, q] : a.items()) {
    if (name != j->first || q.Cmp(j->second) != 0 || q.format() != j->second.format()) return false;
    ++j;
  }
  return true;
}

bool SameContainerResources(const api::PodSpec& a, const api::PodSpec& b) {
  if (a.containers.size() != b.containers.size()) return false;
  for (size_t i = 0; i < a.containers.size(); ++i) {
    const api::ResourceRequirements& x = a.containers[i].resources;
    const api::ResourceRequirements& y = b.containers[i].resources;
    if (!SameList(x.requests, y.requests) || !SameList(x.limits, y.limits)) return false;
  }
  return true;
}

}  // namespace

std::shared_ptr<const api::ResourceList> RequestLists::For(const api::Pod& pod) {
  if (!OnlyContainerResources(pod.spec)) {
    return std::make_shared<const api::ResourceList>(PodRequestsWithPodCount(pod));
  }
  // Pods usually come in runs of one shape: try the last match before hashing.
  if (last_.first != nullptr && SameContainerResources(last_.first->spec, pod.spec)) return last_.second;
  uint64_t h = pod.spec.containers.size();
  for (const api::Container& c : pod.spec.containers) {
    h = HashList(HashList(h, c.resources.requests), c.resources.limits);
  }
  std::vector<Entry>& bucket = by_hash_[h];
  for (const Entry& e : bucket) {
    if (SameContainerResources(e.first->spec, pod.spec)) {
      last_ = e;
      return e.second;
    }
  }
  bucket.emplace_back(&pod, std::make_shared<const api::ResourceList>(PodRequestsWithPodCount(pod)));
  last_ = bucket.back();
  return bucket.back().second;
}

namespace {

bool HasHostPort(const std::vector<api::Container>& containers) {
  for (const api::Container& c : containers) {
    for (const api::ContainerPort& p : c.ports) {
      if (p.host_port != 0) return true;
    }
  }
  return false;
}

bool HasNodeAffinity(const api::PodSpec& spec) {
  return spec.affinity && spec.affinity->node_affinity;
}

bool SameTolerations(const std::vector<api::Toleration>& a, const std::vector<api::Toleration>& b) {
  if (a.size() != b.size()) return false;
  for (size_t i = 0; i < a.size(); ++i) {
    if (a[i].key != b[i].key || a[i].op != b[i].op || a[i].value != b[i].value ||
        a[i].effect != b[i].effect) {
      return false;
    }
  }
  return true;
}

}  // namespace

bool SamePlacementSpec(const api::Pod& a, const api::Pod& b) {
  // MakePodInfo reads, besides the key and the request list: the node selector and node
  // affinity (requirements), the tolerations and host ports (signature, host_ports).
  return !HasNodeAffinity(a.spec) && !HasNodeAffinity(b.spec) &&
         a.spec.node_selector == b.spec.node_selector &&
         SameTolerations(a.spec.tolerations, b.spec.tolerations) &&
         !HasHostPort(a.spec.containers) && !HasHostPort(b.spec.containers) &&
         !HasHostPort(a.spec.init_containers) && !HasHostPort(b.spec.init_containers);
}

PodInfo MakePodInfo(const api::Pod& pod, const ResourceIndex& index,
                    std::shared_ptr<const api::ResourceList> request_list) {
  PodInfo info;
  info.key = PodKey(pod);
  info.request_list = request_list ? std::move(request_list)
                                   : std::make_shared<const api::ResourceList>(PodRequestsWithPodCount(pod));
  info.requests = index.ToVector(*info.request_list);
  info.requirements = scheduling::Requirements::FromPod(pod);
  info.strict_requirements = scheduling::Requirements::FromPodStrict(pod);
  info.host_ports = PodHostPorts(pod);

  std::string& sig = info.signature;
  sig.reserve(64);
  for (int64_t v : info.requests) {
    char buf[24];
    auto [end, ec] = std::to_chars(buf, buf + sizeof(buf), v);
    (void)ec;  // 24 characters hold every int64
    sig.append(buf, end);
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
