// Builders for solver tests: small hand-made instance types, pods and NodePools, so each test
// reads as "given these, expect that". Test-only (included from *_test.cc).
#pragma once

#include <map>
#include <string>
#include <utility>
#include <vector>

#include "api/object_set.h"
#include "cloud/instance_type.h"
#include "scheduling/requirements.h"
#include "scheduling/well_known_labels.h"
#include "solver/scheduler.h"
#include "solver/snapshot.h"

namespace nodesmith::solver::testing {

inline api::Quantity Q(const char* s) { return api::Quantity::MustParse(s); }

struct TypeSpec {
  std::string name;
  std::string cpu = "4";
  std::string memory = "16Gi";
  std::string pods = "110";
  double price = 1.0;
  std::vector<std::string> zones = {"test-zone-a"};
  std::vector<std::string> capacity_types = {"on-demand"};
  std::map<std::string, std::string> extra_capacity;  // e.g. nvidia.com/gpu: "1"
  api::Labels labels;
  // Spot price = price * spot_factor when spot is among capacity_types.
  double spot_factor = 0.5;
  // On-demand price in a zone, where it differs from `price`.
  std::map<std::string, double> zone_prices;
};

// No overhead: allocatable == capacity, so fit arithmetic in tests is exact.
inline cloud::InstanceTypePtr MakeType(const TypeSpec& t) {
  api::ResourceList capacity{{"cpu", Q(t.cpu.c_str())},
                             {"memory", Q(t.memory.c_str())},
                             {"pods", Q(t.pods.c_str())}};
  for (const auto& [k, v] : t.extra_capacity) capacity.Set(k, Q(v.c_str()));
  std::vector<cloud::Offering> offerings;
  for (const auto& z : t.zones) {
    for (const auto& ct : t.capacity_types) {
      cloud::Offering o;
      o.zone = z;
      o.capacity_type = ct;
      auto zone_price = t.zone_prices.find(z);
      const double price = zone_price == t.zone_prices.end() ? t.price : zone_price->second;
      o.price = ct == "spot" ? price * t.spot_factor : price;
      offerings.push_back(o);
    }
  }
  api::Labels labels = t.labels;
  labels.emplace("kubernetes.io/arch", "amd64");
  labels.emplace("kubernetes.io/os", "linux");
  return cloud::NewInstanceType(t.name, scheduling::Requirements::FromLabels(labels), capacity,
                                cloud::Overhead{}, offerings);
}

inline api::Pod MakePod(const std::string& name, const std::string& cpu, const std::string& memory = "",
                        int creation_second = 0) {
  api::Pod p;
  p.metadata.name = name;
  p.metadata.namespace_ = "default";
  p.metadata.uid = "uid-" + name;
  p.metadata.creation_timestamp = core::Time::FromUnixSeconds(1700000000 + creation_second);
  api::Container c;
  c.name = "app";
  if (!cpu.empty()) c.resources.requests.Set("cpu", Q(cpu.c_str()));
  if (!memory.empty()) c.resources.requests.Set("memory", Q(memory.c_str()));
  p.spec.containers.push_back(c);
  return p;
}

inline api::NodePool MakePool(const std::string& name, std::optional<int> weight = std::nullopt) {
  api::NodePool np;
  np.metadata.name = name;
  np.weight = weight;
  return np;
}

inline api::NodeSelectorRequirement Req(const std::string& key, const std::string& op,
                                        std::vector<std::string> values = {},
                                        std::optional<int> min_values = std::nullopt) {
  return api::NodeSelectorRequirement{key, op, std::move(values), min_values};
}

inline api::Node MakeNode(const std::string& name, const std::string& cpu, const std::string& memory,
                          api::Labels labels = {}) {
  api::Node n;
  n.metadata.name = name;
  n.metadata.labels = std::move(labels);
  n.metadata.labels.emplace("kubernetes.io/hostname", name);
  n.status.allocatable = {{"cpu", Q(cpu.c_str())}, {"memory", Q(memory.c_str())}, {"pods", Q("110")}};
  n.status.capacity = n.status.allocatable;
  return n;
}

// Collects inputs, then solves.
struct Cluster {
  api::ObjectSet objects;
  cloud::InstanceTypes types;
  SchedulerOptions options;

  Cluster& Add(api::Pod p) {
    objects.pods.push_back({std::move(p), {}});
    return *this;
  }
  Cluster& Add(api::NodePool np) {
    objects.node_pools.push_back({std::move(np), {}});
    return *this;
  }
  Cluster& Add(api::Node n) {
    objects.nodes.push_back({std::move(n), {}});
    return *this;
  }
  Cluster& Add(api::NodeClaim c) {
    objects.node_claims.push_back({std::move(c), {}});
    return *this;
  }
  Cluster& Add(api::DaemonSet d) {
    objects.daemon_sets.push_back({std::move(d), {}});
    return *this;
  }
  Cluster& Add(const TypeSpec& t) {
    types.push_back(MakeType(t));
    return *this;
  }

  Results Solve() const {
    auto snap = BuildSnapshot(objects, {}, types, scheduling::WellKnownLabels());
    if (!snap.ok()) return Results{};
    auto r = solver::Solve(*snap, options);
    return r.ok() ? *r : Results{};
  }
};

// Pod names of each new NodeClaim, in order.
inline std::vector<std::vector<std::string>> PodsPerClaim(const Results& r) {
  std::vector<std::vector<std::string>> out;
  for (const auto& c : r.new_node_claims) out.push_back(c.pods);
  return out;
}

}  // namespace nodesmith::solver::testing
